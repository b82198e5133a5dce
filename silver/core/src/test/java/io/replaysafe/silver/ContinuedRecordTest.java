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
 * A history table's continued records give one answer however the events are batched: a record's
 * untracked columns, the stored sequence among them, show the latest event inside its span. Each
 * example runs in every batching of its events ({@link Batchings}: the one-batch run, each event in
 * a run of its own in every order, ...), each batching with a key of its own in one pipeline. Rows
 * read "name|score|seq|__START_AT|__END_AT"; the contract is the one of issue 31 (the sequence
 * column is stored, no payload column is untracked).
 */
class ContinuedRecordTest extends SparkTestBase {
  static final String SCHEMA =
      "id BIGINT, name STRING, score BIGINT, seq BIGINT, is_delete BOOLEAN";

  static final String HISTORY =
      "keys: [id]\nsequenceBy: [seq]\npayloadColumns: [name, score, is_delete]\n"
          + "applyAsDeletes: \"is_delete = true\"\nexceptColumnList: [is_delete]\n"
          + "storedAsScdType: 2\n";

  @TempDir Path dir;

  static LongFunction<String> upsert(String name, long score, long seq) {
    return id ->
        "{\"id\":"
            + id
            + ",\"name\":\""
            + name
            + "\",\"score\":"
            + score
            + ",\"seq\":"
            + seq
            + ",\"is_delete\":false}";
  }

  List<String> history(SilverHarness p, long id) {
    return rows(
        p.silver()
            .where("id = " + id)
            .selectExpr("name", "score", "seq", "__START_AT", "__END_AT")
            .orderBy("__START_AT"));
  }

  void assertEveryBatching(List<LongFunction<String>> events, String... expected) {
    SilverHarness p = new SilverHarness(spark, dir, SCHEMA, HISTORY);
    Batchings batchings = new Batchings(events);
    batchings.deliver(p, List.of(p));
    for (int b = 0; b < batchings.batchings.size(); b++) {
      assertThat(history(p, Batchings.key(b)))
          .as("batching %s", batchings.describe(b))
          .containsExactly(expected);
    }
  }

  @Test
  void aContinuationShowsItselfInTheOpenRecordInEveryBatching() {
    // One batch, seq 10 then seq 20 in two runs, or seq 20 first: the same open record.
    assertEveryBatching(
        List.of(upsert("alice", 100, 10), upsert("alice", 100, 20)), "alice|100|20|10|null");
  }

  @Test
  void aLateContinuationInsideAClosedRecordUpdatesItInEveryBatching() {
    assertEveryBatching(
        List.of(upsert("alice", 100, 10), upsert("bob", 100, 30), upsert("alice", 100, 20)),
        "alice|100|20|10|30",
        "bob|100|30|30|null");
  }

  @Test
  // Slow (4 events: 75 batchings over 4 runs, about 50 s); the other three cases stay in the suite.
  @Tag("slow")
  void aLateContinuationBehindALaterOneInTheSpanLeavesTheRecordInEveryBatching() {
    assertEveryBatching(
        List.of(
            upsert("alice", 100, 10),
            upsert("alice", 100, 25),
            upsert("bob", 100, 30),
            upsert("alice", 100, 20)),
        "alice|100|25|10|30",
        "bob|100|30|30|null");
  }

  @Test
  void aContinuationInALaterRunIsAnUpdatedRecordAndItsRetryChangesNothing() {
    SilverHarness p = new SilverHarness(spark, dir, SCHEMA, HISTORY);
    p.deliver(upsert("alice", 100, 10).apply(2));
    p.run();
    String continuation = upsert("alice", 100, 20).apply(2);
    String file = p.deliver(continuation);

    SilverResult continued = p.run();
    p.deliver(continuation);
    SilverResult retried = p.run();

    assertThat(history(p, 2)).containsExactly("alice|100|20|10|null");
    assertThat(rows(p.silver().selectExpr("__source_file")))
        .singleElement()
        .asString()
        .endsWith(file);
    assertThat(continued.total(BatchReport::inserted)).isZero();
    assertThat(continued.total(BatchReport::updated)).isEqualTo(1);
    assertThat(retried.total(BatchReport::exactRetries)).isEqualTo(1);
    assertThat(retried.total(BatchReport::inserted) + retried.total(BatchReport::updated)).isZero();
  }
}
