package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.delete;
import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * History tables (storedAsScdType: 2) with AUTO CDC's semantics: versions as intervals [__START_AT,
 * __END_AT), late events placed in the past, deletes closing versions, and replays changing
 * nothing. Rows read "order_id|source_version|status|__START_AT|__END_AT".
 */
class HistoryScd2Test extends SparkTestBase {
  @TempDir Path dir;

  SilverHarness history(String extra) {
    return SilverHarness.orders(spark, dir, "storedAsScdType: 2\n" + extra);
  }

  List<String> historyRows(SilverHarness p) {
    return rows(
        p.silver()
            .selectExpr("order_id", "source_version", "status", "__START_AT", "__END_AT")
            .orderBy("order_id", "__START_AT"));
  }

  @Test
  void inOrderUpdatesOpenAVersionEach() {
    SilverHarness p = history("");
    p.deliver(order(1, 1, "Created"), order(1, 2, "Paid"));
    p.run();
    p.deliver(order(1, 3, "Shipped"), order(2, 1, "Created"));
    p.run();

    assertThat(historyRows(p))
        .containsExactly(
            "1|1|Created|1|2", "1|2|Paid|2|3", "1|3|Shipped|3|null", "2|1|Created|1|null");
  }

  @Test
  void aLateEventInsideAnIntervalSplitsIt() {
    SilverHarness p = history("");
    p.deliver(order(1, 1, "Created"), order(1, 5, "Shipped"));
    p.run();

    p.deliver(order(1, 3, "Paid"));
    SilverResult late = p.run();

    assertThat(historyRows(p))
        .containsExactly("1|1|Created|1|3", "1|3|Paid|3|5", "1|5|Shipped|5|null");
    assertThat(late.total(BatchReport::inserted)).isEqualTo(1);
    assertThat(late.total(BatchReport::updated)).isEqualTo(1);
  }

  @Test
  void aLateEventOlderThanEveryVersionBecomesTheFirst() {
    SilverHarness p = history("");
    p.deliver(order(1, 4, "Paid"));
    p.run();

    p.deliver(order(1, 2, "Created"));
    p.run();

    assertThat(historyRows(p)).containsExactly("1|2|Created|2|4", "1|4|Paid|4|null");
  }

  @Test
  void aDeleteClosesTheVersionAndALateOlderUpdateIsPlacedBeforeItWithoutReopening() {
    SilverHarness p = history("");
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    p.run();
    p.deliver(delete(1, 5));
    p.run();
    assertThat(historyRows(p)).containsExactly("1|1|Created|1|5", "2|1|Created|1|null");

    p.deliver(order(1, 3, "Paid")); // older than the delete
    p.run();

    assertThat(historyRows(p))
        .containsExactly("1|1|Created|1|3", "1|3|Paid|3|5", "2|1|Created|1|null");
  }

  @Test
  void aNewerInsertAfterADeleteOpensANewVersion() {
    SilverHarness p = history("");
    p.deliver(order(1, 1, "Created"), delete(1, 2));
    p.run();
    assertThat(historyRows(p)).containsExactly("1|1|Created|1|2");

    p.deliver(order(1, 4, "Recreated"));
    p.run();

    assertThat(historyRows(p)).containsExactly("1|1|Created|1|2", "1|4|Recreated|4|null");
  }

  @Test
  // Slow (replays every earlier batch, about 25 s). In the suite, a history table's batches are
  // replayed by InterruptedBatchTest's rerun from a deleted checkpoint.
  @Tag("slow")
  void replayingEveryEarlierBatchChangesNothing() {
    SilverHarness p = history("");
    String[] first = {order(1, 1, "Created"), order(2, 1, "Created")};
    String[] second = {order(1, 3, "Shipped"), delete(2, 2)};
    String[] third = {order(1, 2, "Paid")};
    p.deliver(first);
    p.run();
    p.deliver(second);
    p.run();
    p.deliver(third);
    p.run();
    List<String> before = historyRows(p);
    List<String> content = p.silverContent();

    p.deliver(third);
    p.deliver(first);
    p.deliver(second);
    SilverResult replay = p.run();

    assertThat(historyRows(p))
        .isEqualTo(before)
        .containsExactly(
            "1|1|Created|1|2", "1|2|Paid|2|3", "1|3|Shipped|3|null", "2|1|Created|1|2");
    assertThat(p.silverContent()).isEqualTo(content);
    assertThat(replay.total(BatchReport::inserted) + replay.total(BatchReport::updated)).isZero();
    assertThat(replay.total(BatchReport::exactRetries)).isEqualTo(5);
  }

