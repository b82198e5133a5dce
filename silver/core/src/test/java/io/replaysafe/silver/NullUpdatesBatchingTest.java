package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ignoreNullUpdates} gives one answer however the events are batched: a null keeps the value
 * the key had just before the event, and a delete ends the key, so an upsert after it starts from
 * nulls. Current state and a history table read the same bronze; history is checked in every
 * batching of the events, current state in every batching that delivers them in sequence order (it
 * keeps no events, so a late event older than its row is ignored as older). Current rows read
 * "name|score|seq", history rows "name|score|seq|__START_AT|__END_AT".
 */
class NullUpdatesBatchingTest extends SparkTestBase {
  static final String CONTRACT =
      "keys: [id]\nsequenceBy: [seq]\napplyAsDeletes: \"is_delete = true\"\n"
          + "exceptColumnList: [is_delete]\nignoreNullUpdates: true\n";

  @TempDir Path dir;

  static LongFunction<String> upsert(String name, long score, long seq) {
    return id ->
        "{\"id\":"
            + id
            + ",\"name\":"
            + (name == null ? "null" : "\"" + name + "\"")
            + ",\"score\":"
            + score
            + ",\"seq\":"
            + seq
            + ",\"is_delete\":false}";
  }

  static LongFunction<String> delete(long seq) {
    return id -> "{\"id\":" + id + ",\"seq\":" + seq + ",\"is_delete\":true}";
  }

  /**
   * Delivers {@code events} (listed in sequence order) in every batching and checks each key's
   * current row ({@code current}) and history ({@code history}).
   */
  void assertEveryBatching(List<LongFunction<String>> events, String current, String... history) {
    SilverHarness currentState =
        new SilverHarness(spark, dir, "current", ContinuedRecordTest.SCHEMA, CONTRACT);
    SilverHarness historyTable =
        new SilverHarness(
            spark, dir, "history", ContinuedRecordTest.SCHEMA, CONTRACT + "storedAsScdType: 2\n");
    Batchings batchings = new Batchings(events);
    batchings.deliver(currentState, List.of(currentState, historyTable));
    for (int b = 0; b < batchings.batchings.size(); b++) {
      long id = Batchings.key(b);
      assertThat(
              rows(
                  historyTable
                      .silver()
                      .where("id = " + id)
                      .selectExpr("name", "score", "seq", "__START_AT", "__END_AT")
                      .orderBy("__START_AT")))
          .as("history, batching %s", batchings.describe(b))
          .containsExactly(history);
      if (batchings.inSequenceOrder(b)) {
        assertThat(
                rows(currentState.silver().where("id = " + id).selectExpr("name", "score", "seq")))
            .as("current state, batching %s", batchings.describe(b))
            .containsExactly(current);
      }
    }
  }

  @Test
  // Slow (every batching of 4 events, about 30 s); the case below stays in the suite.
  @Tag("slow")
  void aDeleteBetweenTheStoredValueAndANullUpdateLeavesTheNull() {
    // Stored x, then [delete@20, null name@30] in one batch or in two: the name is null.
    assertEveryBatching(
        List.of(upsert("x", 1, 10), delete(20), upsert(null, 3, 30)),
        "null|3|30",
        "x|1|10|10|20",
        "null|3|30|30|null");
  }

  @Test
  void aNullUpdateKeepsTheValueOfTheLatestEarlierUpsertInTheBatch() {
    // Stored x, then [y@20, null name@30] in one batch or in two: the name is y.
    assertEveryBatching(
        List.of(upsert("x", 1, 10), upsert("y", 2, 20), upsert(null, 3, 30)),
        "y|3|30",
        "x|1|10|10|20",
        "y|2|20|20|30",
        "y|3|30|30|null");
  }
}
