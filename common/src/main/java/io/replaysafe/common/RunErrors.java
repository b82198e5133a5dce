package io.replaysafe.common;

/**
 * Errors of a run as a whole, whatever it reads and writes: it took longer than its {@code
 * --timeout}, or its thread was interrupted while it waited. A timeout exits with {@link
 * ErrorKind#TIMEOUT}; an interrupt is a failure of the run (exit 1).
 */
public final class RunErrors {
  private RunErrors() {}

  /**
   * {@code what} did not finish within its {@code --timeout} and was stopped.
   *
   * @param timeout the limit as the messages say it, e.g. {@code "30 minute(s)"}
   */
  public static RunTimeoutException timedOut(String what, String timeout) {
    return new RunTimeoutException(
        what
            + " did not finish within "
            + timeout
            + " (--timeout) and was stopped. What it committed stays and the next run resumes"
            + " from the last committed micro-batch. Look for a slow or unreachable S3 endpoint or"
            + " a large backlog; bound micro-batches with source.options.maxFilesPerTrigger, or"
            + " raise --timeout.");
  }

  /**
   * The thread was interrupted while it was {@code doing}: {@code "Interrupted while <doing>"}. The
   * caller restores the interrupt flag first.
   */
  public static ReplaysafeException interrupted(String doing, InterruptedException cause) {
    return new ReplaysafeException("Interrupted while " + doing, cause);
  }
}
