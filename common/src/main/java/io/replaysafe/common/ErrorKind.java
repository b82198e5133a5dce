package io.replaysafe.common;

import java.util.HashSet;
import java.util.Set;

/**
 * What kind of ending a command or cluster job had, and the exit code a scheduler sees for it. This
 * is the one place an error becomes an exit code: the CLI and the cluster main classes both ask
 * {@link #of(Throwable)}, so a scheduler can tell "fix the pipeline file" (no retry) from "S3 was
 * throttled" (retry later) from "the contract rejected a batch" (a person decides).
 */
public enum ErrorKind {
  /** The pipeline file or an argument is wrong. Retrying changes nothing: fix it. */
  CONFIGURATION(2, "config"),
  /** Silver rejected a batch under a {@code fail} policy, or a check refused a change. */
  REJECTED(1, "rejected"),
  /** Anything not classified: an unexpected Spark or Delta failure. A person looks at it. */
  FAILURE(1, "failed"),
  /** Not an error: {@code status} or {@code check} crossed a threshold. */
  ALERT(3, "alert"),
  /**
   * Transient I/O (S3 throttling, a reset connection, an unreachable endpoint) or another writer
   * holding the pipeline's lease: the same command later is expected to succeed.
   */
  RETRYABLE(4, "retryable"),
  /** The run exceeded its {@code --timeout} and was stopped. */
  TIMEOUT(5, "timeout");

  private final int exitCode;
  private final String label;

  ErrorKind(int exitCode, String label) {
    this.exitCode = exitCode;
    this.label = label;
  }

  public int exitCode() {
    return exitCode;
  }

  /**
   * The kind as a JSON report's {@code "kind"} names it ({@code rejected}, {@code failed}, {@code
   * retryable}, {@code timeout}, {@code config}, {@code alert}): a scheduler tells a rejected batch
   * from a crash by this, not by the exit code both share (1) or the message.
   */
  public String label() {
    return label;
  }

  /**
   * Exception types, by class name, that mean the store or the network failed for a while rather
   * than the request being wrong. Names and not classes: the S3A and HTTP client classes are not on
   * every platform's class path (Databricks shades its own).
   */
  private static final Set<String> TRANSIENT =
      Set.of(
          "java.net.SocketTimeoutException",
          "java.net.SocketException",
          "java.net.ConnectException",
          "java.net.NoRouteToHostException",
          "java.io.EOFException",
          "org.apache.http.NoHttpResponseException",
          "org.apache.http.ConnectionClosedException",
          "org.apache.http.TruncatedChunkException",
          "org.apache.http.conn.ConnectTimeoutException",
          "org.apache.http.conn.HttpHostConnectException",
          "org.apache.hadoop.net.ConnectTimeoutException",
          "org.apache.hadoop.fs.s3a.AWSServiceThrottledException",
          "org.apache.hadoop.fs.s3a.AWSStatus500Exception",
          "org.apache.hadoop.fs.s3a.AWSApiCallTimeoutException",
          "org.apache.hadoop.fs.s3a.AWSNoResponseException",
          "org.apache.hadoop.fs.s3a.AWSConnectionResetException",
          "software.amazon.awssdk.core.exception.ApiCallTimeoutException",
          "software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException");

  /**
   * Whether {@code error} is the store or the network failing for a while (throttled, reset, timed
   * out, unreachable), or the thread being interrupted, rather than anything about the file being
   * read. Such a file is no bad file: recorded as one, it would be skipped (or, for JSON, read
   * whole by the batch run again and still listed as bad) for a failure the next run does not have.
   * An {@code EOFException} does not count here, unlike {@link #of}: a truncated gzip or Avro file
   * ends early too.
   */
  public static boolean storeFailedForAWhile(Throwable error) {
    Set<Throwable> seen = new HashSet<>();
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      if (Interruptions.isInterruption(t)) {
        return true;
      }
      if (!(t instanceof java.io.EOFException) && transientType(t)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The kind of {@code error}: a replaysafe error says its own kind; anything else is {@link
   * #RETRYABLE} when a transient I/O failure is among its causes, else {@link #FAILURE}.
   */
  public static ErrorKind of(Throwable error) {
    if (error instanceof ReplaysafeException r && r.kind() != FAILURE) {
      return r.kind();
    }
    Set<Throwable> seen = new HashSet<>();
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      if (t instanceof ReplaysafeException r && r.kind() != FAILURE) {
        return r.kind();
      }
      if (transientType(t)) {
        return RETRYABLE;
      }
    }
    return FAILURE;
  }

  /**
   * Whether {@code t} itself is of a transient type, or is the AWS SDK's answer of a store that
   * failed for a while: a 500, 502, 503 or 504, or throttling. S3A turns those into its own types;
   * other readers of S3 do not (the analytics accelerator S3A reads with hands on a plain {@code
   * IOException} around the SDK's {@code S3Exception} for a 503 SlowDown on a GET).
   */
  private static boolean transientType(Throwable t) {
    for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
      if (TRANSIENT.contains(c.getName())) {
        return true;
      }
      if (SDK_SERVICE_EXCEPTION.equals(c.getName())) {
        return serverFailedForAWhile(t);
      }
    }
    return false;
  }

  private static final String SDK_SERVICE_EXCEPTION =
      "software.amazon.awssdk.core.exception.SdkServiceException";

  private static boolean serverFailedForAWhile(Throwable sdkServiceException) {
    try {
      Class<?> type = sdkServiceException.getClass();
      int status = (int) type.getMethod("statusCode").invoke(sdkServiceException);
      boolean throttled =
          (boolean) type.getMethod("isThrottlingException").invoke(sdkServiceException);
      return throttled || status == 500 || status == 502 || status == 503 || status == 504;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false; // another SDK version's shape: not known to be transient
    }
  }
}
