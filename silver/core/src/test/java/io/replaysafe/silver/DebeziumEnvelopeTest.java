package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Debezium PostgreSQL feed as a Kafka Connect S3 sink lands it (JSON converter, schemas off, one
 * change event per line, a Kafka tombstone written as {@code null}), through derived columns: the
 * issue's pipeline file, every kind of event Debezium documents, at-least-once redelivery, and the
 * contract's guarantees (exact retries, conflicts quarantined, state never backwards, tombstones).
 * Rows read "id|lsn|status|total|notes", ordered by id.
 */
class DebeziumEnvelopeTest extends SparkTestBase {
  /** The value schema of a Debezium PostgreSQL change event for table public.orders. */
  static final String ENVELOPE =
      "before STRUCT<id: BIGINT, status: STRING, total: DECIMAL(10,2), notes: STRING>,"
          + " after STRUCT<id: BIGINT, status: STRING, total: DECIMAL(10,2), notes: STRING>,"
          + " source STRUCT<version: STRING, connector: STRING, name: STRING, ts_ms: BIGINT,"
          + " snapshot: STRING, db: STRING, sequence: STRING, `schema`: STRING, `table`: STRING,"
          + " txId: BIGINT, lsn: BIGINT, xmin: BIGINT>,"
          + " op STRING, ts_ms BIGINT,"
          + " transaction STRUCT<id: STRING, total_order: BIGINT, data_collection_order: BIGINT>";

  /** The contract, with the toasted-column marker mapped to null. */
  static final String COLUMNS =
      """
      columns:
        id: "coalesce(after.id, before.id)"
        lsn: "source.lsn"
        status: "after.status"
        total: "after.total"
        notes: "nullif(after.notes, '__debezium_unavailable_value')"
        op: "op"
      keys: [id]
      sequenceBy: [lsn]
      applyAsDeletes: "op = 'd'"
      """;

  static final String SCD1 =
      COLUMNS + "applyAsTruncates: \"op = 't'\"\ncolumnList: [id, status, total, notes]\n";

  @TempDir Path dir;

  /** Debezium's row image: {@code {"id":1,"status":"new","total":10.50,"notes":"n"}}. */
  static String row(long id, String status, String total, String notes) {
    return "{\"id\":"
        + id
        + ",\"status\":"
        + quoted(status)
        + ",\"total\":"
        + total
        + ",\"notes\":"
        + quoted(notes)
        + "}";
  }

  /** The key-only image of a delete under REPLICA IDENTITY DEFAULT. */
  static String keyOnly(long id) {
    return "{\"id\":" + id + ",\"status\":null,\"total\":null,\"notes\":null}";
  }

  /**
   * A change event as Debezium documents it for PostgreSQL: before, after, source (with the LSN),
   * op, ts_ms (when the connector processed it: another value on each re-emission) and transaction.
   */
  static String event(String op, String before, String after, long lsn, long tsMs) {
    String snapshot = op.equals("r") ? "true" : "false";
    return "{\"before\":"
        + before
        + ",\"after\":"
        + after
        + ",\"source\":{\"version\":\"2.7.3.Final\",\"connector\":\"postgresql\",\"name\":\"shop\","
        + "\"ts_ms\":1700000000000,\"snapshot\":\""
        + snapshot
        + "\",\"db\":\"shop\",\"sequence\":\"[null,\\\""
        + lsn
        + "\\\"]\",\"schema\":\"public\",\"table\":\"orders\",\"txId\":"
        + (500 + lsn)
        + ",\"lsn\":"
        + lsn
        + ",\"xmin\":null},\"op\":\""
        + op
        + "\",\"ts_ms\":"
        + tsMs
        + ",\"transaction\":null}";
  }

  static String read(long id, String status, long lsn) {
    return event("r", "null", row(id, status, "10.50", "first"), lsn, 1);
  }

  static String create(long id, String status, String total, long lsn) {
    return event("c", "null", row(id, status, total, "first"), lsn, 1);
  }

