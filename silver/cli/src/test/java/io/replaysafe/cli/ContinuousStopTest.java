package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A continuous {@code run} in a child JVM, as a deployment runs it: SIGTERM stops it cleanly (exit
 * 0, the lease released), and a {@code kill -9} at a random moment while files land, followed by a
 * restart, leaves every table as a fault-free scheduled run of the same deliveries does (the run
 * log aside: continuous batches group the deliveries differently).
 */
// Slow: each case starts a child JVM and runs it for a minute or more (4-8 minutes in all on a
// loaded 2-core machine); runs with -Pslow.
@Tag("slow")
class ContinuousStopTest extends SparkTestBase {
  static final String SILVER = "keys: [order_id]\nsequenceBy: [source_version]\n";

  @TempDir Path dir;

  private static List<String> continuous(CrashMatrix.Pipeline p) {
    return List.of(
        "run", "--config", p.file().toString(), "--continuous", "--interval", "1 second");
  }

  private static void land(CrashMatrix.Pipeline p, int index, List<String> lines) throws Exception {
    Path tmp = p.dir().resolve("delivery-" + index + ".tmp");
    Files.writeString(tmp, String.join("\n", lines) + "\n");
    Files.move(tmp, p.dir().resolve("landing").resolve(String.format("d-%02d.json", index)));
  }

  private static void awaitLog(Path log, String text) throws Exception {
    long end = System.nanoTime() + Duration.ofMinutes(8).toNanos();
    while (!Files.exists(log) || !Files.readString(log).contains(text)) {
      assertThat(System.nanoTime()).as("waiting for '%s' in %s", text, log).isLessThan(end);
      Thread.sleep(250);
    }
  }

  @Test
  void sigtermFinishesTheBatchInFlightReleasesTheLeaseAndExitsZero() throws Exception {
    CrashMatrix.Pipeline p = CrashMatrix.create(spark, dir.resolve("p"), SILVER);
    land(p, 0, List.of(CrashMatrix.orders(1, 1, "New"), CrashMatrix.orders(2, 1, "New")));
    Path log = dir.resolve("child.log");
    Process child = CrashMatrix.startChild(List.of(), java.util.Map.of(), continuous(p), log);
    awaitLog(log, "silver orders: batch");

    child.destroy(); // SIGTERM
    assertThat(child.waitFor(5, TimeUnit.MINUTES)).as("stopped; log: %s", log).isTrue();

    assertThat(child.exitValue()).as(Files.readString(log)).isZero();
    assertThat(Files.readString(log))
        .containsPattern(
            "run orders: stopped \\(SIGTERM\\) after \\d+\\.\\d s \\| bronze: 1 batch\\(es\\), 2"
                + " row\\(s\\), table version \\d+ \\| silver: 1 batch\\(es\\), 2 row\\(s\\)");
    CliRunner.Outcome after = CliRunner.run("run", "--config", p.file().toString());
    assertThat(after.exitCode()).as(after.err()).isZero();
  }

  /**
   * The tables without what depends on how deliveries were grouped into batches: the run log, the
   * bronze version each silver row came from and the bronze batch each file went in (a continuous
   * bronze, or the restart after a kill, may commit two files at once where the scheduled runs
   * committed one each).
   */
  private static Map<String, List<String>> byContent(Map<String, List<String>> tables) {
    tables.remove("runs");
    tables.replaceAll(
        (name, rows) ->
            rows.stream()
                .map(r -> r.replaceAll("\"__bronze_version\":\\d+,", ""))
                .map(r -> r.replaceAll("\"batch_id\":\\d+,", ""))
                .toList());
    return tables;
  }

  @Test
  void killNineAtARandomMomentThenARestartEqualsAFaultFreeRun() throws Exception {
    List<List<String>> deliveries =
        List.of(
            List.of(CrashMatrix.orders(1, 1, "New"), CrashMatrix.orders(2, 1, "New")),
            List.of(CrashMatrix.orders(1, 2, "Shipped"), CrashMatrix.orders(1, 2, "Shipped")),
            List.of(CrashMatrix.delete(2, 2), CrashMatrix.orders(3, 1, "New")),
            List.of(CrashMatrix.orders(2, 1, "New"), CrashMatrix.orders(1, 1, "New")),
            List.of(CrashMatrix.orders(4, 1, null), CrashMatrix.orders(3, 2, "Paid")));

    CrashMatrix.Pipeline faultFree = CrashMatrix.create(spark, dir.resolve("fault-free"), SILVER);
    for (int i = 0; i < deliveries.size(); i++) {
      land(faultFree, i, deliveries.get(i));
      CliRunner.Outcome run = CliRunner.run("run", "--config", faultFree.file().toString());
      assertThat(run.exitCode()).as(run.err()).isZero();
    }

    CrashMatrix.Pipeline crashed = CrashMatrix.create(spark, dir.resolve("crashed"), SILVER);
    Path log = dir.resolve("killed.log");
    Process child = CrashMatrix.startChild(List.of(), java.util.Map.of(), continuous(crashed), log);
    land(crashed, 0, deliveries.get(0));
    awaitLog(log, "bronze orders: batch");
    // Deliveries keep landing; the kill comes at a random moment among them.
    int killAfter = 1 + ThreadLocalRandom.current().nextInt(deliveries.size() - 1);
    for (int i = 1; i < deliveries.size(); i++) {
      land(crashed, i, deliveries.get(i));
      Thread.sleep(ThreadLocalRandom.current().nextLong(500, 4000));
      if (i == killAfter) {
        child.destroyForcibly().waitFor(); // kill -9
      }
    }
    if (child.isAlive()) {
      child.destroyForcibly().waitFor();
    }
    // A kill in the middle of a lease renewal can leave a claim nobody can read: the restart then
    // exits 4 (retryable) until that claim has aged past its time to live, as a scheduler's
    // retries would find; any other exit is a failure.
    long giveUp = System.nanoTime() + Duration.ofMinutes(8).toNanos();
    CliRunner.Outcome restart = CliRunner.run("run", "--config", crashed.file().toString());
    while (restart.exitCode() == 4 && System.nanoTime() < giveUp) {
      Thread.sleep(10_000);
      restart = CliRunner.run("run", "--config", crashed.file().toString());
    }
    assertThat(restart.exitCode()).as(restart.err()).isZero();

    Map<String, List<String>> expected = byContent(CrashMatrix.tables(faultFree));
    Map<String, List<String>> actual = byContent(CrashMatrix.tables(crashed));
    assertThat(actual).as("killed after delivery %d; log: %s", killAfter, log).isEqualTo(expected);
    // Without applyAsDeletes an op DELETE row is an update like any other: four keys in silver.
    assertThat(expected.get("silver")).hasSize(4);
  }
}
