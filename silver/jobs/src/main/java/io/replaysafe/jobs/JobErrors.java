package io.replaysafe.jobs;

import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.RunTimeoutException;
import java.io.IOException;
import java.util.List;

/**
 * Every error the jobs (the cluster mains and the continuous pipeline) raise on purpose, each
 * saying what failed, why, and what to do. Errors about the pipeline file and the arguments are
 * {@link io.replaysafe.common.config.ConfigErrors}'.
 */
final class JobErrors {
  private JobErrors() {}

  /** A continuous layer's query ended on its own, with no failure to report. */
  static ReplaysafeException queryEndedUnasked(String layer, String pipeline) {
    return new ReplaysafeException(
        "The continuous "
            + layer
            + " query of pipeline '"
            + pipeline
            + "' ended without being asked to stop; the other layer was stopped too."
            + " See replaysafe-logs/replaysafe.log for why.");
  }

  /**
   * The continuous run's queries did not stop within {@code --stop-timeout} and were stopped
   * mid-batch.
   *
   * @param stopTimeout the limit as the messages say it, e.g. {@code "2 minute(s)"}
   * @param committed per layer, what its table holds
   */
  static RunTimeoutException stopTimedOut(
      String pipeline, String stopTimeout, String stopReason, List<String> committed) {
    return new RunTimeoutException(
        "The continuous run of pipeline '"
            + pipeline
            + "' did not stop within "
            + stopTimeout
            + " (--stop-timeout) after "
            + stopReason
            + ", and its queries were stopped mid-batch. Committed: "
            + String.join("; ", committed)
            + ". The next run replays the interrupted batch from the checkpoints; raise"
            + " --stop-timeout or bound micro-batches with source.options.maxFilesPerTrigger.");
  }

  /** On Databricks a failed job ends with an exception instead of an exit code. */
  static ReplaysafeException jobFailed(String layer, int exitCode, String error) {
    return new ReplaysafeException(
        "The " + layer + " job failed (exit code " + exitCode + "): " + error);
  }

  /**
   * The pipeline file cannot be read through the cluster's file system. Not a configuration error:
   * the store may be unreachable or refuse the cluster's credentials, and a retry can pass.
   */
  static ReplaysafeException cannotReadPipelineFile(String uri, String scheme, IOException cause) {
    return new ReplaysafeException(
        "Cannot read pipeline file "
            + uri
            + " through "
            + scheme
            + ": "
            + cause.getMessage()
            + ". Check that the cluster can reach it and has read access.",
        cause);
  }
}
