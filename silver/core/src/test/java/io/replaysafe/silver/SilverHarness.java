package io.replaysafe.silver;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.PipelineYaml;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A whole pipeline on local disk for silver contract tests: deliveries are files in the landing
 * directory, and each {@link #run()} is one real availableNow run of bronze, then silver.
 */
final class SilverHarness {
  static final String ORDERS_SCHEMA =
      "order_id BIGINT, source_version BIGINT, status STRING, op STRING";

  /**
   * How the orders' events land: as rows, or each wrapped in an envelope ({@code {"payload": <row>,
   * "ts_ms": <delivery>}}) that {@code silver.columns} unwraps, so the same contract tests run
   * through derived columns. The envelope's {@code ts_ms} differs on every delivery, as a CDC
   * connector's processing time does when it re-emits an event.
   */
  enum Shape {
    PLAIN,
    ENVELOPE;

    String schema() {
      return this == PLAIN
          ? ORDERS_SCHEMA
          : "payload STRUCT<order_id: BIGINT, source_version: BIGINT, status: STRING, op: STRING>,"
              + " ts_ms BIGINT";
    }

    String columns() {
      return this == PLAIN
          ? ""
          : "columns:\n  order_id: \"payload.order_id\"\n  source_version: \"payload.source_version\"\n"
              + "  status: \"payload.status\"\n  op: \"payload.op\"\n";
    }

    /** A field of the raw payload (quarantine's {@code raw_payload}) as a JSON path. */
    String rawField(String field) {
      return this == PLAIN ? "$." + field : "$.payload." + field;
    }

    String line(String row, int delivery) {
      return this == PLAIN || !row.startsWith("{")
          ? row
          : "{\"payload\":" + row + ",\"ts_ms\":" + delivery + "}";
    }
  }

  final Path dir;
  final PipelineConfig config;
  private final SparkSession spark;
  private final Shape shape;
  private int deliveries;

  private final String yaml;

  SilverHarness(SparkSession spark, Path dir, String schema, String silverYaml) {
    this(spark, dir, "silver", schema, silverYaml, Shape.PLAIN);
  }

  /**
   * A pipeline whose silver table is {@code dir/silverName}: pipelines under one {@code dir} share
   * the landing directory and bronze, so several contracts (or a rebuild) read the same bronze.
   */
  SilverHarness(SparkSession spark, Path dir, String silverName, String schema, String silverYaml) {
    this(spark, dir, silverName, schema, silverYaml, Shape.PLAIN);
  }

  private SilverHarness(
      SparkSession spark,
      Path dir,
      String silverName,
      String schema,
      String silverYaml,
      Shape shape) {
    this.shape = shape;
    this.spark = spark;
    this.dir = dir;
    this.yaml = PipelineYaml.local("orders", dir, silverName, schema, silverYaml);
    this.config = ConfigLoader.parse("test", yaml);
  }

  private SilverHarness(SilverHarness from, PipelineConfig config) {
    this.spark = from.spark;
    this.dir = from.dir;
    this.yaml = from.yaml;
    this.shape = from.shape;
    this.config = config;
    this.deliveries = from.deliveries;
  }

  /** The same pipeline with {@code evidence.showValues: true} (as {@code --show-values}). */
  SilverHarness showingValues() {
    return new SilverHarness(this, config.showingValues());
  }

  /**
   * The same pipeline (same tables, checkpoints and landing directory) under a changed contract:
   * another source schema and silver section. Deliveries go on numbering from this one's.
   */
  SilverHarness evolved(String schema, String silverYaml) {
    SilverHarness next = new SilverHarness(spark, dir, schema, silverYaml);
    next.deliveries = deliveries;
    return next;
  }

  /** This pipeline as a file, with extra silver keys (indented YAML), for CLI commands. */
  Path writePipelineFile(String extraSilverYaml) throws IOException {
    Path file = dir.resolve("pipeline.yaml");
    Files.writeString(file, yaml + extraSilverYaml);
    return file;
  }

  /** The orders contract of seeds 000 and 003: key order_id, sequence source_version. */
  static SilverHarness orders(SparkSession spark, Path dir, String extraYaml) {
    return orders(spark, dir, extraYaml, Shape.PLAIN);
  }

  /** The same contract, its events landing in {@code shape}. */
  static SilverHarness orders(SparkSession spark, Path dir, String extraYaml, Shape shape) {
    return new SilverHarness(
        spark,
        dir,
        "silver",
        shape.schema(),
        shape.columns()
            + "keys: [order_id]\nsequenceBy: [source_version]\napplyAsDeletes: \"op = 'DELETE'\"\n"
            + "exceptColumnList: [op]\n"
            + extraYaml,
        shape);
  }

  static String order(long id, long version, String status) {
    return "{\"order_id\":"
        + id
        + ",\"source_version\":"
        + version
        + ",\"status\":"
        + (status == null ? "null" : "\"" + status + "\"")
        + ",\"op\":\"UPSERT\"}";
  }

  static String delete(long id, long version) {
    return "{\"order_id\":"
        + id
        + ",\"source_version\":"
        + version
        + ",\"status\":null,\"op\":\"DELETE\"}";
  }

  /** Lands one file with these lines; returns its name. */
  String deliver(String... lines) {
    deliveries++;
    String name = String.format("delivery-%03d.json", deliveries);
    try {
      Files.createDirectories(dir.resolve("landing"));
      List<String> landed = new java.util.ArrayList<>();
      for (String line : lines) {
        landed.add(shape.line(line, deliveries));
      }
      Files.writeString(dir.resolve("landing").resolve(name), String.join("\n", landed) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return name;
  }

  /** One scheduled run: bronze then silver. */
  SilverResult run() {
    bronzeOnly();
    return silverOnly();
  }

  void bronzeOnly() {
    BronzeIngest.from(config, spark).execute();
  }

  SilverResult silverOnly() {
    return SilverJob.from(config, spark).execute();
  }

  Dataset<Row> silver() {
    return spark.read().format("delta").load(config.requireSilver().path());
  }

  /** Silver's business columns, "101|2|Shipped", ordered by key. */
  List<String> silverRows() {
    Dataset<Row> s = silver();
    return SparkTestBase.rowsOf(
        s.selectExpr(config.silverColumns().toArray(String[]::new))
            .orderBy(
                config.requireSilver().keys().stream()
                    .map(s::col)
                    .toArray(org.apache.spark.sql.Column[]::new)));
  }

  Dataset<Row> quarantine() {
    return spark.read().format("delta").load(config.requireSilver().quarantinePath());
  }

  Dataset<Row> runs() {
    return spark.read().format("delta").load(config.requireSilver().runsPath());
  }

  Dataset<Row> tombstones() {
    return spark.read().format("delta").load(config.requireSilver().path() + "_tombstones");
  }

  /** Silver content including replaysafe's columns except the applied-at time. */
  List<String> silverContent() {
    Dataset<Row> s = silver().drop(SilverContract.APPLIED_AT);
    return SparkTestBase.rowsOf(s.orderBy(s.columns()[0]));
  }
}
