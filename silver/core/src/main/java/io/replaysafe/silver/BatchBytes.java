package io.replaysafe.silver;

import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * How many bytes of bronze's files a streaming batch reads, as its plan's statistics tell without
 * reading them: Spark hands {@code foreachBatch} a plan over the batch's rows that keeps the size
 * of the files Delta's source chose. Empty when the plan does not know (Spark's default estimate,
 * {@code spark.sql.defaultSizeInBytes}, is then returned, which is never small).
 */
final class BatchBytes {
  private BatchBytes() {}

  static Optional<Long> of(Dataset<Row> batch) {
    try {
      scala.math.BigInt bytes = batch.queryExecution().optimizedPlan().stats().sizeInBytes();
      return bytes.isValidLong() ? Optional.of(bytes.longValue()) : Optional.empty();
    } catch (RuntimeException | LinkageError unknown) {
      return Optional.empty();
    }
  }
}
