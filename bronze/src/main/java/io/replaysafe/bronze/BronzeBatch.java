package io.replaysafe.bronze;

import java.time.Instant;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.SourceProgress;
import org.apache.spark.sql.streaming.StreamingQueryProgress;

/**
 * What one bronze micro-batch did, read from the {@link BronzeIngest#METRICS} its query observed
 * and the files its source reports: the one reading of those metrics, for the run's totals and for
 * each batch's progress line.
 *
 * @param files the files the batch read, those recorded as bad files not counted
 * @param oldestLanded modification time of the oldest file the batch read, or null
 * @param endedAt when the batch's progress was reported
 */
public record BronzeBatch(
    long batchId,
    long rows,
    long rescued,
    long corrupt,
    int files,
    Instant oldestLanded,
    Instant endedAt,
    double seconds) {

  /** The batch a progress report describes, or empty for a batch that read nothing. */
  public static Optional<BronzeBatch> of(StreamingQueryProgress progress) {
    Row metrics = progress.observedMetrics().get(BronzeIngest.METRICS);
    if (metrics == null || metrics.getLong(0) == 0 && progress.numInputRows() == 0) {
      return Optional.empty();
    }
    return Optional.of(
        new BronzeBatch(
            progress.batchId(),
            metrics.getLong(0),
            metrics.getLong(1),
            metrics.getLong(2),
            files(progress),
            metrics.isNullAt(3) ? null : metrics.getTimestamp(3).toInstant(),
            Instant.parse(progress.timestamp()).plusMillis(progress.batchDuration()),
            progress.batchDuration() / 1000.0));
  }

  /** The files the batch read, as its source reports them ({@link CheckedFileStreamSource}). */
  private static int files(StreamingQueryProgress progress) {
    for (SourceProgress source : progress.sources()) {
      String files = source.metrics().get(CheckedFileStreamSource.FILES_METRIC);
      if (files != null) {
        return Integer.parseInt(files);
      }
    }
    return 0;
  }
}
