package io.replaysafe.cli;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.config.SourceFormat;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.config.StoragePaths;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.jobs.PipelineDraft;
import io.replaysafe.silver.draft.Candidate;
import io.replaysafe.silver.draft.EnvelopeDraft;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Drafts a pipeline file from sample files; reads the source and writes only the file. */
@Command(
    name = "init",
    description =
        "Draft a commented pipeline file from sample files under --source: the schema from Spark's"
            + " schema inference in the files' format (JSON lines, CSV, Parquet or Avro), and candidate keys and sequence columns with their evidence"
            + " (left for you to choose: the file does not run until you do). For Debezium change"
            + " events, the derived columns, keys, sequence and op mapping, chosen with their"
            + " evidence. Writes nothing to the lake.")
final class InitCommand implements Callable<Integer> {
  @Option(
      names = "--source",
      required = true,
      paramLabel = "PATH",
      description = "Where the files land: a local directory or s3a://bucket/prefix.")
  String source;

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      description =
          "The files' format: json, csv, parquet or avro (default: what the sampled files' names"
              + " say: .csv and .tsv are CSV, .parquet Parquet, .avro Avro, any other name JSON"
              + " lines).")
  String format;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      description = "The pipeline's name (default: the source directory's name).")
  String name;

  @Option(
      names = "--sample",
      paramLabel = "N",
      description =
          "Sample at most N files, the newest, and no more than 64 MiB beyond the first"
              + " (default: ${DEFAULT-VALUE}).")
  int sampleFiles = PipelineDraft.SAMPLE_FILES_DEFAULT;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description = "Where to write the pipeline file (default: NAME.yaml); never overwritten.")
  Path out;

  @Option(
      names = "--lake",
      paramLabel = "PATH",
      description =
          "Root for the bronze and silver tables and checkpoints in the draft (default: a 'lake'"
              + " directory next to the source).")
  String lake;

  @Option(
      names = "--endpoint",
      paramLabel = "URL",
      description = "S3 endpoint for an s3a:// source other than AWS (path-style access).")
  String endpoint;

  @Option(
      names = "--region",
      paramLabel = "REGION",
      description = "S3 region for an s3a:// source (default: us-east-1).")
  String region;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    ReplaysafeCli.requireAtLeastOne(spec, "--sample", sampleFiles);
    String path = StoragePaths.normalize("--source", source);
    String pipelineName = name != null ? name : defaultName(path);
    if (!pipelineName.matches("[A-Za-z0-9_-]+")) {
      throw CliErrors.badPipelineName(pipelineName);
    }
    Path file = out != null ? out : Path.of(pipelineName + ".yaml");
    if (Files.exists(file)) {
      throw CliErrors.draftExists(file);
    }
    Optional<StorageConfig> storage =
        endpoint != null || region != null || StoragePaths.isS3(path)
            ? Optional.of(StorageConfig.of(endpoint, region, endpoint != null))
            : Optional.empty();
    PipelineDraft.Draft draft =
        PipelineDraft.of(
            SparkSessions.getOrCreate("replaysafe-init-" + pipelineName),
            path,
            pipelineName,
            storage,
            lake != null ? StoragePaths.normalize("--lake", lake) : defaultLake(path),
            sampleFiles,
            PipelineDraft.SAMPLE_BYTES_DEFAULT,
            Optional.ofNullable(format).map(InitCommand::sourceFormat));
    try {
      Files.writeString(
          file, DraftYaml.of(draft), StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
    } catch (FileAlreadyExistsException e) {
      throw CliErrors.draftAppeared(file, e);
    } catch (IOException e) {
      throw CliErrors.cannotWriteDraft(file, e);
    }
    PrintWriter w = spec.commandLine().getOut();
    String sampled =
        "init "
            + pipelineName
            + ": wrote "
            + file
            + " from "
            + draft.sampledFiles().size()
            + " sample file(s), "
            + draft.rows()
            + " row(s), "
            + draft.schema().size()
            + " column(s); ";
    if (draft.envelope().isPresent()) {
      EnvelopeDraft e = draft.envelope().get();
      w.println(
          sampled
              + "Debezium change events ("
              + e.shape().connector().displayName()
              + " connector): keys "
              + (e.chosenKeys().isEmpty() ? "not found" : String.join(", ", e.chosenKeys()))
              + "; sequenceBy "
              + String.join(", ", e.sequenceBy())
              + "; "
              + e.columns().size()
              + " derived column(s)");
      w.println(
          (e.chosenKeys().isEmpty()
                  ? "Next: choose silver.keys in "
                  : "Next: review the drafted choices and their evidence in ")
              + file
              + ", then: replaysafe plan --config "
              + file);
    } else {
      w.println(
          sampled
              + "key candidates: "
              + names(draft.keys())
              + "; sequence candidates: "
              + names(draft.sequences()));
      w.println(
          "Next: choose silver.keys and silver.sequenceBy in "
              + file
              + ", then: replaysafe plan --config "
              + file);
    }
    w.flush();
    return ReplaysafeCli.EXIT_OK;
  }

  private static SourceFormat sourceFormat(String format) {
    try {
      return SourceFormat.of(format);
    } catch (ConfigException e) {
      throw new ConfigException(
          "--format '"
              + format
              + "' is not a format bronze reads: give json (JSON lines), csv,"
              + " parquet or avro.",
          e);
    }
  }

  private static String names(java.util.List<Candidate> candidates) {
    return candidates.isEmpty()
        ? "none"
        : String.join(", ", candidates.stream().map(c -> String.join("+", c.columns())).toList());
  }

  static String defaultName(String path) {
    String trimmed = path.replaceAll("/+$", "");
    String last = trimmed.substring(trimmed.lastIndexOf('/') + 1);
    String cleaned = last.replaceAll("[^A-Za-z0-9_-]", "_");
    return cleaned.isEmpty() ? "pipeline" : cleaned;
  }

  static String defaultLake(String path) {
    String trimmed = path.replaceAll("/+$", "");
    int slash = trimmed.lastIndexOf('/');
    String parent = trimmed.substring(0, slash);
    if (parent.isEmpty() || parent.endsWith(":/") || parent.equals("s3a:/")) {
      return trimmed + "_lake";
    }
    if (StoragePaths.isS3(trimmed) && parent.equals("s3a:/")) {
      return trimmed + "_lake";
    }
    return parent + "/lake";
  }
}
