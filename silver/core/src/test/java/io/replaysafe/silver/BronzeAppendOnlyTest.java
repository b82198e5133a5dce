package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bronze is append-only by contract: silver reads only the inserts of its change feed, and an
 * update or delete committed to bronze stops silver (or is skipped, when the pipeline opts in).
 */
// Slow (bronze rewritten between runs); runs in .ci/run with -Pslow.
@Tag("slow")
class BronzeAppendOnlyTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void anUpdateOnBronzeStopsSilverNamingTheVersionAndTheWayOut() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    p.run();
    String bronze = dir.resolve("bronze").toString();
    spark.sql("UPDATE delta.`" + bronze + "` SET status = 'Erased' WHERE order_id = 1");

    assertThatThrownBy(p::silverOnly)
        .isInstanceOf(BatchRejectedException.class)
        .hasMessage(
            "Cannot apply batch 1 to silver "
                + dir.resolve("silver")
                + ": bronze "
                + bronze
                + " version 2 holds 2 change row(s) that are not inserts (change type"
                + " update_preimage), and bronze is append-only by contract: an UPDATE, DELETE or"
                + " MERGE on bronze would reach silver as conflicting or resurrected events."
                + " Nothing was written and the silver checkpoint did not advance. Undo the change"
                + " (RESTORE TABLE delta.`"
                + bronze
                + "` TO VERSION AS OF 1) and run again, or set silver.ignoreBronzeChanges: true to"
                + " skip bronze's updates and deletes (silver keeps what it applied; deliver a"
                + " delete event to remove a key).");
    assertThat(p.silverRows()).containsExactly("1|1|Created", "2|1|Created");
    assertThat(p.quarantine().count()).isZero();
  }

  @Test
  void withIgnoreBronzeChangesSilverSkipsUpdatesAndDeletesOfBronze() {
    SilverHarness p = SilverHarness.orders(spark, dir, "ignoreBronzeChanges: true\n");
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    p.run();
    String bronze = dir.resolve("bronze").toString();
    spark.sql("UPDATE delta.`" + bronze + "` SET status = 'Erased' WHERE order_id = 1");
    spark.sql("DELETE FROM delta.`" + bronze + "` WHERE order_id = 2");
    p.deliver(order(1, 2, "Shipped"));

    p.run();

    assertThat(p.silverRows()).containsExactly("1|2|Shipped", "2|1|Created");
    assertThat(p.quarantine().count()).isZero();
  }
}
