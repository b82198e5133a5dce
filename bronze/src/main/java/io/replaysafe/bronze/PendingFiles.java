package io.replaysafe.bronze;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SourceConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.sql.SparkSession;

/**
 * The files the next bronze run would ingest, worked out without running it and without writing
 * anything: Spark's own listing of {@code source.path} (same hidden-file rules, {@code
 * pathGlobFilter} and {@code recursiveFileLookup}), less the files the bronze checkpoint's source
 * log already holds for committed batches, less the files Spark's file source skips as older than
 * {@code maxFileAge} relative to the newest file it has seen. Files of a batch that was planned but
 * never committed (a crash) count as pending: the next run replays that batch.
 *
 * @param files in the order the file source takes them (oldest first; newest first with {@code
 *     latestFirst})
 * @param alreadyIngested files the checkpoint records as committed
 * @param tooOld files present but skipped as older than {@code maxFileAge}
 */
public record PendingFiles(List<PendingFile> files, long alreadyIngested, long tooOld) {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long MAX_FILE_AGE_DEFAULT_MS = TimeUnit.DAYS.toMillis(7);

  /** One file under the source path. */
  public record PendingFile(String path, long bytes, Instant modified) {}

  public PendingFiles {
    files = List.copyOf(files);
  }

  public long bytes() {
    return files.stream().mapToLong(PendingFile::bytes).sum();
  }

  public Optional<Instant> oldest() {
    return files.stream().map(PendingFile::modified).min(Comparator.naturalOrder());
  }

  public Optional<Instant> newest() {
    return files.stream().map(PendingFile::modified).max(Comparator.naturalOrder());
  }

  /** Lists the pending files of the pipeline's source against its bronze checkpoint. */
  public static PendingFiles of(SparkSession spark, PipelineConfig config) {
    SourceConfig source = config.source();
    Map<String, String> options = source.options().sparkOptions();
    List<PendingFile> listed = list(spark, source.path(), options);
    boolean fileNameOnly = Boolean.parseBoolean(options.getOrDefault("fileNameOnly", "false"));
    boolean latestFirst = Boolean.parseBoolean(options.getOrDefault("latestFirst", "false"));
    SourceLog log = SourceLog.read(spark, config.bronze().checkpoint());

    // Spark's SeenFilesMap: a file is new when its name was never seen and it is not older than
    // the newest seen file less maxFileAge (ignored with latestFirst and a per-trigger limit).
    boolean ageIgnored =
        latestFirst
            && (options.containsKey("maxFilesPerTrigger")
                || options.containsKey("maxBytesPerTrigger"));
    long maxAgeMs =
        ageIgnored
            ? Long.MAX_VALUE
            : Optional.ofNullable(options.get("maxFileAge"))
                .map(PendingFiles::durationMs)
                .orElse(MAX_FILE_AGE_DEFAULT_MS);
    long cutoff =
        log.entries.isEmpty() || maxAgeMs == Long.MAX_VALUE
            ? Long.MIN_VALUE
            : log.latestTimestamp() - maxAgeMs;

    Set<String> seen = new HashSet<>();
    Set<String> replayed = new HashSet<>();
    for (LogEntry entry : log.entries) {
      String id = identity(entry.path, fileNameOnly);
      if (entry.batchId > log.lastCommitted) {
        replayed.add(id);
      } else {
        seen.add(id);
      }
    }
    List<PendingFile> pending = new ArrayList<>();
    long tooOld = 0;
    for (PendingFile file : listed) {
      String id = identity(file.path(), fileNameOnly);
      if (replayed.contains(id)) {
        pending.add(file);
      } else if (seen.contains(id)) {
        continue;
      } else if (file.modified().toEpochMilli() < cutoff) {
        tooOld++;
      } else {
        pending.add(file);
      }
    }
    Comparator<PendingFile> order =
        Comparator.comparing(PendingFile::modified).thenComparing(PendingFile::path);
    pending.sort(latestFirst ? order.reversed() : order);
    long alreadyIngested = listed.size() - pending.size() - tooOld;
    return new PendingFiles(pending, alreadyIngested, tooOld);
  }

  /** The first files in the file source's order, at most {@code maxFiles} and about maxBytes. */
  public List<PendingFile> sample(int maxFiles, long maxBytes) {
    List<PendingFile> chosen = new ArrayList<>();
    long bytes = 0;
    for (PendingFile file : files) {
      if (chosen.size() >= maxFiles || (!chosen.isEmpty() && bytes + file.bytes() > maxBytes)) {
        break;
      }
      chosen.add(file);
      bytes += file.bytes();
    }
    return chosen;
  }

