package io.replaysafe.common.spark;

import java.time.Duration;
import java.util.Objects;
import org.apache.spark.sql.streaming.Trigger;

/**
 * What a layer's job needs to run continuously instead of availableNow: the processing-time
 * interval of its query, the request that ends it, and the check a writer makes before each batch
 * (the writer's lease still held). One instance is shared by the bronze and silver queries of one
 * process, so one request stops both.
 */
public final class ContinuousTrigger {
  private final Duration interval;
  private final Runnable beforeBatch;
  private volatile String stopReason;

  private ContinuousTrigger(Duration interval, Runnable beforeBatch) {
    this.interval = Objects.requireNonNull(interval, "interval");
    this.beforeBatch = Objects.requireNonNull(beforeBatch, "beforeBatch");
    if (interval.toMillis() < 1) {
      throw new IllegalArgumentException("interval must be positive: " + interval);
    }
  }

  /**
   * Every {@code interval}; {@code beforeBatch} runs before each silver batch writes and throws to
   * stop the query (a lost lease).
   */
  public static ContinuousTrigger every(Duration interval, Runnable beforeBatch) {
    return new ContinuousTrigger(interval, beforeBatch);
  }

  public Duration interval() {
    return interval;
  }

  /** The streaming trigger of a continuous query. */
  public Trigger trigger() {
    return Trigger.ProcessingTime(interval.toMillis());
  }

  /** Throws when the process may no longer write. */
  public void checkBeforeBatch() {
    beforeBatch.run();
  }

  /** Asks the jobs to end: no new query is started after this; the caller stops running ones. */
  public void requestStop(String reason) {
    if (stopReason == null) {
      stopReason = Objects.requireNonNull(reason, "reason");
    }
  }

  public boolean stopRequested() {
    return stopReason != null;
  }

  /** Why the run was asked to stop ("SIGTERM", "--max-batches 3"), or null. */
  public String stopReason() {
    return stopReason;
  }

  /**
   * Waits one interval, or less when a stop is requested meanwhile: how a job waits for something
   * that is not there yet (a landing path nothing was written to).
   *
   * @return false when a stop was requested
   */
  public boolean pause() {
    long end = System.nanoTime() + interval.toNanos();
    while (!stopRequested()) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return true;
      }
      try {
        Thread.sleep(Math.min(200, Math.max(1, left / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }
}
