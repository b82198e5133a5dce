package io.replaysafe.silver;

import io.replaysafe.common.StorageErrors;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.io.DeltaLogNames;
import io.replaysafe.common.spark.DeltaTables;
import java.io.IOException;
import java.util.Arrays;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.Snapshot;

/**
 * Whether bronze still holds the versions silver reads next. Silver reads bronze's change feed from
 * the version after the last one its checkpoint processed, and each version's changes are in that
 * version's commit file: Delta's log cleanup ({@code delta.logRetentionDuration}, 30 days by
 * default, at each checkpoint) removes the old ones. A silver that paused longer cannot go on, and
 * says so before it reads, instead of failing inside the stream.
 */
final class BronzeRetention {

  /** Where silver's stream starts over bronze. */
  enum Start {
    /** A new checkpoint over a complete log: version 0's changes on, every event as it landed. */
    FROM_VERSION_0,
    /**
     * A checkpoint under way: from its offsets. No starting version is passed then: Delta checks
     * that a given one is still in the log even when the checkpoint makes it irrelevant, which
     * would stop every run once the log cleanup removed version 0.
     */
    RESUME,
    /**
     * A new checkpoint over a bronze whose first versions are gone from its log: the current
     * snapshot (every event bronze holds, as inserts), then the changes after it.
     */
    SNAPSHOT
  }

  private BronzeRetention() {}

  /**
   * The start of silver's stream, from the checkpoint's reading and the snapshot of bronze the run
   * read: nothing more to read when that snapshot lists the next commit, else one existence check
   * of it (a HEAD on S3), a listing of the log only when it is gone. Throws when a checkpoint needs
   * a version the log no longer holds.
   */
  static Start check(
      SparkSession spark,
      PipelineConfig config,
      SilverCheckpoint.Reading checkpoint,
      Snapshot bronzeSnapshot) {
    String bronze = config.bronze().path();
    Path log = new Path(bronze, "_delta_log");
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    OptionalLong processed = checkpoint.processedThrough();
    long latest = bronzeSnapshot.version();
    try {
      FileSystem fs = log.getFileSystem(hadoop);
      if (!checkpoint.started()) {
        return fs.exists(commitFile(log, 0)) && firstFileKept(fs, bronze, log, latest)
            ? Start.FROM_VERSION_0
            : Start.SNAPSHOT;
      }
      if (processed.isEmpty()
          || processed.getAsLong() + 1 > latest
          // The snapshot the run read lists the commit: no probe needed.
          || BronzeCommits.after(bronzeSnapshot, processed.getAsLong(), hadoop).isPresent()
          || fs.exists(commitFile(log, processed.getAsLong() + 1))) {
        return Start.RESUME;
      }
      long needed = processed.getAsLong() + 1;
      long earliest =
          Arrays.stream(fs.listStatus(log))
              .map(FileStatus::getPath)
              .map(Path::getName)
              .filter(DeltaLogNames::isCommit)
              .mapToLong(n -> Long.parseLong(n.substring(0, 20)))
              .min()
              .orElse(latest);
      String retention =
          java.util.Optional.ofNullable(
                  DeltaTables.property(spark, bronze, "delta.logRetentionDuration"))
              .orElse("interval 30 days (Delta's default)");
      throw SilverErrors.bronzeVersionsGone(config, processed, needed, earliest, retention);
    } catch (IOException e) {
      throw StorageErrors.cannotList("bronze's log", log.toString(), e);
    }
  }

  /** How many of the first commits to look through for the first data file bronze added. */
  private static final int FIRST_ADD_DEPTH = 5;

  /**
   * Whether the first data file bronze's log adds is still there. A log that begins at version 0
   * may still have lost its first versions' files: OPTIMIZE rewrote them, then VACUUM deleted them
   * (Delta's change feed from version 0 would then fail on the first missing file). Reads at most a
   * few commit files and makes one existence check; a log whose first commits add nothing is taken
   * as complete.
   */
  private static boolean firstFileKept(FileSystem fs, String bronze, Path log, long latest)
      throws IOException {
    for (long v = 0; v <= Math.min(latest, FIRST_ADD_DEPTH); v++) {
      Path commit = commitFile(log, v);
      if (!fs.exists(commit)) {
        return true;
      }
      try (var in = fs.open(commit)) {
        for (String line :
            new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
          var node = io.replaysafe.common.io.Json.tryRead(line);
          if (node.isPresent() && node.get().has("add")) {
            // As Delta resolves it: a URI-encoded path, relative to the table unless absolute.
            Path added = new Path(java.net.URI.create(node.get().get("add").path("path").asText()));
            return fs.exists(added.isAbsolute() ? added : new Path(new Path(bronze), added));
          }
        }
      }
    }
    return true;
  }

  private static Path commitFile(Path log, long version) {
    return new Path(log, String.format("%020d.json", version));
  }
}
