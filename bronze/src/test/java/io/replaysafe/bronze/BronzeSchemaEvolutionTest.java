package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.ConfigException;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running bronze pipeline whose source.schema changes: compatible changes evolve the table under
 * the same checkpoint, incompatible ones are refused naming the change and the migration.
 */
class BronzeSchemaEvolutionTest extends SparkTestBase {
  static final String V1 =
      "order_id BIGINT, source_version INT, status STRING, customer STRUCT<name: STRING, zip: INT>";
  static final String V2 =
      "order_id BIGINT, source_version BIGINT, status STRING, coupon STRING,"
          + " customer STRUCT<name: STRING, zip: INT, tier: STRING>";

  @TempDir Path dir;

  PipelineConfig config(String schema, String extraSource) {
    return ConfigLoader.parse(
        "test",
        "name: orders\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \""
            + schema
            + "\"\n"
            + extraSource
            + "bronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("checkpoint")
            + "\n");
  }

  void land(String name, String... lines) throws IOException {
    Files.createDirectories(dir.resolve("landing"));
    Files.writeString(
        dir.resolve("landing").resolve(name),
        String.join("\n", lines) + "\n",
        StandardCharsets.UTF_8);
  }

  String file(String name) {
    return "file:" + dir.resolve("landing").resolve(name);
  }

  BronzeResult ingest(PipelineConfig config) {
    return BronzeIngest.from(config, spark).execute();
  }

  Dataset<Row> bronze() {
    return spark.read().format("delta").load(dir.resolve("bronze").toString());
  }

