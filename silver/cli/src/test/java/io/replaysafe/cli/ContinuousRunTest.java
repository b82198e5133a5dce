package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.PipelineYaml;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --continuous}: bronze and silver as two processing-time queries in this JVM, silver
 * applying bronze's commits as they land, ended by {@code --max-batches}, {@code --until} or a
 * failed batch (with today's exit code), holding the writer's lease meanwhile.
 *
 * <table>
 *   <tr><th>case</th><th>exit</th><th>stdout</th></tr>
 *   <tr><td>two deliveries, the second after silver applied the first</td><td>0</td>
 *       <td>stopped (--max-batches 2), both layers' batches and rows</td></tr>
 *   <tr><td>a second {@code run} while it runs</td><td>4</td><td>names 'run --continuous'</td></tr>
 *   <tr><td>a conflict under onConflict: fail</td><td>1</td><td>FAILED, no query left</td></tr>
 *   <tr><td>--max-batches without --continuous</td><td>2</td><td>nothing ran</td></tr>
 * </table>
 */
class ContinuousRunTest extends SparkTestBase {
  @TempDir Path dir;

  private Path pipeline(String silverYaml) throws Exception {
    Files.createDirectories(dir.resolve("landing"));
    return Files.writeString(
        dir.resolve("pipeline.yaml"),
        PipelineYaml.local(
            "orders",
            dir,
            "order_id BIGINT, source_version BIGINT, status STRING",
            "keys: [order_id]\nsequenceBy: [source_version]\n" + silverYaml));
  }

  private void land(String name, String... lines) throws Exception {
    Path tmp = dir.resolve(name + ".tmp");
    Files.writeString(tmp, String.join("\n", lines) + "\n");
    // Renamed into place whole, as a landing zone should: the stream never sees half a file.
    Files.move(tmp, dir.resolve("landing").resolve(name));
  }

  private List<String> silver() {
    return rows(
        spark
            .read()
            .format("delta")
            .load(dir.resolve("silver").toString())
            .select("order_id", "source_version", "status")
            .orderBy("order_id"));
  }

  private static void await(String what, java.util.function.BooleanSupplier done)
      throws InterruptedException {
    long end = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(end);
      Thread.sleep(200);
    }
  }

  private boolean silverHas(int rows) {
    return io.delta.tables.DeltaTable.isDeltaTable(spark, dir.resolve("silver").toString())
        && silver().size() >= rows;
  }

  /**
   * The driver's record of what it ran stays at the local session's bounds after a continuous run
   * (two batches per layer here, each silver batch alone about 40 SQL executions and 30 jobs):
   * Spark fills its status store without a UI, 1,000 executions with their plans by default.
   */
  private static void assertStatusStoreBounded() throws Exception {
    spark.sparkContext().listenerBus().waitUntilEmpty(60_000L);
    org.apache.spark.util.kvstore.KVStore store = spark.sparkContext().statusStore().store();
    Class<?> executions = org.apache.spark.sql.execution.ui.SQLExecutionUIData.class;
    Class<?> jobs = org.apache.spark.status.JobDataWrapper.class;
    // The store trims on a thread of its own after the write that passed a bound.
    await(
        "the status store's trimming",
        () -> {
          try {
            return store.count(executions) <= 20 && store.count(jobs) <= 50;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    assertThat(store.count(executions)).isEqualTo(20);
    assertThat(store.count(jobs)).isBetween(45L, 50L);
  }

  @Test
  void silverAppliesBronzeCommitsAsTheyLandUntilMaxBatches() throws Exception {
    Path file = pipeline("");
    land(
        "a.json",
        "{\"order_id\":1,\"source_version\":1,\"status\":\"New\"}",
        "{\"order_id\":2,\"source_version\":1,\"status\":\"New\"}");
    CompletableFuture<CliRunner.Outcome> running =
        CompletableFuture.supplyAsync(
            () ->
                CliRunner.run(
                    "run",
                    "--config",
                    file.toString(),
                    "--continuous",
                    "--interval",
                    "1 second",
                    "--max-batches",
                    "2"));
    await("silver's first batch", () -> silverHas(2));
    assertThat(running).isNotDone();

    // A second writer, cron left in place, is refused at once and told who holds the pipeline.
    CliRunner.Outcome second = CliRunner.run("run", "--config", file.toString());
    assertThat(second.exitCode()).as(second.err()).isEqualTo(4);
    assertThat(second.err()).contains("command 'run --continuous'");
    CliRunner.Outcome status = CliRunner.run("status", "--config", file.toString());
    assertThat(status.out())
        .containsPattern("\nwriter: 'run --continuous' on host [^,]+, pid \\d+, since 20\\d\\d-");

    land(
        "b.json",
        "{\"order_id\":1,\"source_version\":2,\"status\":\"Shipped\"}",
        "{\"order_id\":3,\"source_version\":1,\"status\":\"New\"}",
        "{\"order_id\":2,\"source_version\":1,\"status\":\"New\"}");
    CliRunner.Outcome run = running.get(10, TimeUnit.MINUTES);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .matches(
            "run orders: stopped \\(--max-batches 2\\) after \\d+\\.\\d s"
                + " \\| bronze: 2 batch\\(es\\), 5 row\\(s\\), table version \\d+"
                + " \\| silver: 2 batch\\(es\\), 5 row\\(s\\), table version \\d+\n");
    assertThat(silver()).containsExactly("1|2|Shipped", "2|1|New", "3|1|New");
    // One line per batch and layer, with its decisions and the freshness lag.
    assertThat(run.err())
        .containsPattern(
            "bronze orders: batch \\d+: 2 row\\(s\\); files 1, rescued 0, corrupt 0; \\d+\\.\\d s;"
                + " lag \\d+\\.\\d s")
        .containsPattern(
            "silver orders: batch \\d+: 3 row\\(s\\); inserted 1, updated 1, deleted 0,"
                + " exactRetries 1, olderIgnored 0, conflicts 0, quarantined 0, invalid 0;"
                + " \\d+\\.\\d s; lag \\d+\\.\\d s");
    assertThat(spark.streams().active()).isEmpty();
    assertStatusStoreBounded();
    // The lease was released: a scheduled run proceeds and finds nothing new.
    CliRunner.Outcome after = CliRunner.run("run", "--config", file.toString());
    assertThat(after.exitCode()).as(after.err()).isZero();
  }

  @Test
  void aRejectedBatchStopsBothQueriesWithExitOne() throws Exception {
    Path file = pipeline("");
    land(
        "a.json",
        "{\"order_id\":5,\"source_version\":2,\"status\":\"Shipped\"}",
        "{\"order_id\":5,\"source_version\":2,\"status\":\"Cancelled\"}");
    CliRunner.Outcome run =
        CliRunner.run(
            "run",
            "--config",
            file.toString(),
            "--continuous",
            "--interval",
            "1 second",
            "--until",
            "10 minutes",
            "--json");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
    assertThat(run.out().lines().toList().get((int) run.out().lines().count() - 1))
        // The batch's number depends on when the silver query first saw the bronze table (an
        // empty first batch is possible in continuous mode), so it is matched, not pinned.
        .matches(
            Pattern.quote(
                    "{\"event\":\"failed\",\"pipeline\":\"orders\",\"status\":\"failed\",\"exitCode\":1,\"kind\":\"rejected\","
                        + "\"error\":\"Cannot merge batch ")
                + "\\d+"
                + Pattern.quote(
                    " into silver "
                        + dir.resolve("silver")
                        + ": onConflict is fail and the same key and sequence carry different payloads.")
                + "(?s).*");
    assertThat(run.out())
        .startsWith(
            "{\"event\":\"batch\",\"layer\":\"bronze\",\"pipeline\":\"orders\",\"batchId\":0,"
                + "\"rows\":2,\"files\":1,\"rescued\":0,\"corrupt\":0,\"seconds\":");
    assertThat(spark.streams().active()).isEmpty();
  }

  @Test
  void boundsWithoutContinuousAreAUsageError() throws Exception {
    Path file = pipeline("");
    CliRunner.Outcome run = CliRunner.run("run", "--config", file.toString(), "--max-batches", "1");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains(
            "--interval, --max-batches and --until apply to a continuous run; add --continuous"
                + " (or set trigger.mode: continuous in the pipeline file)");
    assertThat(dir.resolve("bronze")).doesNotExist();
  }
}
