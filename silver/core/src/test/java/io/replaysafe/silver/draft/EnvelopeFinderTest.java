package io.replaysafe.silver.draft;

import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.monotonically_increasing_id;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.Columns;
import io.replaysafe.common.testing.SparkTestBase;
import java.sql.Timestamp;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * The contract {@link EnvelopeFinder} drafts from change events: which row fields fit a key and why
 * the others do not, the log position's evidence, derived names that would clash.
 */
class EnvelopeFinderTest extends SparkTestBase {
  /** A PostgreSQL event with only what the finder reads: the images, the LSN and op. */
  private static String pg(String op, String before, String after, long lsn) {
    return "{\"before\":"
        + before
        + ",\"after\":"
        + after
        + ",\"source\":{\"connector\":\"postgresql\",\"lsn\":"
        + lsn
        + "},\"op\":\""
        + op
        + "\",\"ts_ms\":"
        + lsn
        + "}";
  }

  private static String mysql(String op, String before, String after, long pos, int row) {
    return "{\"before\":"
        + before
        + ",\"after\":"
        + after
        + ",\"source\":{\"connector\":\"mysql\",\"file\":\"mysql-bin.000003\",\"pos\":"
        + pos
        + ",\"row\":"
        + row
        + "},\"op\":\""
        + op
        + "\",\"ts_ms\":"
        + pos
        + "}";
  }

  /** The sample's draft, its rows in the order given, the row image in {@code columnOrder}. */
  private static Optional<EnvelopeDraft> draft(List<String> columnOrder, String... lines) {
    Dataset<String> text = spark.createDataset(List.of(lines), Encoders.STRING()).coalesce(1);
    EnvelopeShape shape =
        EnvelopeShape.of(spark.read().json(text).schema()).orElseThrow().inColumnOrder(columnOrder);
    Dataset<Row> valid =
        spark
            .read()
            .schema(shape.schema())
            .json(text)
            .withColumn(Columns.SOURCE_FILE_MTIME, lit(Timestamp.valueOf("2026-11-30 10:00:00")))
            .withColumn(Columns.SOURCE_FILE, lit("file:/landing/a.json"))
            .withColumn(CandidateFinder.ARRIVAL, monotonically_increasing_id());
    return EnvelopeFinder.find(valid, shape, lines.length);
  }