  /** An update under REPLICA IDENTITY DEFAULT: {@code before} is null. */
  static String update(long id, String status, String total, String notes, long lsn) {
    return event("u", "null", row(id, status, total, notes), lsn, 1);
  }

  static String delete(long id, long lsn) {
    return event("d", keyOnly(id), "null", lsn, 1);
  }

  static String truncate(long lsn) {
    return "{\"before\":null,\"after\":null,\"source\":{\"version\":\"2.7.3.Final\","
        + "\"connector\":\"postgresql\",\"name\":\"shop\",\"ts_ms\":1700000000000,"
        + "\"snapshot\":\"false\",\"db\":\"shop\",\"sequence\":null,\"schema\":\"public\","
        + "\"table\":\"orders\",\"txId\":900,\"lsn\":"
        + lsn
        + ",\"xmin\":null},\"op\":\"t\",\"ts_ms\":1,\"transaction\":null}";
  }

  /** The same event re-emitted after a connector restart: only the envelope's ts_ms differs. */
  static String reemitted(String event) {
    return event.replaceFirst("\"ts_ms\":1,\"transaction\"", "\"ts_ms\":999,\"transaction\"");
  }

  /** A Kafka tombstone as the S3 sink writes it (behavior.on.null.values=write). */
  static final String KAFKA_TOMBSTONE = "null";

  private static String quoted(String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }

  private SilverHarness pipeline(String contract) {
    return new SilverHarness(spark, dir, ENVELOPE, contract);
  }

