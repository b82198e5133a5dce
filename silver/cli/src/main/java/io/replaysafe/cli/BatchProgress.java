package io.replaysafe.cli;

import io.replaysafe.bronze.BronzeBatch;
import java.io.PrintWriter;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.StreamingQueryProgress;

/**
 * One line on stderr per micro-batch of a bronze or silver query ({@code bronze orders: batch 3: 2
 * file(s), 7 row(s), 1.2 s}), so a long run shows it is moving without Spark's own log.
 */
final class BatchProgress extends StreamingQueryListener implements AutoCloseable {
  private static final String BRONZE_QUERY = "replaysafe_bronze_";
  private static final String SILVER_QUERY = "replaysafe_silver_";

  private final SparkSession spark;
  private final PrintWriter err;

  private BatchProgress(SparkSession spark, PrintWriter err) {
    this.spark = spark;
    this.err = err;
  }

  /** Prints progress of every replaysafe query of this session until closed. */
  static BatchProgress attach(SparkSession spark, PrintWriter err) {
    BatchProgress progress = new BatchProgress(spark, err);
    spark.streams().addListener(progress);
    return progress;
  }

  /** The line for one batch, or null for a batch that read nothing. */
  static String line(StreamingQueryProgress p) {
    String name = p.name() == null ? "" : p.name();
    double seconds = p.batchDuration() / 1000.0;
    if (name.startsWith(BRONZE_QUERY)) {
      return BronzeBatch.of(p)
          .map(
              batch ->
                  String.format(
                      Locale.ROOT,
                      "bronze %s: batch %d: %d file(s), %d row(s), %.1f s",
                      name.substring(BRONZE_QUERY.length()),
                      batch.batchId(),
                      batch.files(),
                      batch.rows(),
                      seconds))
          .orElse(null);
    }
    if (name.startsWith(SILVER_QUERY)) {
      if (p.numInputRows() == 0) {
        return null;
      }
      return String.format(
          Locale.ROOT,
          "silver %s: batch %d: %d row(s), %.1f s",
          name.substring(SILVER_QUERY.length()),
          p.batchId(),
          p.numInputRows(),
          seconds);
    }
    return null;
  }

  @Override
  public void onQueryProgress(QueryProgressEvent event) {
    String line = line(event.progress());
    if (line != null) {
      synchronized (err) {
        err.println(line);
        err.flush();
      }
    }
  }

  @Override
  public void onQueryStarted(QueryStartedEvent event) {}

  @Override
  public void onQueryTerminated(QueryTerminatedEvent event) {}

  /** Delivers the events still queued (the last batch's), then stops listening. */
  @Override
  public void close() {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty(10_000L);
    } catch (Exception e) {
      // Progress lines are a courtesy: never fail or delay a run for them.
    }
    spark.streams().removeListener(this);
  }
}
