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
                new AWSServiceThrottledException(
                    "PUT s3a://lake/k",
                    software.amazon.awssdk.services.s3.model.S3Exception.builder()
                        .statusCode(503)
                        .message("SlowDown")
                        .build())),
            ErrorKind.RETRYABLE,
            4),
        // A configuration error stays one whatever it wraps: retrying will not fix the file.
        Arguments.of(
            new ConfigException("bad", new SocketTimeoutException()), ErrorKind.CONFIGURATION, 2),
        Arguments.of(
            new RuntimeException("wrapped", new ConfigException("bad")),
            ErrorKind.CONFIGURATION,
            2),
        Arguments.of(new IOException("Access Denied"), ErrorKind.FAILURE, 1));
  }

  @ParameterizedTest
  @MethodSource("endings")
  void kindAndExitCode(Throwable error, ErrorKind kind, int exitCode) {
    assertThat(ErrorKind.of(error)).isEqualTo(kind);
    assertThat(ErrorKind.of(error).exitCode()).isEqualTo(exitCode);
  }
}
