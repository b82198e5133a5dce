package io.replaysafe.cli;

import io.replaysafe.bronze.FileStateView;
import io.replaysafe.common.config.ConfigErrors;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.io.JsonLinesExport;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code replaysafe files}: the state of each file bronze has seen, as Auto Loader's {@code
 * cloud_files_state} shows it. Reads the bronze checkpoint's file state, the bad-files table and
 * bronze; writes nothing and takes no lease, so it runs while a pipeline runs.
 */
@Command(
    name = "files",
    description =
        "The state of each file bronze has seen: status (discovered, ingested, bad, dismissed,"
            + " retried), batch, rows, when it was discovered and how, when its batch committed,"
            + " and its bad-file record. Read-only.")
final class FilesCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(
      names = "--status",
      paramLabel = "S",
      description = "Only files of this status: discovered, ingested, bad, dismissed, retried.")
  String status;

  @Option(
      names = "--since",
      paramLabel = "T",
      description = "Only files discovered at or after T: 2026-12-01 or 2026-12-01T10:00:00Z.")
  String since;

  @Option(
      names = "--path-glob",
      paramLabel = "G",
      description = "Only files whose whole path matches the glob, e.g. '*/2026/12/*.json'.")
  String pathGlob;

  @Option(names = "--json", description = "Print one JSON object per file (JSON lines).")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  private static final List<String> ORDER = List.of("batch_id", "path");

  @Override
  public Integer call() {
    FileStateView.Filter filter =
        new FileStateView.Filter(
            Optional.ofNullable(status),
            Optional.ofNullable(since).map(FilesCommand::instant),
            Optional.ofNullable(pathGlob));
    PipelineConfig pipeline = config.load();
    Optional<Dataset<Row>> files =
        FileStateView.files(ReplaysafeCli.spark(pipeline, "files"), pipeline, filter);
    PrintWriter out = spec.commandLine().getOut();
    if (files.isEmpty()) {
      if (!json) {
        out.println(
            "no file state in "
                + pipeline.bronze().checkpoint()
                + " yet: bronze has not run with this release (its next run adopts the"
                + " checkpoint's file log)");
      }
      out.flush();
      return ReplaysafeCli.EXIT_OK;
    }
    if (json) {
      JsonLinesExport.write(files.get(), ORDER, out);
    } else {
      List<Row> rows = files.get().orderBy(ORDER.get(0), ORDER.get(1)).collectAsList();
      out.println(
          String.format(
              "%-10s %6s %8s  %-24s  %s", "STATUS", "BATCH", "ROWS", "COMMITTED", "PATH"));
      for (Row r : rows) {
        out.println(
            String.format(
                "%-10s %6s %8s  %-24s  %s%s",
                r.getAs("status"),
                r.getAs("batch_id"),
                r.getAs("rows") == null ? "-" : r.getAs("rows"),
                r.getAs("committed_at") == null
                    ? "-"
                    : ((java.sql.Timestamp) r.getAs("committed_at")).toInstant().toString(),
                r.getAs("path"),
                r.getAs("bad_file") == null ? "" : "  (" + r.getAs("bad_file") + ")"));
      }
      out.println(rows.size() + " file(s)");
    }
    out.flush();
    return ReplaysafeCli.EXIT_OK;
  }

  /** An ISO instant, or a date (midnight UTC). */
  static Instant instant(String value) {
    try {
      return value.length() == 10
          ? LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant()
          : Instant.parse(value);
    } catch (DateTimeParseException e) {
      throw ConfigErrors.badValue(
          "--since",
          value,
          "is not a date or an instant",
          "write 2026-12-01 or 2026-12-01T10:00:00Z");
    }
  }
}
