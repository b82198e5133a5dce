package io.replaysafe.common;

import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.util.HashSet;
import java.util.Set;

/**
 * A thread interrupted while it waited on the store. Spark stops a streaming query by interrupting
 * its thread, and takes the query's failure for that stop only when the error it catches is an
 * interruption or wraps one in the few types it looks into ({@code UncheckedIOException}, {@code
 * ExecutionException}). Code that runs on a query's thread (the source's listing, lookups and
 * footers) therefore lets an interruption through in that form, never wrapped in an error of its
 * own: wrapped, a stop became a failed run (exit 1, "Cannot list source.path ...:
 * java.lang.InterruptedException", CI of stop 42).
 */
public final class Interruptions {
  private Interruptions() {}

  /**
   * Whether {@code t} itself is an interruption. A socket's read timeout is an {@code
   * InterruptedIOException} by type, but a slow store, not an interrupt.
   */
  public static boolean isInterruption(Throwable t) {
    return t instanceof InterruptedException
        || t instanceof ClosedByInterruptException
        || (t instanceof InterruptedIOException && !(t instanceof SocketTimeoutException))
        || AWS_SDK_ABORTED.equals(t.getClass().getName());
  }

  /**
   * The AWS SDK's answer when the calling thread was interrupted ("Thread was interrupted"). S3A
   * turns it into an {@code InterruptedIOException}; a reader that calls the SDK itself (S3A's
   * analytics accelerator) hands it on inside a plain {@code IOException}. By name: the SDK is not
   * on every platform's class path under that name.
   */
  private static final String AWS_SDK_ABORTED =
      "software.amazon.awssdk.core.exception.AbortedException";

  /** Whether an interruption is among {@code error}'s causes, or this thread was interrupted. */
  public static boolean interrupted(Throwable error) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    Set<Throwable> seen = new HashSet<>();
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      if (isInterruption(t)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Throws {@code error} as an interruption Spark recognises when it is one ({@link #interrupted}),
   * the interrupt flag kept set; returns otherwise, for the caller to report its own error.
   */
  public static void rethrowIfInterrupted(String doing, Throwable error) {
    if (!interrupted(error)) {
      return;
    }
    Thread.currentThread().interrupt();
    InterruptedIOException interruption = new InterruptedIOException("Interrupted while " + doing);
    interruption.initCause(error);
    throw new UncheckedIOException(interruption);
  }
}
