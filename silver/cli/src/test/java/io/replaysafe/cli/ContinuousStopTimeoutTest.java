package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.testing.PipelineYaml;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.spark.JobExecutionStatus;
import org.apache.spark.SparkJobInfo;
import org.apache.spark.api.java.function.ForeachPartitionFunction;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sun.misc.Signal;

/**
 * A continuous stop that cannot finish within {@code --stop-timeout}: exit 5, the queries stopped
 * where they were, the message naming each table's committed version and last batch; the next run
 * replays the interrupted batch.
 *
 * <p>The batch in flight is held without a sleep or a hook: this JVM's Spark runs {@code local[2]},
 * and a job of the test's own whose tasks wait on a latch takes every task slot, so bronze's next
 * batch is planned and then waits for a slot that only the latch frees. The stop is the SIGTERM a
 * deployment sends, raised in this JVM while the run's handler is installed (its queries are
 * active), and the latch opens only once the run has given up waiting and stopped bronze's query.
 */
// Long (a continuous run held past its stop timeout: 2-5 minutes on a loaded 2-core machine): runs
// with -Plong, by hand.
@org.junit.jupiter.api.Tag("long")
class ContinuousStopTimeoutTest extends SparkTestBase {
  private static final CountDownLatch RELEASE = new CountDownLatch(1);
  private static final AtomicInteger HOLDING = new AtomicInteger();
  private static final String HOLDER = "test-holds-every-slot";

  @TempDir Path dir;

  private void land(String name, String... lines) throws Exception {
    Path tmp = dir.resolve(name + ".tmp");
    Files.writeString(tmp, String.join("\n", lines) + "\n");
    Files.move(tmp, dir.resolve("landing").resolve(name));
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(end);
      Thread.sleep(100);
    }
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

  private static StreamingQuery query(String name) {
    return Arrays.stream(spark.streams().active())
        .filter(q -> name.equals(q.name()))
        .findFirst()
        .orElse(null);
  }

  /**
   * A job besides the holder's is running: a query's trigger is inside Spark, waiting for a slot
   * (nothing else of the run starts jobs: no maintenance, no listener does).
   */
  private static boolean aPipelineJobWaits() {
    var tracker = spark.sparkContext().statusTracker();
    Set<Integer> holder =
        Arrays.stream(tracker.getJobIdsForGroup(HOLDER)).boxed().collect(Collectors.toSet());
    for (int id : tracker.getActiveJobIds()) {
      scala.Option<SparkJobInfo> info = tracker.getJobInfo(id);
      if (!holder.contains(id)
          && info.isDefined()
          && info.get().status() == JobExecutionStatus.RUNNING) {
        return true;
      }
    }
    return false;
  }

  @Test
  void aStopThatCannotFinishInTimeExitsFiveNamingWhatWasCommitted() throws Exception {
    Files.createDirectories(dir.resolve("landing"));
    Path file =
        Files.writeString(
            dir.resolve("pipeline.yaml"),
            PipelineYaml.local(
                "orders",
                dir,
                "order_id BIGINT, source_version BIGINT, status STRING",
                "keys: [order_id]\nsequenceBy: [source_version]\n"));
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
                    "--stop-timeout",
                    "1 second",
                    "--json"));
    CompletableFuture<Void> holder = null;
    try {
      await(
          "silver's first batch",
          () ->
              DeltaTable.isDeltaTable(spark, dir.resolve("silver").toString())
                  && silver().size() == 2);
      int slots = spark.sparkContext().defaultParallelism();
      holder =
          CompletableFuture.runAsync(
              () -> {
                spark.sparkContext().setJobGroup(HOLDER, "holds every task slot", false);
                spark
                    .range(0, slots, 1, slots)
                    .foreachPartition(
                        (ForeachPartitionFunction<Long>)
                            rows -> {
                              HOLDING.incrementAndGet();
                              RELEASE.await(10, TimeUnit.MINUTES);
                            });
              });
      await("every task slot held", () -> HOLDING.get() == slots);
      land("b.json", "{\"order_id\":1,\"source_version\":2,\"status\":\"Shipped\"}");
      await("bronze's next batch inside Spark, waiting for a slot", () -> aPipelineJobWaits());
      // The run's handler is installed while its queries run: the signal cannot reach the JVM's.
      StreamingQuery bronze = query("replaysafe_bronze_orders");
      assertThat(bronze).isNotNull();
      Signal.raise(new Signal("TERM"));
      // Bronze's query is stopped only once --stop-timeout passed with its batch still in flight
      // (a query between batches is stopped as soon as it is idle): then the slots may go, and
      // what the run still reads of the tables (their versions, for the message) can run.
      await("the run giving up on bronze's batch", () -> !bronze.isActive());
    } finally {
      RELEASE.countDown();
    }
    holder.get(5, TimeUnit.MINUTES);
    CliRunner.Outcome run = running.get(5, TimeUnit.MINUTES);

    assertThat(run.exitCode()).as(run.err()).isEqualTo(5);
    Matcher silverBatch =
        Pattern.compile(
                "\\{\"event\":\"batch\",\"layer\":\"silver\",\"pipeline\":\"orders\",\"batchId\":(\\d+),")
            .matcher(run.out());
    assertThat(silverBatch.find()).as(run.out()).isTrue();
    String committed =
        "Committed: bronze table version "
            + DeltaTables.latestVersion(spark, dir.resolve("bronze").toString())
            + " (last batch 0); silver table version "
            + DeltaTables.latestVersion(spark, dir.resolve("silver").toString())
            + " (last batch "
            + silverBatch.group(1)
            + ").";
    String message =
        "The continuous run of pipeline 'orders' did not stop within 1 second(s) (--stop-timeout)"
            + " after SIGTERM, and its queries were stopped mid-batch. "
            + committed
            + " The next run replays the interrupted batch from the checkpoints; raise"
            + " --stop-timeout or bound micro-batches with source.options.maxFilesPerTrigger.";
    List<String> out = run.out().lines().toList();
    assertThat(out.get(out.size() - 1))
        .isEqualTo(
            "{\"event\":\"failed\",\"pipeline\":\"orders\",\"status\":\"failed\",\"exitCode\":5,"
                + "\"kind\":\"timeout\",\"error\":\""
                + message
                + "\"}");
    assertThat(run.err()).contains(message);
    assertThat(spark.streams().active()).isEmpty();
    // Only a.json was committed; b.json's batch was interrupted, and the next run applies it.
    assertThat(silver()).containsExactly("1|1|New", "2|1|New");
    CliRunner.Outcome next = CliRunner.run("run", "--config", file.toString());
    assertThat(next.exitCode()).as(next.err()).isZero();
    assertThat(silver()).containsExactly("1|2|Shipped", "2|1|New");
  }
}
