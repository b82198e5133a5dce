package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The silver contract holds in continuous mode as in scheduled runs: the same deliveries, landed
 * one at a time, give the same tables whether a fresh {@code run} follows each delivery or one
 * {@code run --continuous} applies each as it lands (one batch per delivery), for current state and
 * history.
 *
 * <table>
 *   <tr><th>in the deliveries</th><th>what must come out the same</th></tr>
 *   <tr><td>new keys, next versions, deletes, re-creates after a delete</td><td>silver, tombstones
 *       (SCD1) or events (SCD2)</td></tr>
 *   <tr><td>exact retries and older versions in later files; an older insert after a
 *       delete</td><td>collapsed or ignored: never a change, never a resurrection</td></tr>
 *   <tr><td>conflicts (same key and sequence, another payload), in the batch and with the
 *       table</td><td>the quarantine</td></tr>
 *   <tr><td>null keys and lines that are not JSON</td><td>the quarantine (onInvalid: quarantine)
 *       </td></tr>
 *   <tr><td>truncates (SCD1)</td><td>silver and the truncates table</td></tr>
 *   <tr><td>every batch</td><td>its run-log row: every decision count, batch by batch</td></tr>
 * </table>
 *
 * <p>The deliveries are generated from a seed (printed on failure): {@code
 * -Dreplaysafe.continuous.seed=N} replays one.
 */
// Slow: each case runs a dozen scheduled runs and a continuous run of a dozen batches (3-6 minutes
// a case on a loaded 2-core machine); runs with -Pslow.
@Tag("slow")
class ContinuousContractTest extends SparkTestBase {
  private static final int DELIVERIES = 8;

