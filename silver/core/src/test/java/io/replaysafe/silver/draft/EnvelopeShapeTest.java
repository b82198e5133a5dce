package io.replaysafe.silver.draft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** Which inferred schemas read as Debezium change events, and the schema drafted for them. */
class EnvelopeShapeTest {
  private static StructType ddl(String ddl) {
    return StructType.fromDDL(ddl);
  }

  private static final String PG_SOURCE = "source STRUCT<connector: STRING, lsn: BIGINT>";

  @Test
  void postgresEventsDeclareBeforeAndAfterAlikeInTheTablesColumnOrder() {
    // Inference sorts fields by name, types a field null on every line STRING and sees a
    // delete's key-only before image in part.
    EnvelopeShape shape =
        EnvelopeShape.of(
                ddl(
                    "after STRUCT<id: BIGINT, notes: STRING, status: STRING>,"
                        + " before STRUCT<id: BIGINT, notes: STRING, status: STRING, total: STRING>,"
                        + " op STRING, "
                        + PG_SOURCE
                        + ", ts_ms BIGINT, transaction STRING"))
            .orElseThrow();

    assertThat(shape.connector()).isEqualTo(EnvelopeShape.Connector.POSTGRESQL);
    assertThat(shape.rowImage().toDDL())
        .isEqualTo("id BIGINT,notes STRING,status STRING,total STRING");
    EnvelopeShape ordered = shape.inColumnOrder(List.of("id", "status", "total", "notes"));
    assertThat(ordered.schema().toDDL())
        .isEqualTo(
            "after STRUCT<id: BIGINT, status: STRING, total: STRING, notes: STRING>,"
                + "before STRUCT<id: BIGINT, status: STRING, total: STRING, notes: STRING>,"
                + "op STRING,source STRUCT<connector: STRING, lsn: BIGINT>,ts_ms BIGINT,"
                + "transaction STRING");
  }

  @Test
  void afterTypesWinAndABeforeNullOnEveryLineTakesAftersFields() {
    EnvelopeShape shape =
        EnvelopeShape.of(
                ddl(
                    "after STRUCT<id: BIGINT, total: DOUBLE>, before STRING, op STRING, "
                        + PG_SOURCE
                        + ", ts_ms BIGINT"))
            .orElseThrow();
    DataType image = StructType.fromDDL("id BIGINT, total DOUBLE");

    assertThat(shape.schema().apply("before").dataType()).isEqualTo(image);
    assertThat(shape.schema().apply("after").dataType()).isEqualTo(image);
  }

  @Test
  void mysqlEventsAreKnownByTheirBinlogPosition() {
    EnvelopeShape shape =
        EnvelopeShape.of(
                ddl(
                    "after STRUCT<id: BIGINT>, before STRUCT<id: BIGINT>, op STRING,"
                        + " source STRUCT<file: STRING, pos: BIGINT, row: BIGINT,"
                        + " server_id: BIGINT>, ts_ms BIGINT"))
            .orElseThrow();

    assertThat(shape.connector()).isEqualTo(EnvelopeShape.Connector.MYSQL);
    assertThat(shape.connector().positions())
        .extracting(EnvelopeShape.Position::sourceField)
        .containsExactly("file", "pos", "row");
  }

  /** Schema | why it is not an envelope. */
  @Test
  void schemasThatAreNotDebeziumEventsAreNotEnvelopes() {
    String image = "after STRUCT<id: BIGINT>, before STRUCT<id: BIGINT>, ";
    List<String> notEnvelopes =
        List.of(
            // no op
            image + PG_SOURCE + ", ts_ms BIGINT",
            // no ts_ms
            image + "op STRING, " + PG_SOURCE,
            // op is not text
            image + "op BIGINT, " + PG_SOURCE + ", ts_ms BIGINT",
            // source holds no position of a known connector (SQL Server's change_lsn)
            image + "op STRING, source STRUCT<change_lsn: STRING>, ts_ms BIGINT",
            // an lsn that is not a number
            image + "op STRING, source STRUCT<lsn: STRING>, ts_ms BIGINT",
            // MySQL's position without row
            image + "op STRING, source STRUCT<file: STRING, pos: BIGINT>, ts_ms BIGINT",
            // source is not a struct
            image + "op STRING, source STRING, ts_ms BIGINT",
            // neither image has a field
            "after STRING, before STRING, op STRING, " + PG_SOURCE + ", ts_ms BIGINT",
            // an image that is neither a struct nor null on every line
            "after ARRAY<BIGINT>, before STRUCT<id: BIGINT>, op STRING, "
                + PG_SOURCE
                + ", ts_ms BIGINT");
    for (String schema : notEnvelopes) {
      assertThat(EnvelopeShape.of(ddl(schema))).as(schema).isEmpty();
    }
  }
}