  @Test
  void addsColumnsAndWidensTypesInPlaceKeepingTheCheckpointAndTheRowsBefore() throws IOException {
    land(
        "a.json",
        "{\"order_id\":1,\"source_version\":1,\"status\":\"Created\",\"coupon\":\"X1\","
            + "\"customer\":{\"name\":\"Ann\",\"zip\":123,\"tier\":\"gold\"}}",
        "{\"order_id\":2,\"source_version\":3000000000,\"status\":\"Created\"}");
    ingest(config(V1, ""));

    land(
        "b.json",
        "{\"order_id\":3,\"source_version\":4000000000,\"status\":\"Paid\",\"coupon\":\"Y\","
            + "\"customer\":{\"name\":\"Bo\",\"zip\":1,\"tier\":\"silver\"}}");
    BronzeResult evolved = ingest(config(V2, ""));

    // The checkpoint went on: only the new file was read.
    assertThat(evolved).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(1L, 1L);
    assertThat(bronze().schema().toDDL())
        .startsWith(
            "order_id BIGINT,source_version BIGINT,status STRING,coupon STRING,"
                + "customer STRUCT<name: STRING, zip: INT, tier: STRING>,_rescued_data STRING,");
    String a = file("a.json");
    assertThat(
            rows(
                bronze()
                    .selectExpr(
                        "order_id",
                        "source_version",
                        "status",
                        "coupon",
                        "customer",
                        "_rescued_data",
                        "source_file_name")
                    .orderBy("order_id")))
        .containsExactly(
            "1|1|Created|null|[Ann,123,null]|{\"coupon\":\"X1\",\"customer\":{\"tier\":\"gold\"},"
                + "\"_file_path\":\""
                + a
                + "\"}|a.json",
            "2|null|Created|null|null|{\"source_version\":3000000000,\"_file_path\":\""
                + a
                + "\"}|a.json",
            "3|4000000000|Paid|Y|[Bo,1,silver]|null|b.json");

    // Running again changes nothing, and the binding lists both versions.
    long version =
        DeltaTable.forPath(spark, dir.resolve("bronze").toString()).history(1).head().getLong(0);
    BronzeResult again = ingest(config(V2, ""));
    assertThat(again.rows()).isZero();
    assertThat(again.bronzeVersion()).isEqualTo(version);
    List<SourceBinding.Version> history =
        SourceBinding.read(
            spark.sparkContext().hadoopConfiguration(), dir.resolve("checkpoint").toString());
    assertThat(history)
        .extracting(SourceBinding.Version::version, SourceBinding.Version::schema)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                1, org.apache.spark.sql.types.StructType.fromDDL(V1).toDDL()),
            org.assertj.core.groups.Tuple.tuple(
                2, org.apache.spark.sql.types.StructType.fromDDL(V2).toDDL()));
    assertThat(history.get(1).since()).isNotNull();
  }

  @Test
  void refusesADroppedColumnANarrowedTypeAndAChangedTypeNamingEachAndTheMigration()
      throws IOException {
    land("a.json", "{\"order_id\":1,\"source_version\":1,\"status\":\"Created\"}");
    ingest(config(V1, ""));
    String checkpoint = dir.resolve("checkpoint").toString();

    assertThatThrownBy(
            () ->
                ingest(
                    config(
                        "order_id INT, source_version STRING,"
                            + " customer STRUCT<name: STRING, zip: INT>",
                        "")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "Cannot continue bronze.checkpoint "
                + checkpoint
                + " with the new source.schema: column 'order_id' changed from BIGINT to INT,"
                + " which is not a widening Delta supports; column 'source_version' changed from"
                + " INT to STRING, which is not a widening Delta supports; column 'status'"
                + " (STRING) dropped or renamed (a rename is a drop plus an add). Rows already in"
                + " bronze were stored under the old schema")
        .hasMessageContaining(
            "To make this change, either (1) re-parse every file into a new bronze table: set"
                + " bronze.path and bronze.checkpoint to new locations")
        .hasMessageContaining("source.options.pathGlobFilter");
    // Nothing moved: the table keeps its schema and the binding its one version.
    assertThat(bronze().schema().apply("order_id").dataType().sql()).isEqualTo("BIGINT");
    assertThat(SourceBinding.read(spark.sparkContext().hadoopConfiguration(), checkpoint))
        .hasSize(1);
  }

  @Test
  void aNewRescuedColumnNameIsAddedAndOldRowsKeepTheirs() throws IOException {
    land("a.json", "{\"order_id\":1,\"source_version\":1,\"note\":\"old\"}");
    ingest(config(V1, ""));
    land("b.json", "{\"order_id\":2,\"source_version\":1,\"note\":\"new\"}");

    ingest(config(V1, "  rescuedDataColumn: _rescued\n"));

    assertThat(
            rows(bronze().selectExpr("order_id", "_rescued_data", "_rescued").orderBy("order_id")))
        .containsExactly(
            "1|{\"note\":\"old\",\"_file_path\":\"" + file("a.json") + "\"}|null",
            "2|null|{\"note\":\"new\",\"_file_path\":\"" + file("b.json") + "\"}");
    // The old rescued column's name cannot come back as a business column: the default rescued
    // column's name is reserved whatever the pipeline calls its own, so the file is refused at
    // load.
    assertThatThrownBy(
            () -> ingest(config(V1 + ", _rescued_data STRING", "  rescuedDataColumn: _rescued\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "Pipeline file test: source.schema declares column '_rescued_data', a name reserved by"
                + " the ingestion contract: it clashes with '_rescued_data' (bronze's own column).");
  }

  @Test
  void promotesRescuedValuesThatNowConvertOnceAndKeepsTheRowsBeforeInTimeTravel()
      throws IOException {
    land(
        "a.json",
        "{\"order_id\":1,\"source_version\":1,\"status\":\"Created\",\"coupon\":\"X1\","
            + "\"qty\":\"many\",\"customer\":{\"name\":\"Ann\",\"zip\":123,\"tier\":\"gold\"}}",
        "{\"order_id\":2,\"source_version\":3000000000,\"status\":\"Created\",\"qty\":7}",
        "{\"order_id\":3,\"source_version\":1,\"status\":\"Created\"}");
    ingest(config(V1, ""));
    PipelineConfig v2 = config(V2 + ", qty INT", "");
    ingest(v2);
    List<String> before =
        rows(bronze().selectExpr("order_id", "coupon", "qty", "_rescued_data").orderBy("order_id"));

    RescuePromotion.Result result = RescuePromotion.from(v2, spark).execute();

    String a = file("a.json");
    assertThat(result.promoted())
        .containsExactly(
            java.util.Map.entry("source_version", 1L),
            java.util.Map.entry("coupon", 1L),
            java.util.Map.entry("qty", 1L));
    assertThat(result.rowsChanged()).isEqualTo(2);
    assertThat(result.versionAfter()).isEqualTo(result.versionBefore() + 1);
    assertThat(
            rows(
                bronze()
                    .selectExpr("order_id", "source_version", "coupon", "qty", "_rescued_data")
                    .orderBy("order_id")))
        .containsExactly(
            "1|1|X1|null|{\"qty\":\"many\",\"customer\":{\"tier\":\"gold\"},\"_file_path\":\""
                + a
                + "\"}",
            "2|3000000000|null|7|null",
            "3|1|null|null|null");
    // Time travel shows the rows before, and the commit says what was done.
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .option("versionAsOf", result.versionBefore())
                    .load(dir.resolve("bronze").toString())
                    .selectExpr("order_id", "coupon", "qty", "_rescued_data")
                    .orderBy("order_id")))
        .isEqualTo(before);
    assertThat(
            DeltaTable.forPath(spark, dir.resolve("bronze").toString())
                .history(1)
                .select("userMetadata")
                .first()
                .getString(0))
        .isEqualTo(result.toJson());

    // Idempotent: nothing is left to move, and no version is written.
    RescuePromotion.Result again = RescuePromotion.from(v2, spark).execute();
    assertThat(again.rowsChanged()).isZero();
    assertThat(again.versionAfter()).isEqualTo(result.versionAfter());
    assertThat(again.summary())
        .isEqualTo(
            "bronze orders: nothing to promote from the rescued data; bronze table version "
                + result.versionAfter()
                + " unchanged");
  }
}
