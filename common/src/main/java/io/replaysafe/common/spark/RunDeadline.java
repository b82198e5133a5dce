package io.replaysafe.common.spark;

import io.replaysafe.common.RunErrors;
import io.replaysafe.common.RunTimeoutException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * A bound on how long a command may run. When it passes, the streaming queries the command started
 * are stopped and its Spark jobs cancelled, and the command fails with a {@link
 * RunTimeoutException} (exit code 5) instead of hanging. What was committed before stays: every
 * Delta commit is atomic and the checkpoints resume at the last committed micro-batch.
 */
public final class RunDeadline {
  private final Duration timeout;
  private final long endNanos;

  private RunDeadline(Duration timeout) {
    this.timeout = timeout;
    this.endNanos = System.nanoTime() + timeout.toNanos();
  }

  /** A deadline {@code timeout} from now. */
  public static RunDeadline after(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    return new RunDeadline(timeout);
  }

  /** Runs {@code body} in this thread and stops it if the deadline passes first. */
  public <T> T bound(SparkSession spark, String what, Supplier<T> body) {
    long remaining = endNanos - System.nanoTime();
    if (remaining <= 0) {
      throw timedOut(what);
    }
    Set<UUID> before = new HashSet<>();
    for (StreamingQuery q : spark.streams().active()) {
      before.add(q.id());
    }
    String group = "replaysafe-deadline-" + UUID.randomUUID();
    spark.sparkContext().setJobGroup(group, what, true);
    AtomicBoolean fired = new AtomicBoolean();
    ScheduledExecutorService watchdog =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "replaysafe-deadline");
              t.setDaemon(true);
              return t;
            });
    ScheduledFuture<?> alarm =
        watchdog.schedule(
            () -> {
              fired.set(true);
              spark.sparkContext().cancelJobGroup(group);
              for (StreamingQuery q : spark.streams().active()) {
                if (!before.contains(q.id())) {
                  try {
                    q.stop();
                  } catch (Exception e) {
                    // Stopping is best effort; the command fails with the timeout either way.
                  }
                }
              }
            },
            remaining,
            TimeUnit.NANOSECONDS);
    try {
      T result = body.get();
      if (fired.get()) {
        throw timedOut(what);
      }
      return result;
    } catch (RuntimeException e) {
      if (fired.get()) {
        RunTimeoutException timeoutError = timedOut(what);
        timeoutError.addSuppressed(e);
        throw timeoutError;
      }
      throw e;
    } finally {
      alarm.cancel(false);
      watchdog.shutdownNow();
      spark.sparkContext().clearJobGroup();
    }
  }

  private RunTimeoutException timedOut(String what) {
    return RunErrors.timedOut(what, describe(timeout));
  }

  /** "2 minute(s)", "1 hour(s)", "90 second(s)": a duration as the messages say it. */
  public static String describe(Duration d) {
    long s = d.toSeconds();
    if (s % 3600 == 0) {
      return s / 3600 + " hour(s)";
    }
    if (s % 60 == 0) {
      return s / 60 + " minute(s)";
    }
    return s + " second(s)";
  }
}