  /**
   * Every data file Spark's file source would list under {@code path} with these source options
   * ({@code pathGlobFilter}, {@code recursiveFileLookup}), with size and time, in listing order.
   */
  public static List<PendingFile> list(
      SparkSession spark, String path, Map<String, String> options) {
    Path root = new Path(path);
    try {
      FileSystem fs = root.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(root)) {
        return List.of();
      }
      // Spark decides which files count (hidden and temporary names, pathGlobFilter, recursion);
      // the Hadoop listing supplies their sizes and times.
      var reader = spark.read().format("text");
      for (String option : List.of("pathGlobFilter", "recursiveFileLookup")) {
        if (options.containsKey(option)) {
          reader = reader.option(option, options.get(option));
        }
      }
      Set<String> sparkFiles = new HashSet<>();
      for (String file : reader.load(path).inputFiles()) {
        sparkFiles.add(normalize(file));
      }
      List<PendingFile> files = new ArrayList<>();
      RemoteIterator<LocatedFileStatus> it = fs.listFiles(root, true);
      while (it.hasNext()) {
        FileStatus status = it.next();
        String listedPath = status.getPath().toString();
        if (sparkFiles.contains(normalize(listedPath))) {
          files.add(
              new PendingFile(
                  listedPath, status.getLen(), Instant.ofEpochMilli(status.getModificationTime())));
        }
      }
      return files;
    } catch (IOException e) {
      throw new ReplaysafeException("Cannot list source path " + path + ": " + e.getMessage(), e);
    }
  }

  private static String identity(String path, boolean fileNameOnly) {
    String normalized = normalize(path);
    return fileNameOnly ? new Path(normalized).getName() : normalized;
  }

  /** Spark stores URI strings (URL-encoded); Hadoop lists paths: compare both as Hadoop paths. */
  private static String normalize(String path) {
    try {
      return new Path(new URI(path)).toString();
    } catch (java.net.URISyntaxException e) {
      return new Path(path).toString();
    }
  }

  private static long durationMs(String value) {
    return org.apache.spark.network.util.JavaUtils.timeStringAsMs(value);
  }

  private record LogEntry(String path, long timestamp, long batchId) {}

  /** The file stream source's log in a checkpoint, read only: which file went in which batch. */
  private record SourceLog(List<LogEntry> entries, long lastCommitted) {
    static SourceLog read(SparkSession spark, String checkpoint) {
      Path sources = new Path(checkpoint, "sources/0");
      Path commits = new Path(checkpoint, "commits");
      try {
        FileSystem fs = sources.getFileSystem(spark.sparkContext().hadoopConfiguration());
        long lastCommitted = -1;
        if (fs.exists(commits)) {
          for (FileStatus status : fs.listStatus(commits)) {
            String name = status.getPath().getName();
            if (name.matches("\\d+")) {
              lastCommitted = Math.max(lastCommitted, Long.parseLong(name));
            }
          }
        }
        Map<String, LogEntry> byPath = new HashMap<>();
        if (fs.exists(sources)) {
          for (FileStatus status : fs.listStatus(sources)) {
            // Batch files ("7") and compactions ("9.compact", holding every earlier entry).
            if (status.getPath().getName().matches("\\d+(\\.compact)?")) {
              readInto(fs, status.getPath(), byPath);
            }
          }
        }
        return new SourceLog(List.copyOf(byPath.values()), lastCommitted);
      } catch (IOException e) {
        throw new ReplaysafeException(
            "Cannot read the file log of bronze.checkpoint "
                + checkpoint
                + ": "
                + e.getMessage()
                + ". The plan needs it to tell ingested files from new ones; check that the"
                + " checkpoint is readable.",
            e);
      }
    }

    private static void readInto(FileSystem fs, Path file, Map<String, LogEntry> byPath)
        throws IOException {
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(fs.open(file), StandardCharsets.UTF_8))) {
        String line = in.readLine(); // the log's version header, "v1"
        while ((line = in.readLine()) != null) {
          if (line.isBlank()) {
            continue;
          }
          JsonNode entry = JSON.readTree(line);
          String path = entry.path("path").asText();
          byPath.putIfAbsent(
              path,
              new LogEntry(
                  path, entry.path("timestamp").asLong(), entry.path("batchId").asLong(-1)));
        }
      }
    }

    long latestTimestamp() {
      return entries.stream().mapToLong(LogEntry::timestamp).max().orElse(Long.MIN_VALUE);
    }
  }
}
