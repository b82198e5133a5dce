package io.replaysafe.rehearsal;

import io.replaysafe.common.ReplaysafeException;
import java.nio.file.Path;
import java.util.List;

/**
 * Every error the rehearsal raises on purpose about its endpoint and its child jobs, each saying
 * what failed and what to check. A pipeline file or an endpoint the user must change is a {@link
 * io.replaysafe.common.config.ConfigErrors} error; these are failures of the run (exit 1).
 */
final class RehearsalErrors {
  private RehearsalErrors() {}

  /**
   * The endpoint answered but refused to list, create or write the rehearsal's buckets.
   *
   * @param reason the first line of what the endpoint said
   */
  static ReplaysafeException cannotPrepare(
      String endpoint, String reason, List<String> buckets, Exception cause) {
    return new ReplaysafeException(
        "Cannot prepare "
            + endpoint
            + " for the rehearsal: "
            + reason
            + ". Check the endpoint URL, and that the credentials may list, create and write"
            + " these buckets: "
            + String.join(", ", buckets),
        cause);
  }

  /**
   * The endpoint did not answer.
   *
   * @param reason the first line of what the client said
   */
  static ReplaysafeException cannotReach(String endpoint, String reason, Exception cause) {
    return new ReplaysafeException(
        "Cannot reach "
            + endpoint
            + ": "
            + reason
            + ". Is the endpoint running (scripts/localstack-run, replaysafe s3-server, MinIO)"
            + " and the URL right?",
        cause);
  }

  /** A crash-point step's child job ran past its 10 minutes and was killed; its log says why. */
  static IllegalStateException childJobHung(Path log) {
    return new IllegalStateException("the child job did not stop within 10 minutes; log: " + log);
  }
}
