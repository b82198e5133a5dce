package io.replaysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.ReplaysafeException;
import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The one-line message of a failure: what failed, even when it arrives wrapped. */
class JobReportTest {

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
