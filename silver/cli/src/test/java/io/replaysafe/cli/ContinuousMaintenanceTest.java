package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.testing.PipelineYaml;
import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.silver.ops.Maintain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code maintenance:} in a continuous run: OPTIMIZE of bronze, silver and their side tables
 * between batches, under the run's lease, at its cadence; a VACUUM retention a rule refuses is
 * reported once and the run goes on; the time of the last round is kept on silver's table, so a
 * later run waits for the rest of the cadence, and a scheduled {@code run} honours it too.
 */
// Long (housekeeping rounds between batches of a running pipeline: 2-5 minutes on a loaded 2-core
// machine): runs with -Plong, by hand.
@org.junit.jupiter.api.Tag("long")
class ContinuousMaintenanceTest extends SparkTestBase {
  static final String REFUSAL =
      "VACUUM refused: Cannot VACUUM with a retention of 1 day(s): the bronze table keeps removed"
          + " files for 7 day(s) (delta.deletedFileRetentionDuration), which readers of older"
          + " versions rely on. Set maintenance.vacuumRetention: '7 days' or longer.";

  @TempDir Path dir;

  private Path pipeline(String maintenance) throws Exception {
    Files.createDirectories(dir.resolve("landing"));
    return Files.writeString(
        dir.resolve("pipeline.yaml"),
        PipelineYaml.local(
                "orders",
                dir,
                "order_id BIGINT, source_version BIGINT, status STRING",
                "keys: [order_id]\nsequenceBy: [source_version]\n")
            + maintenance);
  }

  private void land(String name, String... lines) throws Exception {
    Path tmp = dir.resolve(name + ".tmp");
    Files.writeString(tmp, String.join("\n", lines) + "\n");
    Files.move(tmp, dir.resolve("landing").resolve(name));
  }

  /** The table's commits, oldest first: "version operation". */
  private List<String> history(String table) {
    return DeltaTable.forPath(spark, dir.resolve(table).toString())
        .history()
        .orderBy("version")
        .select("version", "operation")
        .collectAsList()
        .stream()
        .map(r -> r.getLong(0) + " " + r.getString(1))
        .toList();
  }