  @Test
  void aKeyOnlyDeleteImageGivesACompositeKey() {
    String line11 = "{\"order_id\":1,\"line_no\":1,\"sku\":\"A\",\"qty\":2}";
    String line12 = "{\"order_id\":1,\"line_no\":2,\"sku\":\"B\",\"qty\":1}";
    EnvelopeDraft d =
        draft(
                List.of("order_id", "line_no", "sku", "qty"),
                pg("c", "null", line11, 10),
                pg("c", "null", line12, 11),
                pg("u", "null", line11.replace("\"qty\":2", "\"qty\":3"), 20),
                pg("d", "{\"order_id\":1,\"line_no\":2,\"sku\":null,\"qty\":null}", "null", 30),
                // deleted, then created again: one row's life after another
                pg("c", "null", line12, 40))
            .orElseThrow();

    // order_id alone is created while there (two lines of one order); sku and qty are null in
    // the delete;
    // line_no alone fits this sample too, listed after the delete image's key.
    assertThat(d.keys())
        .extracting(Candidate::columns, Candidate::kind)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                List.of("order_id", "line_no"), Candidate.Evidence.DELETE_IMAGE_KEY),
            org.assertj.core.groups.Tuple.tuple(
                List.of("line_no"), Candidate.Evidence.CONSISTENT_KEY));
    assertThat(d.keys().get(0).evidence())
        .isEqualTo(
            "the only fields of before in every delete (1 delete(s): Debezium keeps only the"
                + " primary key there under REPLICA IDENTITY DEFAULT); set in all 5 row events"
                + " (2 distinct values); one event per value and log position; in log order, never"
                + " created while there nor changed once deleted");
    assertThat(d.chosenKeys()).containsExactly("order_id", "line_no");
    assertThat(d.columns())
        .containsExactlyEntriesOf(
            ordered(
                "order_id", "coalesce(after.order_id, before.order_id)",
                "line_no", "coalesce(after.line_no, before.line_no)",
                "lsn", "source.lsn",
                "sku", "after.sku",
                "qty", "after.qty",
                "op", "op"));
    assertThat(d.columnList()).containsExactly("order_id", "line_no", "sku", "qty");
    assertThat(d.sequence().evidence())
        .isEqualTo(
            "source.lsn (BIGINT): the PostgreSQL connector's write-ahead log position; set in all"
                + " 5 events; never decreases within each [order_id, line_no] in arrival order");
    assertThat(d.opEvidence()).isEqualTo("3 c (creates), 1 u (updates), 1 d (deletes)");
  }

  @Test
  void fieldsSharedAtOnePositionCreatedTwiceOrChangedByAnUpdateAreNoKeys() {
    String one = "{\"id\":1,\"customer_id\":7,\"status\":\"new\"}";
    EnvelopeDraft d =
        draft(
                List.of("id", "customer_id", "status"),
                // a snapshot reads every row at one position: customer 7 twice there
                mysql("r", "null", one, 100, 0),
                mysql("r", "null", "{\"id\":2,\"customer_id\":7,\"status\":\"new\"}", 100, 0),
                // customer 8 created twice, no delete between
                mysql("c", "null", "{\"id\":3,\"customer_id\":8,\"status\":\"new\"}", 200, 0),
                mysql("c", "null", "{\"id\":4,\"customer_id\":8,\"status\":\"new\"}", 300, 0),
                // an update changes status; then an older one arrives late
                mysql("u", one, one.replace("new", "paid"), 500, 0),
                mysql("u", one, one.replace("new", "held"), 400, 0))
            .orElseThrow();

    assertThat(d.keys())
        .singleElement()
        .satisfies(
            k -> {
              assertThat(k.columns()).containsExactly("id");
              assertThat(k.kind()).isEqualTo(Candidate.Evidence.CONSISTENT_KEY);
              assertThat(k.evidence())
                  .isEqualTo(
                      "set in all 6 row events (4 distinct values); unchanged by the 2"
                          + " update(s) that carry before; one event per value and log position;"
                          + " in log order, never created while there nor changed once"
                          + " deleted");
            });
    assertThat(d.sequenceBy()).containsExactly("binlog_file", "binlog_pos", "binlog_row");
    assertThat(d.sequence().evidence())
        .isEqualTo(
            "source.file, source.pos, source.row (STRING, BIGINT, BIGINT): the MySQL connector's"
                + " binlog position, compared in that order (binlog file names are zero-padded, so"
                + " they order as text); set in all 6 events; decreases 1 time(s) within the same"
                + " id in arrival order (files out of order or redelivered: silver keeps the"
                + " highest)");
  }

  @Test
  void derivedNamesThatARowFieldTakesArePrefixed() {
    EnvelopeDraft d =
        draft(
                List.of("id", "op", "lsn"),
                pg("c", "null", "{\"id\":1,\"op\":\"sale\",\"lsn\":5}", 10),
                pg("d", "{\"id\":1,\"op\":null,\"lsn\":null}", "null", 20))
            .orElseThrow();

    assertThat(d.columns())
        .containsExactlyEntriesOf(
            ordered(
                "id", "coalesce(after.id, before.id)",
                "cdc_lsn", "source.lsn",
                "op", "after.op",
                "lsn", "after.lsn",
                "cdc_op", "op"));
    assertThat(d.sequenceBy()).containsExactly("cdc_lsn");
    assertThat(d.applyAsDeletes()).isEqualTo("cdc_op = 'd'");
    assertThat(d.applyAsTruncates()).isEqualTo("cdc_op = 't'");
    assertThat(d.columnList()).containsExactly("id", "op", "lsn");
  }

  /**
   * PostgreSQL does not send an unchanged TOASTed column: Debezium writes {@code
   * __debezium_unavailable_value} in its place. That field's derived column maps the marker to null
   * and the draft sets {@code ignoreNullUpdates}, so the stored value is kept (silver/README.md,
   * Debezium, end to end); a field that never holds it, and the key, are derived as before.
   */
  @Test
  void aFieldHoldingTheUnavailableValueIsMappedToNullWithIgnoreNullUpdates() {
    String row = "{\"id\":1,\"status\":\"new\",\"notes\":\"long text\",\"doc\":\"{}\"}";
    EnvelopeDraft d =
        draft(
                List.of("id", "status", "notes", "doc"),
                pg("c", "null", row, 10),
                pg(
                    "u",
                    "null",
                    "{\"id\":1,\"status\":\"paid\",\"notes\":\"__debezium_unavailable_value\","
                        + "\"doc\":\"__debezium_unavailable_value\"}",
                    20),
                pg(
                    "u",
                    "null",
                    "{\"id\":1,\"status\":\"sent\",\"notes\":\"__debezium_unavailable_value\","
                        + "\"doc\":\"{}\"}",
                    30),
                // A status that merely contains the marker's text is a value, not the marker.
                pg("c", "null", "{\"id\":2,\"status\":\"x__debezium_unavailable_value\"}", 40))
            .orElseThrow();

    assertThat(d.columns())
        .containsExactlyEntriesOf(
            ordered(
                "id", "coalesce(after.id, before.id)",
                "lsn", "source.lsn",
                "status", "after.status",
                "notes", "nullif(after.notes, '__debezium_unavailable_value')",
                "doc", "nullif(after.doc, '__debezium_unavailable_value')",
                "op", "op"));
    assertThat(d.unavailable()).containsExactlyEntriesOf(ordered2("notes", 2L, "doc", 1L));
    assertThat(d.unavailableEvidence()).isEqualTo("notes (2 events), doc (1 event)");
    assertThat(d.ignoreNullUpdates()).isTrue();
    assertThat(d.columnList()).containsExactly("id", "status", "notes", "doc");

    EnvelopeDraft without =
        draft(List.of("id", "status"), pg("c", "null", "{\"id\":1,\"status\":\"new\"}", 10))
            .orElseThrow();
    assertThat(without.unavailable()).isEmpty();
    assertThat(without.ignoreNullUpdates()).isFalse();
  }

  @Test
  void noFieldThatFitsAKeyDraftsNone() {
    // The same value created while there: no field identifies a row.
    EnvelopeDraft d =
        draft(
                List.of("status"),
                pg("c", "null", "{\"status\":\"new\"}", 10),
                pg("c", "null", "{\"status\":\"new\"}", 20))
            .orElseThrow();

    assertThat(d.keys()).isEmpty();
    assertThat(d.chosenKeys()).isEmpty();
    assertThat(d.columns())
        .containsExactlyEntriesOf(
            ordered("lsn", "source.lsn", "status", "after.status", "op", "op"));
    assertThat(d.sequence().evidence()).endsWith("; never decreases in arrival order");
  }

  @Test
  void anOpDebeziumDoesNotWriteOrOnlyTruncatesAreNoEnvelope() {
    String row = "{\"id\":1}";
    assertThat(draft(List.of("id"), pg("c", "null", row, 10), pg("x", "null", row, 20))).isEmpty();
    assertThat(
            draft(
                List.of("id"),
                pg("c", "null", row, 10),
                "{\"before\":null,\"after\":{\"id\":2},\"source\":{\"lsn\":20},\"op\":null,"
                    + "\"ts_ms\":1}"))
        .isEmpty();
    assertThat(
            draft(
                List.of("id"),
                pg("c", "null", row, 10).replace("\"op\":\"c\"", "\"op\":\"t\""),
                pg("t", "null", "null", 20)))
        .isEmpty();
  }

  private static Map<String, Long> ordered2(String a, long na, String b, long nb) {
    Map<String, Long> m = new java.util.LinkedHashMap<>();
    m.put(a, na);
    m.put(b, nb);
    return m;
  }

  private static Map<String, String> ordered(String... nameThenExpression) {
    Map<String, String> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < nameThenExpression.length; i += 2) {
      m.put(nameThenExpression[i], nameThenExpression[i + 1]);
    }
    return m;
  }
}
