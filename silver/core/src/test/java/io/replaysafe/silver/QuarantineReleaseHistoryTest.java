package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.silver.ops.QuarantineOps;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Encoders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quarantine release} on a history table (storedAsScdType 2): the released version takes the
 * place its sequence gives it among the key's events, replacing the stored event at that sequence,
 * and the key's history is rebuilt around it, also after a column was added.
 */
class QuarantineReleaseHistoryTest extends SparkTestBase {
  private static final String SILVER =
      "keys: [order_id]\nsequenceBy: [source_version]\nexceptColumnList: [op]\n"
          + "onConflict: quarantine\nstoredAsScdType: 2\n";

  @TempDir Path dir;

  @Test
  void aReleasedVersionReplacesTheStoredOneAtItsSequenceAndClosesWhereTheNextBegins() {
    SilverHarness p = new SilverHarness(spark, dir, SilverHarness.ORDERS_SCHEMA, SILVER);
    p.deliver(order(1, 1, "Created"), order(1, 2, "Paid"), order(1, 3, "Shipped"));
    p.run();
    // Another payload at a stored sequence (with the target), and two at one sequence (in batch).
    p.deliver(order(1, 2, "Refunded"), order(2, 1, "A"), order(2, 1, "B"));
    p.run();
    assertThat(rows(p.quarantine().orderBy("key", "raw_payload").select("key", "reason")))
        .containsExactly(
            "{\"order_id\":1}|CONFLICT_WITH_TARGET",
            "{\"order_id\":2}|CONFLICT_IN_BATCH",
            "{\"order_id\":2}|CONFLICT_IN_BATCH");
    // A column added since: the release still finds the rows in bronze by their identity.
    SilverHarness after = p.evolved(SilverHarness.ORDERS_SCHEMA + ", coupon STRING", SILVER);
    after.run();

    QuarantineOps.Released released =
        new QuarantineOps(after.config, spark)
            .release(idsOf(after, "Refunded", "\"B\""), "ana@example.com", "producer confirmed");

    assertThat(released.released()).isEqualTo(2);
    assertThat(released.leftOpen()).isEmpty();
    assertThat(history(after))
        .containsExactly(
            "1|1|Created|1|2", "1|2|Refunded|2|3", "1|3|Shipped|3|null", "2|1|B|1|null");
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(after.config.requireSilver().path() + "_events")
                    .where("order_id = 1")
                    .orderBy("source_version")
                    .select("source_version", "status")))
        .containsExactly("1|Created", "2|Refunded", "3|Shipped");
    assertThat(rows(after.quarantine().orderBy("status").select("status")))
        .containsExactly("OPEN", "RELEASED", "RELEASED");

    // A late event before the released one is placed before it, as any late event is.
    after.deliver(order(2, 0, "Early"));
    after.run();
    assertThat(history(after)).contains("2|0|Early|0|1", "2|1|B|1|null");
  }

  private static List<String> history(SilverHarness p) {
    return rows(
        p.silver()
            .selectExpr("order_id", "source_version", "status", "__START_AT", "__END_AT")
            .orderBy("order_id", "__START_AT"));
  }

  private static List<String> idsOf(SilverHarness p, String... payloadParts) {
    List<String> ids = new java.util.ArrayList<>();
    for (String part : payloadParts) {
      ids.addAll(
          p.quarantine()
              .where(org.apache.spark.sql.functions.col("raw_payload").contains(part))
              .select("quarantine_id")
              .as(Encoders.STRING())
              .collectAsList());
    }
    return ids;
  }
}
