package io.replaysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.ErrorKind;
import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.RetryableException;
import io.replaysafe.common.RunTimeoutException;
import java.lang.reflect.InvocationTargetException;
import java.net.SocketTimeoutException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The one-line message of a failure: what failed, even when it arrives wrapped. */
class JobReportTest {

  /** A rejected batch and a crash share exit code 1; the JSON report's kind tells them apart. */
  @Test
  void theFailureFieldsNameTheKindOfEveryEnding() {
    ReplaysafeException rejected =
        new ReplaysafeException("Cannot merge batch 0") {
          @Override
          public ErrorKind kind() {
            return ErrorKind.REJECTED;
          }
        };
    assertThat(JobReport.failureFields(rejected))
        .containsEntry("exitCode", 1)
        .containsEntry("kind", "rejected");
    assertThat(JobReport.failureFields(new IllegalStateException("table is gone")))
        .containsEntry("exitCode", 1)
        .containsEntry("kind", "failed");
    assertThat(JobReport.failureFields(new ConfigException("silver.keys: 'idd' is unknown")))
        .containsEntry("exitCode", 2)
        .containsEntry("kind", "config");
    assertThat(JobReport.failureFields(new RetryableException("lease held by run on host-b")))
        .containsEntry("exitCode", 4)
        .containsEntry("kind", "retryable");
    assertThat(
            JobReport.failureFields(
                new RuntimeException("S3 read", new SocketTimeoutException("read timed out"))))
        .containsEntry("exitCode", 4)
        .containsEntry("kind", "retryable");
    assertThat(JobReport.failureFields(new RunTimeoutException("run exceeded --timeout 10m")))
        .containsEntry("exitCode", 5)
        .containsEntry("kind", "timeout");
    assertThat(JobReport.failureFields(new IllegalStateException("x")).keySet())
        .containsExactly("status", "exitCode", "kind", "error");
  }

  @Test
  void aReplaysafeErrorIsItsOwnMessage() {
    assertThat(
            JobReport.messageOf(
                new ReplaysafeException("silver.keys: 'idd' is unknown", new RuntimeException())))
        .isEqualTo("silver.keys: 'idd' is unknown");
  }

  @Test
  void anyOtherErrorCarriesItsType() {
    assertThat(JobReport.messageOf(new IllegalStateException("table is gone")))
        .isEqualTo("IllegalStateException: table is gone");
    assertThat(JobReport.messageOf(new NullPointerException())).isEqualTo("NullPointerException");
  }

  @Test
  void aWrapperNamesItsInnermostCause() {
    // What a Spark thread's Error looked like in CI: "ExecutionException: Boxed Exception" alone.
    Throwable boxed =
        new ExecutionException(
            "Boxed Exception",
            new InvocationTargetException(
                new InternalError("no such method: MethodHandle.linkToStatic")));
    assertThat(JobReport.messageOf(boxed))
        .isEqualTo(
            "ExecutionException: Boxed Exception"
                + " (caused by InternalError: no such method: MethodHandle.linkToStatic)");
  }

  @Test
  void aCauseTheMessageAlreadyQuotesIsNotRepeated() {
    Throwable root = new java.io.FileNotFoundException("s3a://lake/bronze/part-0.parquet");
    Throwable spark =
        new RuntimeException(
            "Job aborted: java.io.FileNotFoundException: s3a://lake/bronze/part-0.parquet", root);
    assertThat(JobReport.messageOf(spark))
        .isEqualTo(
            "RuntimeException: Job aborted: java.io.FileNotFoundException:"
                + " s3a://lake/bronze/part-0.parquet");
  }

  @Test
  void aCauseLoopEnds() {
    Exception a = new Exception("a");
    Exception b = new Exception("b", a);
    a.initCause(b);
    assertThat(JobReport.messageOf(b)).isEqualTo("Exception: b (caused by Exception: a)");
  }
}
