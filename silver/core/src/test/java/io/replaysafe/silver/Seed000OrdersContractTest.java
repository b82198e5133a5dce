package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 000 ("A pipeline can finish successfully and still produce the wrong result after a retry"),
 * its example and every row of its "Tests to add before production" table, each through real
 * availableNow runs of bronze and silver.
 */
class Seed000OrdersContractTest extends SparkTestBase {
  @TempDir Path dir;

  SilverHarness pipeline() {
    return SilverHarness.orders(spark, dir, "");
  }

  @Test
  void theSeedExampleStoresTheLatestStateOfEachOrder() {
    SilverHarness p = pipeline();
    p.deliver(
        order(101, 1, "Created"),
        order(101, 2, "Shipped"),
        order(101, 2, "Shipped"),
        order(102, 1, "Created"));

    SilverResult result = p.run();

    assertThat(p.silverRows()).containsExactly("101|2|Shipped", "102|1|Created");
    assertThat(result.total(BatchReport::inputRows)).isEqualTo(4);
    assertThat(result.total(BatchReport::exactRetries)).isEqualTo(1);
    assertThat(result.total(BatchReport::supersededInBatch)).isEqualTo(1);
    assertThat(result.total(BatchReport::inserted)).isEqualTo(2);
  }

  @Test
  void repeatTheSameDelivery_noChangeToCurrentState() {
    SilverHarness p = pipeline();
    String[] delivery = {
      order(101, 1, "Created"), order(101, 2, "Shipped"), order(102, 1, "Created")
    };
    p.deliver(delivery);
    p.run();
    var before = p.silverContent();

    p.deliver(delivery); // the same events in another object
    SilverResult replay = p.run();

    assertThat(p.silverContent()).isEqualTo(before);
    assertThat(p.silverRows()).containsExactly("101|2|Shipped", "102|1|Created");
    assertThat(replay.total(BatchReport::inserted) + replay.total(BatchReport::updated)).isZero();
    assertThat(replay.total(BatchReport::exactRetries))
        .isEqualTo(2); // 101 v2 and 102 v1 equal stored
    assertThat(replay.total(BatchReport::supersededInBatch)).isEqualTo(1); // 101 v1 under v2
  }

  @Test
  void repeatARowWithinABatch_oneCandidateForThatOrder() {
    SilverHarness p = pipeline();
    p.deliver(order(101, 2, "Shipped"), order(101, 2, "Shipped"), order(101, 2, "Shipped"));

    SilverResult result = p.run();

    assertThat(p.silverRows()).containsExactly("101|2|Shipped");
    assertThat(result.batches())
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.exactRetries()).isEqualTo(2);
              assertThat(b.distinctKeys()).isEqualTo(1);
              assertThat(b.inserted()).isEqualTo(1);
            });
  }

  @Test
  void sendAnOlderVersionLater_keepTheNewerTargetVersion() {
    SilverHarness p = pipeline();
    p.deliver(order(101, 2, "Shipped"));
    p.run();

    p.deliver(order(101, 1, "Created"));
    SilverResult older = p.run();

    assertThat(p.silverRows()).containsExactly("101|2|Shipped");
    assertThat(older.total(BatchReport::olderIgnored)).isEqualTo(1);
    assertThat(older.notes())
        .containsExactly(
            new Note(
                Note.Kind.OLDER,
                "101",
                "1",
                "key 101 sequence 1: older than the stored version {\"source_version\":2},"
                    + " ignored"));
  }

  @Test
  void sendAGenuinelyNewerVersion_updateTheOrder() {
    SilverHarness p = pipeline();
    p.deliver(order(101, 1, "Created"));
    p.run();

    p.deliver(order(101, 2, "Shipped"));
    SilverResult newer = p.run();

    assertThat(p.silverRows()).containsExactly("101|2|Shipped");
    assertThat(newer.total(BatchReport::updated)).isEqualTo(1);
  }

  @Test
  void sendConflictingPayloadsForOneVersionInABatch_rejectTheBatch() {
    SilverHarness p = pipeline();
    p.deliver(order(102, 1, "Created"));
    p.run();
    String file =
        p.deliver(order(101, 2, "Shipped"), order(101, 2, "Cancelled"), order(102, 2, "Paid"));

    assertThatThrownBy(p::run)
        .isInstanceOf(BatchRejectedException.class)
        .hasMessageStartingWith(
            "Cannot merge batch 1 into silver "
                + dir.resolve("silver")
                + ": onConflict is fail and the same key and sequence carry different payloads.")
        .hasMessageContaining("key 101 sequence 2 has 2 different payloads in batch 1 (hashes ")
        // Each row by key, sequence, hash and file; its values stay out (evidence.showValues).
        .satisfies(
            e ->
                assertThat(
                        e.getMessage()
                            .lines()
                            .filter(l -> l.startsWith("    key 101 sequence 2 hash ")))
                    .hasSize(2)
                    .allMatch(l -> l.endsWith(" in file:" + dir.resolve("landing").resolve(file))))
        .hasMessageNotContaining("Cancelled")
        .hasMessageNotContaining("Shipped");
    // Nothing was written: not even the valid 102 v2 of the same batch.
    assertThat(p.silverRows()).containsExactly("102|1|Created");
    assertThat(p.runs().where("status = 'REJECTED'").count()).isEqualTo(1);
    // The checkpoint did not advance: the same batch is rejected again on the next run.
    assertThatThrownBy(p::silverOnly).isInstanceOf(BatchRejectedException.class);
    assertThat(p.silverRows()).containsExactly("102|1|Created");
  }

  @Test
  void sendANullKeyOrVersion_rejectTheBatch() {
    SilverHarness p = pipeline();
    String file =
        p.deliver(
            order(101, 1, "Created"),
            "{\"order_id\":null,\"source_version\":1,\"status\":\"Created\"}",
            "{\"order_id\":103,\"status\":\"Created\"}");

    assertThatThrownBy(p::run)
        .isInstanceOf(BatchRejectedException.class)
        .hasMessageStartingWith(
            "Cannot apply batch 0 to silver "
                + dir.resolve("silver")
                + ": 2 invalid row(s) and onInvalid is fail.")
        .hasMessageContaining(
            "INVALID_NULL_KEY: key column 'order_id' is null (missing or not convertible) in file:"
                + dir.resolve("landing").resolve(file))
        .hasMessageContaining(
            "INVALID_NULL_SEQUENCE: sequence column 'source_version' is null in file:");
    assertThat(p.silverRows()).isEmpty();
  }
}