  @Test
  void snapshotCreatesUpdatesDeletesAndTheirRedeliveryInAnotherFile() {
    SilverHarness p = pipeline(SCD1);
    String[] events = {
      read(1, "new", 10),
      read(2, "new", 11),
      create(3, "new", "7.25", 20),
      update(1, "paid", "10.50", "first", 30),
      delete(2, 40),
      KAFKA_TOMBSTONE
    };
    p.deliver(events);
    SilverResult first = p.run();

    assertThat(p.silverRows()).containsExactly("1|30|paid|10.50|first", "3|20|new|7.25|first");
    assertThat(first.total(BatchReport::inputRows)).isEqualTo(6);
    // Under onInvalid: fail (the default), the tombstone line did not reject the batch.
    assertThat(first.total(BatchReport::invalid)).isZero();
    assertThat(first.total(BatchReport::tombstoneRecords)).isEqualTo(1);
    assertThat(first.total(BatchReport::inserted)).isEqualTo(2);
    assertThat(first.total(BatchReport::deleted))
        .isZero(); // key 2 was inserted and deleted in one batch
    assertThat(first.summary()).contains("; 0 invalid, 1 Kafka tombstone record(s) ignored, ");
    assertThat(first.toJson()).contains("\"invalid\":0,\"tombstoneRecords\":1,");
    assertThat(rows(p.tombstones().selectExpr("id", "lsn"))).containsExactly("2|40");
    // Bronze keeps the tombstone line as it arrived.
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(p.config.bronze().path())
                    .where("_corrupt_record IS NOT NULL")
                    .select("_corrupt_record")))
        .containsExactly("null");

    // Kafka's at-least-once delivery after a connector restart: the same events in another file,
    // re-emitted with another envelope ts_ms. Exact retries, no conflict, nothing changes.
    String[] redelivered = new String[events.length];
    for (int i = 0; i < events.length; i++) {
      redelivered[i] = reemitted(events[i]);
    }
    assertThat(redelivered[2]).isNotEqualTo(events[2]).contains("\"ts_ms\":999,\"transaction\"");
    p.deliver(redelivered);
    SilverResult again = p.run();

    assertThat(again.total(BatchReport::conflictsWithTarget)).isZero();
    assertThat(again.total(BatchReport::conflictsInBatch)).isZero();
    // Keys 1 and 3 equal their stored versions, key 2's delete equals its tombstone; the
    // snapshot reads of keys 1 and 2 are superseded by their later events in the same file.
    assertThat(again.total(BatchReport::exactRetries)).isEqualTo(3);
    assertThat(again.total(BatchReport::supersededInBatch)).isEqualTo(2);
    assertThat(again.total(BatchReport::olderIgnored)).isZero();
    assertThat(again.total(BatchReport::inserted) + again.total(BatchReport::updated)).isZero();
    assertThat(again.total(BatchReport::tombstoneRecords)).isEqualTo(1);
    assertThat(p.silverRows()).containsExactly("1|30|paid|10.50|first", "3|20|new|7.25|first");
  }

  /**
   * Debezium follows each delete with a Kafka tombstone, so a batch with two deletes holds two
   * {@code null} lines, here beside a truncate (as in a PostgreSQL feed with {@code
   * skipped.operations=none}): the tombstones are two tombstone records, the truncate a truncate
   * event, and none of them an exact retry. The batch's report is pinned count by count.
   */
  @Test
  void kafkaTombstonesAndATruncateInOneBatchAreNeverExactRetries() {
    SilverHarness p = pipeline(SCD1);
    p.deliver(
        create(1, "new", "1.00", 10), create(2, "new", "2.00", 11), create(3, "new", "3.00", 12));
    p.run();
    p.deliver(
        delete(1, 20),
        KAFKA_TOMBSTONE,
        delete(2, 21),
        KAFKA_TOMBSTONE,
        truncate(30),
        create(4, "new", "4.00", 40));
    SilverResult second = p.run();

    assertThat(second.batches()).hasSize(1);
    BatchReport batch = second.batches().get(0);
    // The deletes at LSN 20 and 21 are older than the truncate at 30: ignored, as if they had
    // arrived before it. Key 4 is the one key the batch writes.
    assertThat(batch.summary().replaceFirst("; [0-9.]+ s$", ""))
        .isEqualTo(
            "batch 1: 6 row(s) in, 0 invalid, 2 Kafka tombstone record(s) ignored, 0 exact"
                + " retries collapsed, 1 key(s), conflicts 0 in batch / 0 with target, 2 older"
                + " version(s) ignored, 0 superseded in batch; inserted 1, updated 0, deleted 0,"
                + " quarantined 0");
    assertThat(batch.tombstoneRecords()).isEqualTo(2);
    assertThat(batch.exactRetries()).isZero();
    assertThat(second.toJson())
        .contains("\"inputRows\":6,\"invalid\":0,\"tombstoneRecords\":2,\"exactRetries\":0,");
    assertThat(p.silverRows()).containsExactly("4|40|new|4.00|first");
  }

  @Test
  void outOfOrderFilesDeleteThenRecreateAndAPrimaryKeyChange() {
    SilverHarness p = pipeline(SCD1);
    p.deliver(create(1, "new", "1.00", 10), create(2, "new", "2.00", 11));
    p.run();
    // The later file lands first: the update at LSN 30 and, for the primary key change 2 -> 20
    // (Debezium emits a delete of the old key and a create of the new one at the same LSN).
    p.deliver(
        update(1, "shipped", "1.00", "late file", 30),
        delete(2, 40),
        create(20, "new", "2.00", 40));
    p.run();
    // Then the earlier one: its update at LSN 20 is older than what silver holds.
    p.deliver(update(1, "paid", "1.00", "early file", 20));
    SilverResult late = p.run();

    assertThat(late.total(BatchReport::olderIgnored)).isEqualTo(1);
    assertThat(p.silverRows())
        .containsExactly("1|30|shipped|1.00|late file", "20|40|new|2.00|first");

    // Delete then re-create: the tombstone keeps older events out, a newer create comes back.
    p.deliver(delete(1, 50), KAFKA_TOMBSTONE);
    p.run();
    p.deliver(update(1, "paid", "1.00", "replayed", 45), create(1, "again", "3.00", 60));
    SilverResult recreated = p.run();

    assertThat(p.silverRows()).containsExactly("1|60|again|3.00|first", "20|40|new|2.00|first");
    assertThat(
            recreated.total(BatchReport::supersededInBatch)
                + recreated.total(BatchReport::olderIgnored))
        .isEqualTo(1);
  }

  @Test
  void aTruncateRemovesWhatCameBeforeIt() {
    SilverHarness p = pipeline(SCD1);
    p.deliver(create(1, "new", "1.00", 10), create(2, "new", "2.00", 20));
    p.run();
    p.deliver(truncate(30), create(3, "new", "3.00", 40));
    SilverResult truncated = p.run();

    assertThat(p.silverRows()).containsExactly("3|40|new|3.00|first");
    assertThat(truncated.total(BatchReport::invalid)).isZero();
  }

  @Test
  void aConflictingEventAtTheSameLsnIsQuarantined() {
    SilverHarness p = pipeline(SCD1 + "onConflict: quarantine\n");
    p.deliver(create(1, "new", "1.00", 10));
    p.run();
    p.deliver(event("c", "null", row(1, "forged", "1.00", "first"), 10, 5));
    SilverResult conflict = p.run();

    assertThat(conflict.total(BatchReport::conflictsWithTarget)).isEqualTo(1);
    assertThat(p.silverRows()).containsExactly("1|10|new|1.00|first");
    Row q = p.quarantine().first();
    assertThat(q.<String>getAs("reason")).isEqualTo("CONFLICT_WITH_TARGET");
    // The quarantine keeps the envelope as it arrived, not only the derived columns.
    assertThat(q.<String>getAs("raw_payload"))
        .startsWith("{\"before\":null,\"after\":{\"id\":1,\"status\":\"forged\"")
        .contains("\"lsn\":10");
  }

  @Test
  void anUnavailableToastedValueKeepsTheStoredOneWithIgnoreNullUpdates() {
    SilverHarness p = pipeline(SCD1 + "ignoreNullUpdates: true\n");
    p.deliver(create(1, "new", "1.00", 10));
    p.run();
    // PostgreSQL did not send the unchanged TOASTed column: Debezium marks it.
    p.deliver(update(1, "paid", "1.00", "__debezium_unavailable_value", 20));
    p.run();

    assertThat(p.silverRows()).containsExactly("1|20|paid|1.00|first");
  }

  @Test
  void historyTablesKeepEveryVersion() {
    SilverHarness p = pipeline(COLUMNS + "storedAsScdType: 2\nexceptColumnList: [op]\n");
    p.deliver(read(1, "new", 10), update(1, "paid", "10.50", "first", 20));
    p.run();
    p.deliver(reemitted(update(1, "paid", "10.50", "first", 20)), delete(1, 30), KAFKA_TOMBSTONE);
    SilverResult second = p.run();

    assertThat(second.total(BatchReport::exactRetries)).isEqualTo(1);
    assertThat(
            rows(
                p.silver()
                    .selectExpr("id", "status", "__START_AT", "__END_AT")
                    .orderBy("__START_AT")))
        .containsExactly("1|new|10|20", "1|paid|20|30");
  }

  @Test
  void changingAnExpressionIsAContractChange() {
    SilverHarness v1 = pipeline(SCD1);
    v1.deliver(create(1, "new", "1.00", 10));
    v1.run();

    SilverHarness v2 =
        v1.evolved(ENVELOPE, SCD1.replace("\"after.status\"", "\"upper(after.status)\""));
    v2.deliver(update(1, "paid", "1.00", "first", 20));
    v2.run();
    assertThat(v2.silverRows()).containsExactly("1|20|PAID|1.00|first");
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(v2.config.requireSilver().path() + "_contract")
                    .orderBy("version")
                    .select("version", "changes")))
        .containsExactly(
            "1|first version",
            "2|derived column 'status' changed from \"after.status\" to \"upper(after.status)\"");

    SilverHarness v3 =
        v2.evolved(
            ENVELOPE,
            SCD1.replace("\"after.status\"", "\"upper(after.status)\"")
                .replace("coalesce(after.id, before.id)", "after.id"));
    v3.deliver(update(1, "shipped", "1.00", "first", 30));
    assertThatThrownBy(v3::run)
        .hasMessageContaining(
            "change silver.columns.id of silver "
                + v3.config.requireSilver().path()
                + " from coalesce(after.id, before.id) to after.id in place");
  }
}
