package io.replaysafe.silver;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
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

  final Path dir;
  final PipelineConfig config;
  private final SparkSession spark;
  private int deliveries;

  private final String yaml;

  SilverHarness(SparkSession spark, Path dir, String schema, String silverYaml) {
    this.spark = spark;
    this.dir = dir;
    this.yaml = TestContracts.yaml("orders", dir, schema, silverYaml);
    this.config = ConfigLoader.parse("test", yaml);
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
    return new SilverHarness(
        spark,
        dir,
        ORDERS_SCHEMA,
        "keys: [order_id]\nsequenceBy: [source_version]\napplyAsDeletes: \"op = 'DELETE'\"\n"
            + "exceptColumnList: [op]\n"
            + extraYaml);
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
      Files.writeString(dir.resolve("landing").resolve(name), String.join("\n", lines) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return name;
  }

  /** One scheduled run: bronze then silver. */
  SilverResult run() {
    BronzeIngest.from(config, spark).execute();
    return silverOnly();
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
