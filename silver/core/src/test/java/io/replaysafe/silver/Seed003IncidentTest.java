package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.delete;
import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 003's incident: a MERGE that failed on several events per key, went stale on a retry of an
 * older batch, and kept a deleted order.
 */
class Seed003IncidentTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void severalEventsPerKeyInOneMicroBatchMergeWithoutAMultipleMatchError() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"));
    p.run();
    p.deliver(
        order(1, 2, "Paid"),
        order(1, 3, "Shipped"),
        order(1, 4, "Delivered"),
        order(2, 1, "Created"),
        order(2, 2, "Paid"));

    SilverResult result = p.run();

    assertThat(p.silverRows()).containsExactly("1|4|Delivered", "2|2|Paid");
    assertThat(result.batches())
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.updated()).isEqualTo(1);
              assertThat(b.inserted()).isEqualTo(1);
              assertThat(b.supersededInBatch()).isEqualTo(3);
            });
  }

  @Test
  void aReplayedOlderBatchLeavesNoStaleState() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    String[] older = {order(1, 1, "Created"), order(2, 1, "Created")};
    p.deliver(older);
    p.run();
    p.deliver(order(1, 5, "Shipped"), order(2, 3, "Cancelled"));
    p.run();

    p.deliver(older); // the manual retry of the older batch
    SilverResult retry = p.run();

    assertThat(p.silverRows()).containsExactly("1|5|Shipped", "2|3|Cancelled");
    assertThat(retry.total(BatchReport::olderIgnored)).isEqualTo(2);
  }

  @Test
  void aDeleteRemovesTheRowAndAnOlderInsertNeverResurrectsIt() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(7, 1, "Created"), order(8, 1, "Created"));
    p.run();

    p.deliver(delete(7, 2));
    SilverResult deleted = p.run();
    assertThat(p.silverRows()).containsExactly("8|1|Created");
    assertThat(deleted.total(BatchReport::deleted)).isEqualTo(1);
    assertThat(rows(p.tombstones().select("order_id", "source_version"))).containsExactly("7|2");

    p.deliver(order(7, 1, "Created")); // an older insert arrives late
    SilverResult late = p.run();
    assertThat(p.silverRows()).containsExactly("8|1|Created");
    assertThat(late.total(BatchReport::olderIgnored)).isEqualTo(1);

    p.deliver(order(7, 3, "Recreated")); // a newer insert does revive it
    p.run();
    assertThat(p.silverRows()).containsExactly("7|3|Recreated", "8|1|Created");
    assertThat(p.tombstones().count()).isZero();

    // The tombstone table is empty again, which its checksum tells, so a batch no longer reads
    // it: the live row alone guards the key against the late delete and the late older insert,
    // and an exact retry of the stored row is still recognised as one.
    p.deliver(delete(7, 2));
    SilverResult lateDelete = p.run();
    p.deliver(order(7, 2, "Paid"), order(7, 3, "Recreated"));
    SilverResult lateInsert = p.run();
    assertThat(p.silverRows()).containsExactly("7|3|Recreated", "8|1|Created");
    assertThat(p.tombstones().count()).isZero();
    assertThat(lateDelete.total(BatchReport::olderIgnored)).isEqualTo(1);
    assertThat(lateDelete.total(BatchReport::deleted)).isZero();
    assertThat(lateInsert.total(BatchReport::exactRetries)).isEqualTo(1);
    assertThat(lateInsert.total(BatchReport::updated)).isZero();
  }

  @Test
  void aDeleteAndAnOlderInsertInTheSameBatchLeaveTheKeyDeleted() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(delete(9, 2), order(9, 1, "Created"));

    p.run();

    assertThat(p.silverRows()).isEmpty();
    assertThat(rows(p.tombstones().select("order_id", "source_version"))).containsExactly("9|2");

    p.deliver(order(9, 1, "Created"));
    p.run();
    assertThat(p.silverRows()).isEmpty();
  }
}
