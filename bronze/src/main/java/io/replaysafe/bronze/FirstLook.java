package io.replaysafe.bronze;

import io.replaysafe.common.StorageErrors;
import io.replaysafe.common.config.PipelineConfig;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * An {@code availableNow} run's look for new files before it starts its query. Starting the query
 * costs a scheduled run most of its S3 requests when nothing is new (Spark reads the checkpoint's
 * metadata, offsets and commits, the append reads the table's log): with nothing new the run does
 * not start it. With new files the query starts and its source plans from this look instead of
 * discovering again, which in notification mode would be another SQS receive with its one-second
 * wait.
 *
 * <p>Taken only where the source's first batch would find exactly what this look finds: the file
 * state exists (else the source adopts the checkpoint first), the checkpoint has no open batch
 * (else Spark replays it first) and the file state holds no batch after the last committed one
 * (else the source forgets it first). The new files are then decided as the source decides them
 * ({@link NewFiles}), after the same batch.
 */
final class FirstLook {
  private final long after;
  private final List<FileState.Discovered> files;

  private FirstLook(long after, List<FileState.Discovered> files) {
    this.after = after;
    this.files = List.copyOf(files);
  }

  /**
   * The look after the checkpoint's last committed batch, or empty where the source has something
   * to do first; discovers once when it looks.
   *
   * @param lastCommitted the checkpoint's last committed batch, read by the run before
   */
  static Optional<FirstLook> take(
      SparkSession spark,
      PipelineConfig config,
      FileDiscovery discovery,
      OptionalLong lastCommitted) {
    String checkpoint = config.bronze().checkpoint();
    // One version of the file state answers every question of the look: its log is read once.
    FileState.Version state = FileState.of(spark, checkpoint).latest();
    if (!state.exists() || !lastPlannedBatch(spark, checkpoint).equals(lastCommitted)) {
      return Optional.empty();
    }
    long after = lastCommitted.orElse(-1);
    if (state.lastPlanned().orElse(-1) > after) {
      return Optional.empty();
    }
    BatchLimits limits = BatchLimits.of(config.source().options().sparkOptions());
    return Optional.of(new FirstLook(after, NewFiles.among(discovery, after, state, limits)));
  }

  private static OptionalLong lastPlannedBatch(SparkSession spark, String checkpoint) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    try {
      return FileSourceLog.lastPlannedBatch(conf, checkpoint);
    } catch (IOException e) {
      throw StorageErrors.cannotAccess("the bronze checkpoint", checkpoint, e);
    }
  }

  /** The batch the look was taken after: the checkpoint's last planned and committed one, or -1. */
  long after() {
    return after;
  }

  /** The new files after {@link #after()}, in the order batches take them. */
  List<FileState.Discovered> files() {
    return files;
  }

  boolean nothingNew() {
    return files.isEmpty();
  }
}
