package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.silver.ops.KeySelection;
import io.replaysafe.silver.ops.Repair;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Silver after Delta's log cleanup removed bronze's first versions: a silver that paused past the
 * log's retention stops before it reads and says which versions are gone and why; a silver written
 * anew starts from bronze's current snapshot; repair reads the snapshot too.
 */
class BronzeRetentionTest extends SparkTestBase {
  private static final String CONTRACT =
      "keys: [order_id]\nsequenceBy: [source_version]\napplyAsDeletes: \"op = 'DELETE'\"\n"
          + "exceptColumnList: [op]\n";

  @TempDir Path dir;

  @Test
  void aSilverThatPausedPastTheLogRetentionStopsAndANewOneStartsFromTheSnapshot()
      throws IOException {
    SilverHarness p = new SilverHarness(spark, dir, SilverHarness.ORDERS_SCHEMA, CONTRACT);
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    p.run();
    String bronze = p.config.bronze().path();
    // A checkpoint with every commit, so that the log can lose its old commit files.
    spark.sql(
        "ALTER TABLE delta.`" + bronze + "` SET TBLPROPERTIES ('delta.checkpointInterval' = '1')");
    p.deliver(order(1, 2, "Shipped"));
    p.bronzeOnly();
    p.deliver(order(3, 1, "Created"), order(2, 2, "Paid"));
    p.bronzeOnly();
    long latest = io.replaysafe.common.spark.DeltaTables.latestVersion(spark, bronze);
    // Silver processed version 1 (the first delivery); what its log cleanup would leave.
    removeCommitsBefore(Path.of(bronze, "_delta_log"), latest);

    assertThatThrownBy(p::silverOnly)
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Cannot run silver for pipeline 'orders': silver's checkpoint "
                + p.config.requireSilver().checkpoint()
                + " processed bronze through version 1 and reads version 2 next, but the log of"
                + " bronze "
                + bronze
                + " holds versions from "
                + latest
                + " on: versions 2 to "
                + (latest - 1)
                + " were removed by Delta's log cleanup (delta.logRetentionDuration = interval"
                + " 30 days (Delta's default)), longer ago than silver last ran. Write silver"
                + " anew from bronze's current snapshot (a new silver.path and silver.checkpoint:"
                + " a new checkpoint over a cleaned log starts from the snapshot, and the erasures"
                + " beside bronze still apply), and set bronze's delta.logRetentionDuration longer"
                + " than silver's longest pause.");
    assertThat(p.silverRows()).containsExactly("1|1|Created", "2|1|Created");

    SilverHarness anew =
        new SilverHarness(spark, dir, "silver_anew", SilverHarness.ORDERS_SCHEMA, CONTRACT);
    anew.silverOnly();
    assertThat(anew.silverRows()).containsExactly("1|2|Shipped", "2|2|Paid", "3|1|Created");
    // And it goes on from there as any silver does.
    p.deliver(order(3, 2, "Paid")); // p numbers the shared landing directory's files
    anew.bronzeOnly();
    anew.silverOnly();
    assertThat(anew.silverRows()).containsExactly("1|2|Shipped", "2|2|Paid", "3|2|Paid");

    // Repair reads the keys' rows from bronze's snapshot, not the change feed since version 0.
    Repair.Outcome repaired =
        new Repair(anew.config, spark).execute(new KeySelection(List.of("1")));
    assertThat(repaired.after())
        .containsExactly("{\"order_id\":1,\"source_version\":2,\"status\":\"Shipped\"}");
  }

  /**
   * OPTIMIZE then VACUUM of bronze removes the files its first versions added, while its log still
   * begins at version 0: a silver written anew starts from the snapshot (the change feed from
   * version 0 would fail on the first missing file), and repair reads the snapshot.
   */
  @Test
  void aSilverWrittenAnewAndARepairWorkAfterBronzeWasOptimizedAndVacuumed() {
    SilverHarness p = new SilverHarness(spark, dir, SilverHarness.ORDERS_SCHEMA, CONTRACT);
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    p.bronzeOnly();
    p.deliver(order(1, 2, "Shipped"));
    p.bronzeOnly();
    p.deliver(order(3, 1, "Created"), order(2, 2, "Paid"));
    p.bronzeOnly();
    String bronze = p.config.bronze().path();
    spark.sql("OPTIMIZE delta.`" + bronze + "`");
    spark.conf().set("spark.databricks.delta.retentionDurationCheck.enabled", "false");
    try {
      spark.sql("VACUUM delta.`" + bronze + "` RETAIN 0 HOURS");
    } finally {
      spark.conf().unset("spark.databricks.delta.retentionDurationCheck.enabled");
    }
    assertThat(Path.of(bronze, "_delta_log", String.format("%020d.json", 0))).exists();

    p.silverOnly();

    assertThat(p.silverRows()).containsExactly("1|2|Shipped", "2|2|Paid", "3|1|Created");
    Repair.Outcome repaired = new Repair(p.config, spark).execute(new KeySelection(List.of("2")));
    assertThat(repaired.after())
        .containsExactly("{\"order_id\":2,\"source_version\":2,\"status\":\"Paid\"}");
  }

  private static void removeCommitsBefore(Path log, long version) throws IOException {
    try (Stream<Path> files = Files.list(log)) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        if (name.matches("\\d{20}\\.(json|crc)")
            && Long.parseLong(name.substring(0, 20)) < version) {
          Files.delete(f);
        }
        if (name.matches("\\.\\d{20}\\.(json|crc)\\.crc")
            && Long.parseLong(name.substring(1, 21)) < version) {
          Files.delete(f);
        }
      }
    }
  }
}