  @Test
  void anExactRetryNeverCreatesAVersion() {
    SilverHarness p = history("");
    p.deliver(order(1, 1, "Created"), order(1, 1, "Created"));
    p.run();
    p.deliver(order(1, 1, "Created"));
    p.run();

    assertThat(historyRows(p)).containsExactly("1|1|Created|1|null");
  }

  @Test
  void aChangeConfinedToUntrackedColumnsUpdatesTheCurrentVersionInPlace() {
    SilverHarness p =
        new SilverHarness(
            spark,
            dir,
            "order_id BIGINT, source_version BIGINT, status STRING, note STRING",
            "keys: [order_id]\nsequenceBy: [source_version]\nstoredAsScdType: 2\n"
                + "trackHistoryExceptColumnList: [note]\n");
    p.deliver(
        "{\"order_id\":1,\"source_version\":1,\"status\":\"Created\",\"note\":\"a\"}",
        "{\"order_id\":1,\"source_version\":2,\"status\":\"Created\",\"note\":\"b\"}",
        "{\"order_id\":1,\"source_version\":3,\"status\":\"Paid\",\"note\":\"b\"}");

    p.run();

    assertThat(
            rows(
                p.silver()
                    .selectExpr("source_version", "status", "note", "__START_AT", "__END_AT")
                    .orderBy("__START_AT")))
        .containsExactly("2|Created|b|1|3", "3|Paid|b|3|null");
  }

  @Test
  void nullUpdatesKeepTheStoredValueWhenIgnoreNullUpdates() {
    SilverHarness p =
        new SilverHarness(
            spark,
            dir,
            "order_id BIGINT, source_version BIGINT, status STRING, city STRING",
            "keys: [order_id]\nsequenceBy: [source_version]\nstoredAsScdType: 2\n"
                + "ignoreNullUpdates: true\n");
    p.deliver(
        "{\"order_id\":1,\"source_version\":1,\"status\":\"Created\",\"city\":\"Oslo\"}",
        "{\"order_id\":1,\"source_version\":2,\"status\":\"Paid\",\"city\":null}");

    p.run();

    assertThat(
            rows(
                p.silver()
                    .selectExpr("status", "city", "__START_AT", "__END_AT")
                    .orderBy("__START_AT")))
        .containsExactly("Created|Oslo|1|2", "Paid|Oslo|2|null");
  }

  @Test
  void severalSequenceColumnsBreakTiesAndBecomeAStructInterval() {
    SilverHarness p =
        new SilverHarness(
            spark,
            dir,
            "order_id BIGINT, epoch INT, seq BIGINT, status STRING",
            "keys: [order_id]\nsequenceBy: [epoch, seq]\nstoredAsScdType: 2\n");
    p.deliver(
        "{\"order_id\":1,\"epoch\":2,\"seq\":1,\"status\":\"Reissued\"}",
        "{\"order_id\":1,\"epoch\":1,\"seq\":9,\"status\":\"Created\"}");

    p.run();

    assertThat(
            rows(p.silver().selectExpr("status", "__START_AT", "__END_AT").orderBy("__START_AT")))
        .containsExactly("Created|[1,9]|[2,1]", "Reissued|[2,1]|null");
  }

  @Test
  void aConflictWithAStoredEventFollowsOnConflict() {
    SilverHarness p = history("");
    p.deliver(order(1, 1, "Created"), order(1, 2, "Paid"));
    p.run();

    p.deliver(order(1, 1, "Cancelled")); // contradicts the stored event at sequence 1
    assertThatThrownBy(p::run)
        .isInstanceOf(BatchRejectedException.class)
        .hasMessageContaining(
            "key 1 sequence 1 differs from the stored version at the same sequence");
    assertThat(historyRows(p)).containsExactly("1|1|Created|1|2", "1|2|Paid|2|null");
  }
}
