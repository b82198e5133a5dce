package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.cli.DebeziumEvents.MySql;
import io.replaysafe.cli.DebeziumEvents.Postgres;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replaysafe init} on samples of Debezium change events: the drafted contract (derived
 * columns, keys, sequence, op mapping) and its evidence, pinned line by line; the drafted file runs
 * as it is; {@code plan} says the derived columns are the business columns.
 */
class InitEnvelopeCommandTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void postgresEventsDraftTheContractWithItsEvidenceAndRunAsDrafted() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing/orders"));
    write(
        landing.resolve("0001.json"),
        Instant.parse("2026-11-30T10:00:00Z"),
        Postgres.read(1, "new", "10.50", 100),
        Postgres.read(2, "new", "7.25", 100),
        Postgres.read(3, "new", "3.00", 100));
    write(
        landing.resolve("0002.json"),
        Instant.parse("2026-11-30T11:00:00Z"),
        Postgres.create(4, "new", "1.00", 200),
        Postgres.update(1, "paid", "10.50", "first", 210),
        Postgres.delete(2, 220),
        DebeziumEvents.KAFKA_TOMBSTONE,
        Postgres.update(4, "paid", "1.00", "first", 230));
    write(
        landing.resolve("0003.json"),
        Instant.parse("2026-11-30T12:00:00Z"),
        Postgres.truncate(300),
        Postgres.create(5, "new", "5.00", 310),
        Postgres.create(6, "new", "6.00", 320),
        Postgres.update(5, "shipped", "5.00", "wrapped", 330),
        Postgres.delete(6, 340),
        DebeziumEvents.KAFKA_TOMBSTONE,
        Postgres.create(7, "new", "7.00", 350));
    Path out = dir.resolve("orders.yaml");
    Path lake = dir.resolve("lake");

    CliRunner.Outcome init =
        CliRunner.run(
            "init",
            "--source",
            landing.toString(),
            "--out",
            out.toString(),
            "--lake",
            lake.toString());

    assertThat(init.exitCode()).as(init.err()).isEqualTo(0);
    assertThat(init.out())
        .isEqualTo(
            "init orders: wrote "
                + out
                + " from 3 sample file(s), 15 row(s), 6 column(s); Debezium change events"
                + " (PostgreSQL connector): keys id; sequenceBy lsn; 6 derived column(s)\n"
                + "Next: review the drafted choices and their evidence in "
                + out
                + ", then: replaysafe plan --config "
                + out
                + "\n");
    String yaml = Files.readString(out);
    assertThat(yaml)
        .isEqualTo(
            "# Drafted by 'replaysafe init' from 3 sample file(s) ("
                + bytes(landing)
                + " bytes, 15 rows, 2 of them not JSON objects: 2 Kafka tombstone(s), the line"
                + " null, which silver ignores) under "
                + landing
                + ".\n"
                + "# The sample holds Debezium change events (PostgreSQL connector): silver.columns,\n"
                + "# keys, sequenceBy and the op mapping below are drafted from them, each with its\n"
                + "# evidence. Review them, then dry-run it: replaysafe plan --config <this file>\n"
                + "name: orders\n"
                + "source:\n"
                + "  path: "
                + landing
                + "\n"
                + "  format: json             # JSON lines\n"
                + "  # Spark's JSON schema inference over the sample, as DDL: review it. Whole numbers\n"
                + "  # are BIGINT, fractions DOUBLE; timestamps stay STRING until you declare them\n"
                + "  # TIMESTAMP. A field the schema does not declare is kept in _rescued_data.\n"
                + "  # before and after are declared alike, with every field of the row that either\n"
                + "  # shows, in the table's column order (as Debezium's value schema declares them).\n"
                + "  schema: >-\n"
                + "    after STRUCT<id: BIGINT, status: STRING, total: DOUBLE, notes: STRING>,\n"
                + "    before STRUCT<id: BIGINT, status: STRING, total: DOUBLE, notes: STRING>,\n"
                + "    op STRING,\n"
                + "    source STRUCT<connector: STRING, db: STRING, lsn: BIGINT, name: STRING,"
                + " schema: STRING, sequence: STRING, snapshot: STRING, table: STRING, ts_ms:"
                + " BIGINT, txId: BIGINT, version: STRING, xmin: STRING>,\n"
                + "    transaction STRING,\n"
                + "    ts_ms BIGINT\n"
                + "  rescuedDataColumn: _rescued_data\n"
                + "  schemaEvolutionMode: rescue   # or failOnNewColumns\n"
                + "# The lake: bronze and silver tables, each with its own checkpoint. Nothing is\n"
                + "# written until the first 'replaysafe run'.\n"
                + "bronze:\n"
                + "  path: "
                + lake
                + "/bronze/orders\n"
                + "  checkpoint: "
                + lake
                + "/_checkpoints/bronze/orders\n"
                + "silver:\n"
                + "  path: "
                + lake
                + "/silver/orders\n"
                + "  checkpoint: "
                + lake
                + "/_checkpoints/silver/orders\n"
                + "  # 13 Debezium change events from the PostgreSQL connector in the sample.\n"
                + "  # silver.columns derives the contract's columns from each: the key from after, or\n"
                + "  # before for a delete; the rest of the row from after; the log position from\n"
                + "  # source. Bronze's columns (after, before, op, source, transaction, ts_ms) are"
                + " read only\n"
                + "  # through them, so an event re-emitted with another ts_ms is an exact retry.\n"
                + "  columns:\n"
                + "    id: \"coalesce(after.id, before.id)\"\n"
                + "    lsn: \"source.lsn\"\n"
                + "    status: \"after.status\"\n"
                + "    total: \"after.total\"\n"
                + "    notes: \"after.notes\"\n"
                + "    op: \"op\"\n"
                + "  # keys: the column(s) that identify a row. Evidence in the sample:\n"
                + "  #   [id]  the only field of before in every delete (2 delete(s): Debezium keeps"
                + " only the primary key there under REPLICA IDENTITY DEFAULT); set in all 12 row"
                + " events (7 distinct values); one event per value and log position; in log"
                + " order, never created while there nor changed once deleted\n"
                + "  keys: [id]\n"
                + "  # sequenceBy: the column(s) that order versions of a key (the higher wins).\n"
                + "  # Evidence in the sample:\n"
                + "  #   [lsn]  source.lsn (BIGINT): the PostgreSQL connector's write-ahead log"
                + " position; set in all 13 events; never decreases within each id in arrival"
                + " order\n"
                + "  #   Not ts_ms: it says when the connector processed the event, and a re-emitted\n"
                + "  #   event carries another.\n"
                + "  sequenceBy: [lsn]\n"
                + "  # op in the sample: 3 r (snapshot reads), 4 c (creates), 3 u (updates), 2 d"
                + " (deletes), 1 t (truncates).\n"
                + "  # r, c and u are upserts.\n"
                + "  applyAsDeletes: \"op = 'd'\"\n"
                + "  applyAsTruncates: \"op = 't'\"   # current state only: remove it for"
                + " storedAsScdType: 2\n"
                + "  # columnList: the row's fields land in silver (and the log position, as the\n"
                + "  # sequence); op does not.\n"
                + "  columnList: [id, status, total, notes]\n"
                + "  onConflict: fail        # same key and sequence, different payload: fail |"
                + " quarantine\n"
                + "  onInvalid: fail         # null key or sequence, malformed line: fail |"
                + " quarantine\n");

    // The file loads as drafted: the derived columns are the contract's business columns.
    PipelineConfig pipeline = ConfigLoader.parse(out.toString(), yaml);
    assertThat(pipeline.businessColumns())
        .containsExactly("id", "lsn", "status", "total", "notes", "op");
    assertThat(pipeline.payloadColumns()).containsExactly("status", "total", "notes", "op");
    assertThat(pipeline.silverColumns()).containsExactly("id", "lsn", "status", "total", "notes");

    // plan says which columns the contract reads. The Kafka tombstones are counted on their own,
    // not as corrupt rows: bronze keeps them as they arrived, silver ignores them, so the sample
    // is clean.
    CliRunner.Outcome plan = CliRunner.run("plan", "--config", out.toString());
    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isEqualTo(0);
    assertThat(plan.out())
        .contains(
            "  corrupt rows: 0\n"
                + "  Kafka tombstone records: 2 (lines that are the JSON literal null: kept by"
                + " bronze, ignored by silver, not an error)\n"
                + "silver contract on the sample:\n"
                + "  business columns: id, lsn, status, total, notes, op, derived by"
                + " silver.columns from bronze's after, before, op, source, transaction, ts_ms"
                + " (which are neither payload nor in silver)\n"
                + "  invalid rows: 0 (onInvalid: fail)\n"
                + "  exact retries: ",
            "  conflicts: 0 key/sequence pair(s) (onConflict: fail)\n" + "  truncate events: 1\n")
        .endsWith("plan orders: the sample is clean (2 Kafka tombstone record(s) ignored)\n");
    CliRunner.Outcome planJson = CliRunner.run("plan", "--config", out.toString(), "--json");
    assertThat(planJson.exitCode()).as(planJson.err()).isEqualTo(0);
    JsonNode sample = new ObjectMapper().readTree(planJson.out()).get("sample");
    assertThat(sample.get("corruptRows").asLong()).isZero();
    assertThat(sample.get("tombstoneRecords").asLong()).isEqualTo(2);
    assertThat(lake).doesNotExist();

    CliRunner.Outcome run = CliRunner.run("run", "--config", out.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
    assertThat(run.out()).contains("0 invalid, 2 Kafka tombstone record(s) ignored, ");
    assertThat(run.err()).contains("  1 truncate event(s); rows older than [300] removed\n");
    // The truncate at LSN 300 removed 1, 3 and 4; 5 was updated with before null, 6 deleted.
    Dataset<Row> silver =
        spark.read().format("delta").load(lake.resolve("silver/orders").toString());
    assertThat(rows(silver.selectExpr("id", "lsn", "status", "total", "notes").orderBy("id")))
        .containsExactly("5|330|shipped|5.0|wrapped", "7|350|new|7.0|first");
    assertThat(silver.columns()).startsWith("id", "lsn", "status", "total", "notes");
    assertThat(silver.columns()).doesNotContain("op", "before", "after", "source", "ts_ms");
  }

  /**
   * An update that did not change a TOASTed column: PostgreSQL does not send it and Debezium writes
   * {@code __debezium_unavailable_value} in its place. init maps the marker to null in that
   * column's derived column and sets {@code ignoreNullUpdates}, as silver/README.md says, so the
   * drafted file keeps the stored value.
   */
  @Test
  void postgresUnavailableToastedValueIsMappedToNullWithIgnoreNullUpdates() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing/orders"));
    write(
        landing.resolve("0001.json"),
        Instant.parse("2026-11-30T10:00:00Z"),
        Postgres.read(1, "new", "10.50", 100),
        Postgres.read(2, "new", "7.25", 100));
    write(
        landing.resolve("0002.json"),
        Instant.parse("2026-11-30T11:00:00Z"),
        Postgres.update(1, "paid", "10.50", "__debezium_unavailable_value", 200),
        Postgres.create(3, "new", "3.00", 210),
        Postgres.delete(2, 220),
        DebeziumEvents.KAFKA_TOMBSTONE);
    Path out = dir.resolve("orders.yaml");
    Path lake = dir.resolve("lake");

    CliRunner.Outcome init =
        CliRunner.run(
            "init",
            "--source",
            landing.toString(),
            "--out",
            out.toString(),
            "--lake",
            lake.toString());

    assertThat(init.exitCode()).as(init.err()).isEqualTo(0);
    String yaml = Files.readString(out);
    assertThat(yaml.substring(yaml.indexOf("  columns:\n")))
        .isEqualTo(
            "  columns:\n"
                + "    id: \"coalesce(after.id, before.id)\"\n"
                + "    lsn: \"source.lsn\"\n"
                + "    status: \"after.status\"\n"
                + "    total: \"after.total\"\n"
                + "    notes: \"nullif(after.notes, '__debezium_unavailable_value')\"\n"
                + "    op: \"op\"\n"
                + "  # __debezium_unavailable_value, Debezium's marker for a value it did not receive"
                + " (an\n"
                + "  # unchanged TOASTed column, in PostgreSQL), is in notes (1 event):\n"
                + "  # its derived column maps it to null, and ignoreNullUpdates below keeps the"
                + " stored value.\n"
                + "  # keys: the column(s) that identify a row. Evidence in the sample:\n"
                + "  #   [id]  the only field of before in every delete (1 delete(s): Debezium keeps"
                + " only the primary key there under REPLICA IDENTITY DEFAULT); set in all 5 row"
                + " events (3 distinct values); one event per value and log position; in log"
                + " order, never created while there nor changed once deleted\n"
                + "  keys: [id]\n"
                + "  # sequenceBy: the column(s) that order versions of a key (the higher wins).\n"
                + "  # Evidence in the sample:\n"
                + "  #   [lsn]  source.lsn (BIGINT): the PostgreSQL connector's write-ahead log"
                + " position; set in all 5 events; never decreases within each id in arrival"
                + " order\n"
                + "  #   Not ts_ms: it says when the connector processed the event, and a re-emitted\n"
                + "  #   event carries another.\n"
                + "  sequenceBy: [lsn]\n"
                + "  # op in the sample: 2 r (snapshot reads), 1 c (creates), 1 u (updates), 1 d"
                + " (deletes).\n"
                + "  # r, c and u are upserts.\n"
                + "  applyAsDeletes: \"op = 'd'\"\n"
                + "  applyAsTruncates: \"op = 't'\"   # current state only: remove it for"
                + " storedAsScdType: 2\n"
                + "  # columnList: the row's fields land in silver (and the log position, as the\n"
                + "  # sequence); op does not.\n"
                + "  columnList: [id, status, total, notes]\n"
                + "  # ignoreNullUpdates: a null in an update keeps the stored value, so a column\n"
                + "  # Debezium marks unavailable keeps it. It applies to every column: a column"
                + " really\n"
                + "  # set to null keeps its stored value too; where that matters, use REPLICA"
                + " IDENTITY\n"
                + "  # FULL on the table instead.\n"
                + "  ignoreNullUpdates: true\n"
                + "  onConflict: fail        # same key and sequence, different payload: fail |"
                + " quarantine\n"
                + "  onInvalid: fail         # null key or sequence, malformed line: fail |"
                + " quarantine\n");
    assertThat(ConfigLoader.parse(out.toString(), yaml).requireSilver().ignoreNullUpdates())
        .isTrue();

    CliRunner.Outcome run = CliRunner.run("run", "--config", out.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
    // Order 1's notes were not sent with its update: the stored value is kept, not the marker.
    Dataset<Row> silver =
        spark.read().format("delta").load(lake.resolve("silver/orders").toString());
    assertThat(rows(silver.selectExpr("id", "lsn", "status", "total", "notes").orderBy("id")))
        .containsExactly("1|200|paid|10.5|first", "3|210|new|3.0|first");
  }

  @Test
  void mysqlEventsSequenceByBinlogFilePositionAndRow() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing/customers"));
    String b3 = "mysql-bin.000003";
    write(
        landing.resolve("0001.json"),
        Instant.parse("2026-11-30T10:00:00Z"),
        MySql.event(
            "r",
            "null",
            MySql.row(1001, "Sally", "Thomas", "sally.thomas@acme.com"),
            b3,
            154,
            0,
            "true"),
        MySql.event(
            "r",
            "null",
            MySql.row(1002, "George", "Bailey", "gbailey@foobar.com"),
            b3,
            154,
            0,
            "true"),
        MySql.event(
            "r", "null", MySql.row(1003, "Edward", "Walker", "ed@walker.com"), b3, 154, 0, "last"));
    write(
        landing.resolve("0002.json"),
        Instant.parse("2026-11-30T11:00:00Z"),
        MySql.event(
            "c",
            "null",
            MySql.row(1004, "Anne", "Kretchmar", "annek@noanswer.org"),
            b3,
            484,
            0,
            "false"),
        MySql.event(
            "u",
            MySql.row(1004, "Anne", "Kretchmar", "annek@noanswer.org"),
            MySql.row(1004, "Anne", "Kretchmar", "anne.k@acme.com"),
            b3,
            805,
            0,
            "false"),
        MySql.event(
            "d",
            MySql.row(1002, "George", "Bailey", "gbailey@foobar.com"),
            "null",
            b3,
            1101,
            0,
            "false"),
        DebeziumEvents.KAFKA_TOMBSTONE,
        // One UPDATE statement changing two rows, after the binlog rotated: a smaller pos in a
        // later file, the rows told apart by row.
        MySql.event(
            "u",
            MySql.row(1001, "Sally", "Thomas", "sally.thomas@acme.com"),
            MySql.row(1001, "Sally", "Jones", "sally.jones@acme.com"),
            "mysql-bin.000004",
            154,
            0,
            "false"),
        MySql.event(
            "u",
            MySql.row(1003, "Edward", "Walker", "ed@walker.com"),
            MySql.row(1003, "Edward", "Walker", "ed.walker@acme.com"),
            "mysql-bin.000004",
            154,
            1,
            "false"));
    Path out = dir.resolve("customers.yaml");
    Path lake = dir.resolve("lake");

    CliRunner.Outcome init =
        CliRunner.run(
            "init",
            "--source",
            landing.toString(),
            "--out",
            out.toString(),
            "--lake",
            lake.toString());

    assertThat(init.exitCode()).as(init.err()).isEqualTo(0);
    assertThat(init.out())
        .startsWith(
            "init customers: wrote "
                + out
                + " from 2 sample file(s), 9 row(s), 6 column(s); Debezium change events (MySQL"
                + " connector): keys id; sequenceBy binlog_file, binlog_pos, binlog_row; 8 derived"
                + " column(s)\n");
    String yaml = Files.readString(out);
    assertThat(yaml.substring(yaml.indexOf("  schema: >-\n")))
        .isEqualTo(
            "  schema: >-\n"
                + "    after STRUCT<id: BIGINT, first_name: STRING, last_name: STRING, email:"
                + " STRING>,\n"
                + "    before STRUCT<id: BIGINT, first_name: STRING, last_name: STRING, email:"
                + " STRING>,\n"
                + "    op STRING,\n"
                + "    source STRUCT<connector: STRING, db: STRING, file: STRING, gtid: STRING,"
                + " name: STRING, pos: BIGINT, query: STRING, row: BIGINT, server_id: BIGINT,"
                + " snapshot: STRING, table: STRING, thread: BIGINT, ts_ms: BIGINT, version:"
                + " STRING>,\n"
                + "    transaction STRING,\n"
                + "    ts_ms BIGINT\n"
                + "  rescuedDataColumn: _rescued_data\n"
                + "  schemaEvolutionMode: rescue   # or failOnNewColumns\n"
                + "# The lake: bronze and silver tables, each with its own checkpoint. Nothing is\n"
                + "# written until the first 'replaysafe run'.\n"
                + "bronze:\n"
                + "  path: "
                + lake
                + "/bronze/customers\n"
                + "  checkpoint: "
                + lake
                + "/_checkpoints/bronze/customers\n"
                + "silver:\n"
                + "  path: "
                + lake
                + "/silver/customers\n"
                + "  checkpoint: "
                + lake
                + "/_checkpoints/silver/customers\n"
                + "  # 8 Debezium change events from the MySQL connector in the sample.\n"
                + "  # silver.columns derives the contract's columns from each: the key from after, or\n"
                + "  # before for a delete; the rest of the row from after; the log position from\n"
                + "  # source. Bronze's columns (after, before, op, source, transaction, ts_ms) are"
                + " read only\n"
                + "  # through them, so an event re-emitted with another ts_ms is an exact retry.\n"
                + "  columns:\n"
                + "    id: \"coalesce(after.id, before.id)\"\n"
                + "    binlog_file: \"source.file\"\n"
                + "    binlog_pos: \"source.pos\"\n"
                + "    binlog_row: \"source.row\"\n"
                + "    first_name: \"after.first_name\"\n"
                + "    last_name: \"after.last_name\"\n"
                + "    email: \"after.email\"\n"
                + "    op: \"op\"\n"
                + "  # keys: the column(s) that identify a row. Evidence in the sample:\n"
                + "  #   [id]  set in all 8 row events (4 distinct values); unchanged by the 3"
                + " update(s) that carry before; one event per value and log position; in log"
                + " order, never created while there nor changed once deleted\n"
                + "  #   [first_name]  set in all 8 row events (4 distinct values); unchanged by the"
                + " 3 update(s) that carry before; one event per value and log position; in log"
                + " order, never created while there nor changed once deleted\n"
                + "  keys: [id]    # the first candidate\n"
                + "  # sequenceBy: the column(s) that order versions of a key (the higher wins).\n"
                + "  # Evidence in the sample:\n"
                + "  #   [binlog_file, binlog_pos, binlog_row]  source.file, source.pos, source.row"
                + " (STRING, BIGINT, BIGINT): the MySQL connector's binlog position, compared in"
                + " that order (binlog file names are zero-padded, so they order as text); set in"
                + " all 8 events; never decreases within each id in arrival order\n"
                + "  #   Not ts_ms: it says when the connector processed the event, and a re-emitted\n"
                + "  #   event carries another.\n"
                + "  sequenceBy: [binlog_file, binlog_pos, binlog_row]\n"
                + "  # op in the sample: 3 r (snapshot reads), 1 c (creates), 3 u (updates), 1 d"
                + " (deletes).\n"
                + "  # r, c and u are upserts.\n"
                + "  applyAsDeletes: \"op = 'd'\"\n"
                + "  applyAsTruncates: \"op = 't'\"   # current state only: remove it for"
                + " storedAsScdType: 2\n"
                + "  # columnList: the row's fields land in silver (and the log position, as the\n"
                + "  # sequence); op does not.\n"
                + "  columnList: [id, first_name, last_name, email]\n"
                + "  onConflict: fail        # same key and sequence, different payload: fail |"
                + " quarantine\n"
                + "  onInvalid: fail         # null key or sequence, malformed line: fail |"
                + " quarantine\n");

    CliRunner.Outcome plan = CliRunner.run("plan", "--config", out.toString(), "--json");
    // The sample's one finding is its Kafka tombstone, which is not a corrupt row: clean.
    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isEqualTo(0);
    assertThat(
            new ObjectMapper().readTree(plan.out()).get("sample").get("tombstoneRecords").asLong())
        .isEqualTo(1);
    JsonNode silverPlan = new ObjectMapper().readTree(plan.out()).get("silver");
    assertThat(silverPlan.get("businessColumns").toString())
        .isEqualTo(
            "[\"id\",\"binlog_file\",\"binlog_pos\",\"binlog_row\",\"first_name\","
                + "\"last_name\",\"email\",\"op\"]");
    assertThat(silverPlan.get("derived").asBoolean()).isTrue();
    assertThat(silverPlan.get("invalidRows").asLong()).isZero();
    assertThat(silverPlan.get("conflicts").asLong()).isZero();

    CliRunner.Outcome run = CliRunner.run("run", "--config", out.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
    // The snapshot reads, the create, the updates (the two of one statement told apart by row,
    // after the rotation to binlog 000004) and the delete of 1002, each at its position.
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(lake.resolve("silver/customers").toString())
                    .selectExpr(
                        "id",
                        "binlog_file",
                        "binlog_pos",
                        "binlog_row",
                        "first_name",
                        "last_name",
                        "email")
                    .orderBy("id")))
        .containsExactly(
            "1001|mysql-bin.000004|154|0|Sally|Jones|sally.jones@acme.com",
            "1003|mysql-bin.000004|154|1|Edward|Walker|ed.walker@acme.com",
            "1004|mysql-bin.000003|805|0|Anne|Kretchmar|anne.k@acme.com");
  }

  @Test
  void samplesThatAreNotDebeziumEventsDraftAsBefore() throws Exception {
    // before, after, source with an lsn and ts_ms, but no op.
    Path noOp = Files.createDirectories(dir.resolve("landing/no_op"));
    write(
        noOp.resolve("a.json"),
        Instant.parse("2026-11-30T10:00:00Z"),
        "{\"before\":null,\"after\":{\"id\":1,\"status\":\"new\"},\"source\":{\"lsn\":10},\"ts_ms\":1}",
        "{\"before\":{\"id\":1,\"status\":\"new\"},\"after\":{\"id\":1,\"status\":\"paid\"},"
            + "\"source\":{\"lsn\":20},\"ts_ms\":2}");
    // The whole shape, but ops Debezium does not write.
    Path otherOps = Files.createDirectories(dir.resolve("landing/other_ops"));
    write(
        otherOps.resolve("a.json"),
        Instant.parse("2026-11-30T10:00:00Z"),
        "{\"before\":null,\"after\":{\"id\":1,\"status\":\"new\"},\"source\":{\"lsn\":10},"
            + "\"op\":\"INSERT\",\"ts_ms\":1}",
        "{\"before\":null,\"after\":{\"id\":1,\"status\":\"paid\"},\"source\":{\"lsn\":20},"
            + "\"op\":\"UPDATE\",\"ts_ms\":2}");
    for (Path landing : new Path[] {noOp, otherOps}) {
      Path out = dir.resolve(landing.getFileName() + ".yaml");
      CliRunner.Outcome init =
          CliRunner.run("init", "--source", landing.toString(), "--out", out.toString());

      assertThat(init.exitCode()).as(init.err()).isEqualTo(0);
      assertThat(init.out()).contains("; key candidates: ").doesNotContain("Debezium");
      String yaml = Files.readString(out);
      assertThat(yaml)
          .contains(
              "# THIS FILE DOES NOT RUN YET: choose silver.keys and silver.sequenceBy below",
              "  keys: []                # CHOOSE, e.g. keys: [",
              "  sequenceBy: []          # CHOOSE, e.g. sequenceBy: [")
          .doesNotContain("columns:", "Debezium", "applyAsTruncates");
    }
  }

  private static long bytes(Path directory) throws IOException {
    try (var files = Files.list(directory)) {
      long total = 0;
      for (Path f : files.toList()) {
        total += Files.size(f);
      }
      return total;
    }
  }

  private static void write(Path file, Instant modified, String... lines) throws IOException {
    Files.writeString(file, String.join("\n", lines) + "\n");
    Files.setLastModifiedTime(file, FileTime.from(modified));
  }
}
