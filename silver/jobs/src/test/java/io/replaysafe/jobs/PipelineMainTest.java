package io.replaysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.testing.PipelineYaml;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sun.misc.Signal;

/**
 * The continuous cluster job in-process: bronze and silver running under the lease it holds as
 * {@code pipeline --continuous}, a scheduled cluster job refused meanwhile (exit 4, naming it), and
 * SIGTERM as a clean stop with one last line on stdout; bad arguments are exit 2 before Spark.
 */
class PipelineMainTest extends SparkTestBase {
  @TempDir Path dir;

  record Run(int exitCode, String out, String err) {}

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ClusterJob.Ending ending =
        PipelineMain.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        ending.exitCode(),
        out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8));
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(end);
      Thread.sleep(200);
    }
  }

  private boolean silverHas(int rows) {
    String silver = dir.resolve("silver").toString();
    return DeltaTable.isDeltaTable(spark, silver)
        && spark.read().format("delta").load(silver).count() >= rows;
  }

  @Test
  void runsBothLayersUnderTheLeaseUntilSigterm() throws Exception {
    Files.createDirectories(dir.resolve("landing"));
    Files.writeString(
        dir.resolve("landing/a.json"),
        "{\"order_id\":1,\"source_version\":1,\"status\":\"New\"}\n"
            + "{\"order_id\":2,\"source_version\":1,\"status\":\"New\"}\n");
    Path file =
        Files.writeString(
            dir.resolve("orders.yaml"),
            PipelineYaml.local(
                "orders",
                dir,
                "order_id BIGINT, source_version BIGINT, status STRING",
                "keys: [order_id]\nsequenceBy: [source_version]\n"));
    CompletableFuture<Run> running =
        CompletableFuture.supplyAsync(
            () ->
                run(
                    "--config",
                    file.toString(),
                    "--interval",
                    "1 second",
                    "--stop-timeout",
                    "5 minutes"));
    await("silver's first batch", () -> silverHas(2));

    ClusterJobTest.Run scheduled =
        ClusterJobTest.run(ClusterJob.BRONZE, "--config", file.toString());
    assertThat(scheduled.exitCode()).as(scheduled.err()).isEqualTo(4);
    assertThat(scheduled.err()).contains("command 'pipeline --continuous'");

    // The job's handler is installed while its queries run: the signal cannot reach the JVM's.
    assertThat(Arrays.stream(spark.streams().active()).map(q -> q.name()))
        .contains("replaysafe_bronze_orders", "replaysafe_silver_orders");
    Signal.raise(new Signal("TERM"));
    Run stopped = running.get(10, TimeUnit.MINUTES);

    assertThat(stopped.exitCode()).as(stopped.err()).isZero();
    assertThat(stopped.out())
        .matches(
            "pipeline orders: stopped \\(SIGTERM\\) after \\d+\\.\\d s"
                + " \\| bronze: 1 batch\\(es\\), 2 row\\(s\\), table version \\d+"
                + " \\| silver: 1 batch\\(es\\), 2 row\\(s\\), table version \\d+\n");
    assertThat(stopped.err())
        .startsWith(
            "pipeline orders: continuous every 1 second(s); SIGTERM or SIGINT stops it after the"
                + " batch in flight\n")
        .containsPattern("silver orders: batch \\d+: 2 row\\(s\\); inserted 2, ");
    assertThat(spark.streams().active()).isEmpty();
    // The lease was released: the scheduled job proceeds.
    ClusterJobTest.Run after = ClusterJobTest.run(ClusterJob.BRONZE, "--config", file.toString());
    assertThat(after.exitCode()).as(after.err()).isZero();
  }

  @Test
  void badArgumentsAreExitTwoWithTheUsage() {
    Run run = run("--config", "orders.yaml", "--interval", "0 seconds");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "replaysafe pipeline: --interval '0 seconds' is shorter than a second; write e.g."
                + " '10 seconds' or '1 minute'\n");
    Run missing = run("--json");
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err())
        .isEqualTo(
            "replaysafe pipeline: Cannot start the pipeline job: the pipeline file is missing;"
                + " give --config PATH or --config-inline YAML. Usage: pipeline (--config PATH |"
                + " --config-inline YAML) [--interval DURATION] [--stop-timeout DURATION]"
                + " [--json]\n");
  }
}
