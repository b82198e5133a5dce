package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.delete;
import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * silver.tombstoneRetention: a tombstone older than the retention is purged at the end of a run
 * (counted in the run's result), a younger one is kept, and a run that purges nothing leaves the
 * tombstone table's version as it was.
 */
class TombstoneRetentionTest extends SparkTestBase {
  @TempDir Path dir;

  private static final String CONTRACT =
      "keys: [order_id]\nsequenceBy: [source_version]\napplyAsDeletes: \"op = 'DELETE'\"\n"
          + "exceptColumnList: [op]\n";

  private SilverHarness withRetention(SilverHarness from, String retention) {
    String silver = CONTRACT + "tombstoneRetention: " + retention + "\n";
    return from == null
        ? new SilverHarness(spark, dir, SilverHarness.ORDERS_SCHEMA, silver)
        : from.evolved(SilverHarness.ORDERS_SCHEMA, silver);
  }

  private long tombstoneVersion(SilverHarness p) {
    return DeltaTable.forPath(spark, p.config.requireSilver().path() + "_tombstones")
        .history(1)
        .head()
        .getLong(0);
  }

  @Test
  void aTombstoneIsPurgedOnlyOnceOlderThanTheRetention() throws InterruptedException {
    SilverHarness kept = withRetention(null, "30 days");
    kept.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    kept.run();
    kept.deliver(delete(1, 2));
    SilverResult deleted = kept.run();
    assertThat(deleted.purgedTombstones()).isZero();
    assertThat(rows(kept.tombstones().select("order_id", "source_version"))).containsExactly("1|2");

    long version = tombstoneVersion(kept);
    SilverResult nothingToPurge = kept.run();
    assertThat(nothingToPurge.purgedTombstones()).isZero();
    assertThat(tombstoneVersion(kept))
        .as("a DELETE that removes nothing commits nothing")
        .isEqualTo(version);

    Thread.sleep(1_100);
    SilverHarness short_ = withRetention(kept, "1 second");
    SilverResult purged = short_.run();
    assertThat(purged.purgedTombstones()).isEqualTo(1);
    assertThat(short_.tombstones().count()).isZero();
    assertThat(short_.silverRows()).containsExactly("2|1|Created");
  }
}
