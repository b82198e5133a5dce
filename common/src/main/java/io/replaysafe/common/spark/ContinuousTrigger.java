package io.replaysafe.common.spark;

import io.replaysafe.common.RunErrors;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.sql.streaming.Trigger;

/**
 * What a layer's job needs to run continuously instead of availableNow: the processing-time
 * interval of its query, the request that ends it, and the check a writer makes before each batch
 * (the writer's lease still held). One instance is shared by the bronze and silver queries of one
 * process, so one request stops both.
 *
 * <p>It is also the turnstile of housekeeping between batches ({@code maintenance:}): while {@link
 * #holdBatches} holds, each layer waits at {@link #awaitTurn} before its next batch writes or plans
 * anything, so an OPTIMIZE or VACUUM never runs during a batch.
 */
public final class ContinuousTrigger {
  private final Duration interval;
  private final Runnable beforeBatch;
  private volatile String stopReason;
  private volatile boolean upstreamHere;
  private final Object turnstile = new Object();
  private boolean held;
  private final Set<String> waiting = new HashSet<>();

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

  /**
   * Says that the layer the reader reads runs in this process too (bronze, for silver, in {@code
   * run --continuous}): the reader then looks for its commits more often ({@link #readerTrigger}).
   */
  public void upstreamRunsHere() {
    upstreamHere = true;
  }

  /**
   * The trigger of the layer that reads another's commits (silver reading bronze). Spark fires
   * every processing-time trigger at the multiples of its interval, so two queries of one interval
   * fire together: silver then always found bronze's batch still running, and read it one whole
   * interval later (a continuous run's freshness was two intervals plus the batches). Where bronze
   * runs in this process, silver looks every {@link #readerPoll}: a look that finds nothing new is
   * one read of bronze's log (on S3 one listing), and bronze's commit is read within that poll.
   */
  public Trigger readerTrigger() {
    return upstreamHere ? Trigger.ProcessingTime(readerPoll().toMillis()) : trigger();
  }

  /**
   * How often a reader whose upstream runs here looks for its commits: a fifth of the interval, at
   * least a second, and never less often than the interval itself.
   */
  public Duration readerPoll() {
    Duration fifth = interval.dividedBy(5);
    Duration poll = fifth.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : fifth;
    return poll.compareTo(interval) > 0 ? interval : poll;
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
   * Where {@code layer}'s next batch is about to write (silver) or plan (bronze): returns at once,
   * or, while {@link #holdBatches} holds, when the hold is released.
   */
  public void awaitTurn(String layer) {
    synchronized (turnstile) {
      try {
        while (held) {
          waiting.add(layer);
          turnstile.wait();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw RunErrors.interrupted("the " + layer + " batch waited for housekeeping to end", e);
      } finally {
        waiting.remove(layer);
      }
    }
  }

  /**
   * Holds every layer at {@link #awaitTurn} from now on until {@link #releaseBatches}; a batch
   * already past it runs to its end (the caller waits for that: {@link #waiting}).
   */
  public void holdBatches() {
    synchronized (turnstile) {
      held = true;
    }
  }

  public void releaseBatches() {
    synchronized (turnstile) {
      held = false;
      turnstile.notifyAll();
    }
  }

  /** True while {@code layer} waits at {@link #awaitTurn} for a hold to end. */
  public boolean waiting(String layer) {
    synchronized (turnstile) {
      return waiting.contains(layer);
    }
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