  private boolean optimized(String table) {
    return DeltaTable.isDeltaTable(spark, dir.resolve(table).toString())
        && history(table).stream().anyMatch(c -> c.endsWith(" OPTIMIZE"));
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
      Thread.sleep(250);
    }
  }

  /** The first version of {@code operation} after {@code after}, from "version operation". */
  private static long firstAfter(List<String> history, long after, String operation) {
    return history.stream()
        .filter(c -> c.endsWith(" " + operation))
        .mapToLong(c -> Long.parseLong(c.substring(0, c.indexOf(' '))))
        .filter(v -> v > after)
        .min()
        .orElseThrow(
            () -> new AssertionError("no " + operation + " after " + after + " in " + history));
  }

  @Test
  void optimizesBetweenBatchesReportsARefusedVacuumOnceAndKeepsRunning() throws Exception {
    Path file = pipeline("maintenance: {optimizeEvery: '1 second', vacuumRetention: '1 day'}\n");
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
                    "3"));
    await(
        "silver's first batch",
        () ->
            DeltaTable.isDeltaTable(spark, dir.resolve("silver").toString())
                && silver().size() == 2);
    // A second file each: two small files in bronze, and silver's insert of key 3 in a new one.
    land(
        "b.json",
        "{\"order_id\":1,\"source_version\":2,\"status\":\"Shipped\"}",
        "{\"order_id\":3,\"source_version\":1,\"status\":\"New\"}");
    await("an OPTIMIZE of bronze and of silver", () -> optimized("bronze") && optimized("silver"));
    assertThat(running).isNotDone();
    land("c.json", "{\"order_id\":2,\"source_version\":2,\"status\":\"Paid\"}");
    CliRunner.Outcome run = running.get(10, TimeUnit.MINUTES);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .matches(
            "run orders: stopped \\(--max-batches 3\\) after \\d+\\.\\d s"
                + " \\| bronze: 3 batch\\(es\\), 5 row\\(s\\), table version \\d+"
                + " \\| silver: 3 batch\\(es\\), 5 row\\(s\\), table version \\d+\n");
    // The rows are what the three deliveries make, compaction or not.
    assertThat(silver()).containsExactly("1|2|Shipped", "2|2|Paid", "3|1|New");
    assertThat(spark.read().format("delta").load(dir.resolve("bronze").toString()).count())
        .isEqualTo(5);
    // Between batches: each table's OPTIMIZE comes after a batch's commit and before the next.
    for (String table : List.of("bronze", "silver")) {
      List<String> history = history(table);
      String write = table.equals("bronze") ? "STREAMING UPDATE" : "MERGE";
      long firstWrite = firstAfter(history, -1, write);
      long optimize = firstAfter(history, firstWrite, "OPTIMIZE");
      assertThat(firstAfter(history, optimize, write))
          .as(table + ": " + history)
          .isGreaterThan(optimize);
    }
    // The refusal's reason once, then "again"; the rounds went on all the same.
    assertThat(Pattern.compile(Pattern.quote(REFUSAL)).matcher(run.err()).results().count())
        .as(run.err())
        .isEqualTo(1);
    assertThat(run.err())
        .containsPattern(
            "maintenance orders: OPTIMIZE \\d+ table\\(s\\), \\d+ file\\(s\\) compacted; "
                + Pattern.quote(REFUSAL)
                + "; \\d+\\.\\d s\n");
    assertThat(spark.streams().active()).isEmpty();

    // The last round's time is on silver's table: a run with a day's cadence does not compact
    // again, a scheduled run whose cadence has passed does, after its batches.
    Instant last =
        Instant.parse(
            spark
                .sql("SHOW TBLPROPERTIES delta.`" + dir.resolve("silver") + "`")
                .where("key = '" + Maintain.LAST_OPTIMIZE + "'")
                .first()
                .getString(1));
    assertThat(last).isBetween(Instant.now().minus(Duration.ofMinutes(10)), Instant.now());
    long optimizes = history("bronze").stream().filter(c -> c.endsWith(" OPTIMIZE")).count();
    pipeline("maintenance: {optimizeEvery: 1 day}\n");
    land("d.json", "{\"order_id\":4,\"source_version\":1,\"status\":\"New\"}");
    CliRunner.Outcome daily = CliRunner.run("run", "--config", file.toString());
    assertThat(daily.exitCode()).as(daily.err()).isZero();
    assertThat(daily.err()).doesNotContain("maintenance orders");
    assertThat(history("bronze").stream().filter(c -> c.endsWith(" OPTIMIZE")).count())
        .isEqualTo(optimizes);

    pipeline("maintenance: {optimizeEvery: '1 second'}\n");
    land("e.json", "{\"order_id\":5,\"source_version\":1,\"status\":\"New\"}");
    CliRunner.Outcome scheduled = CliRunner.run("run", "--config", file.toString());
    assertThat(scheduled.exitCode()).as(scheduled.err()).isZero();
    Matcher round =
        Pattern.compile(
                "maintenance orders: OPTIMIZE (\\d+) table\\(s\\), (\\d+) file\\(s\\) compacted;"
                    + " \\d+\\.\\d s\n")
            .matcher(scheduled.err());
    assertThat(round.find()).as(scheduled.err()).isTrue();
    // At least bronze's d.json and e.json files, compacted with what was there into one file.
    assertThat(Long.parseLong(round.group(2))).isGreaterThanOrEqualTo(2);
    assertThat(scheduled.out().lines()).hasSize(1).allMatch(l -> l.startsWith("run orders: ok | "));
    assertThat(spark.read().format("delta").load(dir.resolve("bronze").toString()).count())
        .isEqualTo(7);
    assertThat(spark.read().format("delta").load(dir.resolve("bronze").toString()).inputFiles())
        .hasSize(1);
  }
}