  @org.junit.jupiter.api.io.TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {CrashScenarios.SCD1, CrashScenarios.SCD2})
  void continuousRunGivesTheTablesScheduledRunsGive(String shape) throws Exception {
    long seed = Long.getLong("replaysafe.continuous.seed", System.nanoTime());
    List<List<String>> deliveries = deliveries(new Random(seed), shape);
    String silverYaml = CrashScenarios.silverYaml(shape);

    CrashMatrix.Pipeline scheduled =
        CrashMatrix.create(spark, dir.resolve("scheduled"), silverYaml);
    for (int i = 0; i < deliveries.size(); i++) {
      land(scheduled, i, deliveries.get(i));
      CliRunner.Outcome run = CliRunner.run("run", "--config", scheduled.file().toString());
      assertThat(run.exitCode()).as("seed %d, delivery %d: %s", seed, i, run.err()).isZero();
    }

    CrashMatrix.Pipeline continuous =
        CrashMatrix.create(spark, dir.resolve("continuous"), silverYaml);
    CompletableFuture<CliRunner.Outcome> running =
        CompletableFuture.supplyAsync(
            () ->
                CliRunner.run(
                    "run",
                    "--config",
                    continuous.file().toString(),
                    "--continuous",
                    "--interval",
                    "1 second",
                    "--max-batches",
                    Integer.toString(deliveries.size())));
    CliRunner.Outcome run;
    try {
      for (int i = 0; i < deliveries.size(); i++) {
        land(continuous, i, deliveries.get(i));
        // The next delivery lands once silver logged this one's batch: one batch per delivery, as
        // the scheduled runs made them, so even the run logs compare row for row.
        awaitRunLogRows(continuous, i + 1, running, seed);
      }
      run = running.get(10, TimeUnit.MINUTES);
    } finally {
      // A failed wait leaves the continuous run going in this JVM's session: stop its queries, so
      // the next case starts alone.
      if (!running.isDone()) {
        for (var query : spark.streams().active()) {
          query.stop();
        }
        running.get(5, TimeUnit.MINUTES);
      }
    }
    assertThat(run.exitCode()).as("seed %d: %s", seed, run.err()).isZero();

    Map<String, List<String>> expected = withoutSilverBatchIds(CrashMatrix.tables(scheduled));
    Map<String, List<String>> actual = withoutSilverBatchIds(CrashMatrix.tables(continuous));
    assertThat(actual).as("seed %d", seed).isEqualTo(expected);
    // The generated deliveries exercised what the contract decides, not only inserts.
    String runs = String.join("\n", expected.get("runs"));
    assertThat(runs)
        .as("seed %d: the run log shows exact retries, conflicts and deletes", seed)
        .containsPattern("\"exact_retries\":[1-9]")
        .containsPattern("\"conflicts_(in_batch|with_target)\":[1-9]")
        .containsPattern("\"quarantined\":[1-9]");
    assertThat(expected.get("quarantine")).as("seed %d", seed).isNotEmpty();
  }

  /**
   * The tables without silver's batch numbers, the one thing the mode decides: a continuous silver
   * query may number its first batch with data 1 where the first scheduled run numbers it 0. They
   * appear in the run log's {@code batch_id}, the quarantine's {@code silver_batch_id} and a
   * conflict's message ("in batch 3"); every decision, count and bronze version stays compared.
   */
  private static Map<String, List<String>> withoutSilverBatchIds(Map<String, List<String>> tables) {
    tables.replaceAll(
        (name, rows) ->
            rows.stream()
                .map(
                    r ->
                        name.equals("runs")
                            ? r.replaceAll("\"batch_id\":\\d+,", "")
                            : r.replaceAll("in batch \\d+ \\(", "in batch N (")
                                .replaceAll("\"silver_batch_id\":\\d+", "\"silver_batch_id\":N"))
                .sorted()
                .toList());
    return tables;
  }

  private static void land(CrashMatrix.Pipeline p, int index, List<String> lines) throws Exception {
    Path tmp = p.dir().resolve("delivery-" + index + ".tmp");
    Files.writeString(tmp, String.join("\n", lines) + "\n");
    // Renamed into place whole, as a landing zone should: the stream never sees half a file.
    Files.move(tmp, p.dir().resolve("landing").resolve(String.format("d-%02d.json", index)));
  }

  private void awaitRunLogRows(
      CrashMatrix.Pipeline p, int rows, CompletableFuture<CliRunner.Outcome> running, long seed)
      throws Exception {
    long end = System.nanoTime() + Duration.ofMinutes(8).toNanos();
    String log = p.dir().resolve("silver_runs").toString();
    // The run log is created by silver's first batch: until its first commit it is no table.
    while (!io.delta.tables.DeltaTable.isDeltaTable(spark, log)
        || spark.read().format("delta").load(log).count() < rows) {
      if (running.isDone()) {
        CliRunner.Outcome early = running.get();
        throw new AssertionError(
            "seed " + seed + ": the continuous run ended early: " + early.err());
      }
      assertThat(System.nanoTime())
          .as("seed %d: waiting for run-log row %d", seed, rows)
          .isLessThan(end);
      Thread.sleep(250);
    }
  }

  /**
   * Deliveries of orders over a few keys, each a file: mostly new keys and next versions, and in
   * later files exact retries, older versions, deletes, inserts older than a delete, conflicts in
   * the batch and with the table, a null key, a line that is not JSON, and (SCD1) a truncate.
   */
  static List<List<String>> deliveries(Random random, String shape) {
    Map<Long, Long> version = new HashMap<>();
    Map<Long, String> status = new HashMap<>();
    List<String> sent = new ArrayList<>();
    List<List<String>> deliveries = new ArrayList<>();
    long nextKey = 1;
    long truncateSequence = 1;
    for (int d = 0; d < DELIVERIES; d++) {
      List<String> lines = new ArrayList<>();
      int size = 6 + random.nextInt(8);
      for (int i = 0; i < size; i++) {
        double roll = d == 0 ? 0 : random.nextDouble();
        String line;
        if (roll < 0.30 || version.isEmpty()) {
          long key = nextKey++;
          version.put(key, 10L);
          status.put(key, pick(random));
          line = CrashMatrix.orders(key, 10, status.get(key));
        } else {
          List<Long> keys = new ArrayList<>(version.keySet());
          long key = keys.get(random.nextInt(keys.size()));
          long v = version.get(key);
          if (roll < 0.55) {
            version.put(key, v + 1 + random.nextInt(3));
            status.put(key, pick(random));
            line = CrashMatrix.orders(key, version.get(key), status.get(key));
          } else if (roll < 0.65) {
            version.put(key, v + 1);
            line = CrashMatrix.delete(key, v + 1);
          } else if (roll < 0.75) {
            line = sent.get(random.nextInt(sent.size())); // an exact retry, maybe of a delete
          } else if (roll < 0.82) {
            line = CrashMatrix.orders(key, Math.max(1, v - 1 - random.nextInt(5)), pick(random));
          } else if (roll < 0.90) {
            // The same key and sequence as a stored or sent event, another payload.
            line = CrashMatrix.orders(key, v, "Conflict-" + random.nextInt(1000));
          } else if (roll < 0.94) {
            line = "{\"order_id\":null,\"source_version\":" + v + ",\"status\":\"x\"}";
          } else if (roll < 0.97) {
            line = "not json " + random.nextInt(1000);
          } else if (CrashScenarios.SCD1.equals(shape) && d > 2 && truncateSequence == 1) {
            truncateSequence = 0;
            line = "{\"order_id\":null,\"source_version\":" + (v + 50) + ",\"op\":\"TRUNCATE\"}";
          } else {
            line = CrashMatrix.orders(key, v, status.get(key)); // the key's latest, again
          }
        }
        lines.add(line);
        sent.add(line);
      }
      // An in-batch conflict in every later delivery: two payloads at one new sequence. And an
      // exact retry: a random retry above often re-sends an event a later version superseded,
      // which is an older version, not a retry (seed 6863343883934 had none in 8 deliveries).
      if (d > 0) {
        long key = nextKey++;
        lines.add(CrashMatrix.orders(key, 10, "Left"));
        lines.add(CrashMatrix.orders(key, 10, "Right"));
        long twice = nextKey++;
        lines.add(CrashMatrix.orders(twice, 10, "Twice"));
        lines.add(CrashMatrix.orders(twice, 10, "Twice"));
      }
      deliveries.add(lines);
    }
    return deliveries;
  }

  private static String pick(Random random) {
    return List.of("New", "Paid", "Shipped", "Refunded").get(random.nextInt(4));
  }
}
