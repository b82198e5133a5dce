package io.replaysafe.bronze;

import java.time.Instant;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQueryProgress;

/**
 * What one bronze micro-batch did, read from the {@link BronzeIngest#METRICS} its query observed:
 * the one reading of those metrics, for the run's totals and for each batch's progress line.
 *
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
            metrics.getInt(3),
            metrics.isNullAt(4) ? null : metrics.getTimestamp(4).toInstant(),
            Instant.parse(progress.timestamp()).plusMillis(progress.batchDuration()),
            progress.batchDuration() / 1000.0));
  }
}
