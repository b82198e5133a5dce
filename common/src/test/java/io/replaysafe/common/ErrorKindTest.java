package io.replaysafe.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.stream.Stream;
import org.apache.hadoop.fs.s3a.AWSServiceThrottledException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every kind of ending and the exit code a scheduler sees for it. */
class ErrorKindTest {
  static Stream<Arguments> endings() {
    return Stream.of(
        Arguments.of(new ConfigException("silver.keys is missing"), ErrorKind.CONFIGURATION, 2),
        Arguments.of(new RetryableException("lease held"), ErrorKind.RETRYABLE, 4),
        Arguments.of(new RunTimeoutException("too slow"), ErrorKind.TIMEOUT, 5),
        Arguments.of(new IllegalStateException("a bug"), ErrorKind.FAILURE, 1),
        Arguments.of(new ReplaysafeException("unclassified"), ErrorKind.FAILURE, 1),
        Arguments.of(
            new RuntimeException("Job aborted", new IOException(new SocketTimeoutException())),
            ErrorKind.RETRYABLE,
            4),
        Arguments.of(
            new RuntimeException(new SocketException("Connection reset")), ErrorKind.RETRYABLE, 4),
        Arguments.of(
            new ReplaysafeException("Cannot read pipeline file", new ConnectException("refused")),
            ErrorKind.RETRYABLE,
            4),
        Arguments.of(
            new RuntimeException(
                new AWSServiceThrottledException("PUT s3a://lake/k", s3(503, "SlowDown"))),
            ErrorKind.RETRYABLE,
            4),
        // A configuration error stays one whatever it wraps: retrying will not fix the file.
        Arguments.of(
            new ConfigException("bad", new SocketTimeoutException()), ErrorKind.CONFIGURATION, 2),
        Arguments.of(
            new RuntimeException("wrapped", new ConfigException("bad")),
            ErrorKind.CONFIGURATION,
            2),
        Arguments.of(
            new RuntimeException(
                new IOException(
                    "Server error accessing s3://b/k",
                    s3(500, "We encountered an internal error. Please try again."))),
            ErrorKind.RETRYABLE,
            4),
        Arguments.of(new IOException("Access Denied"), ErrorKind.FAILURE, 1));
  }

  /**
   * What is no bad file: the store or network failing for a while, or an interrupt. A file's own
   * early end (a truncated gzip says EOF), a denial and a missing object are the file's.
   */
  static Stream<Arguments> storeFailures() {
    return Stream.of(
        Arguments.of(new IOException(new SocketException("Connection reset")), true),
        Arguments.of(new RuntimeException(new SocketTimeoutException("Read timed out")), true),
        Arguments.of(new java.io.InterruptedIOException("java.lang.InterruptedException"), true),
        Arguments.of(new RuntimeException(new InterruptedException()), true),
        // The SDK's own word for an interrupted call, inside a reader's plain IOException.
        Arguments.of(
            new IOException(
                software.amazon.awssdk.core.exception.AbortedException.builder()
                    .message("Thread was interrupted")
                    .build()),
            true),
        Arguments.of(new AWSServiceThrottledException("GET s3a://b/k", s3(503, "SlowDown")), true),
        // The analytics accelerator's read: a plain IOException around the SDK's 503.
        Arguments.of(
            new IOException(
                "Server error accessing s3://b/k", s3(503, "Please reduce your request rate.")),
            true),
        Arguments.of(
            new IOException("Server error accessing s3://b/k", s3(403, "Access Denied")), false),
        Arguments.of(new java.io.EOFException("Unexpected end of ZLIB input stream"), false),
        Arguments.of(new java.nio.file.AccessDeniedException("s3a://b/k"), false),
        Arguments.of(new java.io.FileNotFoundException("s3a://b/k"), false),
        Arguments.of(new IOException("Not a data file."), false));
  }

  @ParameterizedTest
  @MethodSource("storeFailures")
  void whatIsTheStoreFailingForAWhile(Throwable error, boolean forAWhile) {
    assertThat(ErrorKind.storeFailedForAWhile(error)).isEqualTo(forAWhile);
  }

  /** The S3 client's answer of that status, as the SDK builds it. */
  private static software.amazon.awssdk.services.s3.model.S3Exception s3(
      int status, String message) {
    return (software.amazon.awssdk.services.s3.model.S3Exception)
        software.amazon.awssdk.services.s3.model.S3Exception.builder()
            .statusCode(status)
            .message(message)
            .build();
  }

  @ParameterizedTest
  @MethodSource("endings")
  void kindAndExitCode(Throwable error, ErrorKind kind, int exitCode) {
    assertThat(ErrorKind.of(error)).isEqualTo(kind);
    assertThat(ErrorKind.of(error).exitCode()).isEqualTo(exitCode);
  }
}
