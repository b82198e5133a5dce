package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.util.List;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The bronze contract, run once per storage backend (local disk, embedded S3, LocalStack) and
 * discovery mode (listing; notifications over the embedded S3 endpoint). Each test gets its own
 * prefix, so tests share the backend but never each other's files.
 */
abstract class AbstractBronzeContractTest extends SparkTestBase {
  static final String SCHEMA =
      "order_id BIGINT, source_version BIGINT, status STRING, op STRING,"
          + " customer STRUCT<name: STRING, zip: INT>";
  static final String COLUMNS = "order_id, source_version, status, op, customer";

  /** The backend under test. */
  protected abstract LandingZone zone();

  /** The source's discovery keys ({@code source.discovery} and the rest); none for listing. */
  protected String discoveryYaml() {
    return "";
  }

  private String run;

  @BeforeEach
  void newPrefix() {
    run = "t" + UUID.randomUUID().toString().substring(0, 8);
  }

  String at(String relative) {
    return zone().root() + "/" + run + "/" + relative;
  }

  String uri(String relative) {
    return zone().fileUri(run + "/" + relative);
  }

  void land(String name, String... lines) {
    zone()
        .put(
            run + "/landing/" + name,
            (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
  }

  PipelineConfig config(String landing, String checkpoint, String extraSource) {
    return ConfigLoader.parse(
        "test",
        "name: orders\n"
            + zone().storageYaml()
            + "source:\n  path: "
            + at(landing)
            + "\n  schema: \""
            + SCHEMA
            + "\"\n"
            + discoveryYaml()
            + extraSource
            + "bronze:\n  path: "
            + at("bronze")
            + "\n  checkpoint: "
            + at(checkpoint)
            + "\n");
  }

  PipelineConfig config() {
    return config("landing", "checkpoint", "");
  }

  BronzeResult ingest(PipelineConfig config) {
    return BronzeIngest.from(config, spark).execute();
  }

  Dataset<Row> bronze() {
    return spark.read().format("delta").load(at("bronze"));
  }

  List<String> bronzeRows(String columns) {
    return rows(bronze().selectExpr(columns.split(",\\s*")).orderBy("source_file", "order_id"));
  }

  @Test
  void rescuesUnknownTypeMismatchedCaseMismatchedAndNestedFields() {
    land(
        "a.json",
        "{\"order_id\":1,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"customer\":{\"name\":\"Ann\",\"zip\":12345}}",
        "{\"order_id\":2,\"source_version\":1,\"status\":\"Created\",\"coupon\":\"X1\"}",
        "{\"order_id\":\"three\",\"source_version\":3,\"status\":\"Created\"}",
        "{\"order_id\":4,\"source_version\":1,\"Status\":\"Shipped\"}",
        "{\"order_id\":5,\"source_version\":1,\"customer\":{\"name\":\"Bo\",\"zip\":\"N/A\",\"tier\":\"gold\"}}");

    BronzeResult result = ingest(config());

    String file = uri("landing/a.json");
    assertThat(rows(bronze().selectExpr(COLUMNS.split(", ")).orderBy("source_version", "order_id")))
        .containsExactly(
            "1|1|Created|UPSERT|[Ann,12345]",
            "2|1|Created|null|null",
            "4|1|null|null|null",
            "5|1|null|null|[Bo,null]",
            "null|3|Created|null|null");
    assertThat(
            rows(
                bronze()
                    .selectExpr("order_id", "_rescued_data", "_corrupt_record")
                    .orderBy("order_id")))
        .containsExactly(
            "null|{\"order_id\":\"three\",\"_file_path\":\"" + file + "\"}|null",
            "1|null|null",
            "2|{\"coupon\":\"X1\",\"_file_path\":\"" + file + "\"}|null",
            "4|{\"Status\":\"Shipped\",\"_file_path\":\"" + file + "\"}|null",
            "5|{\"customer\":{\"zip\":\"N/A\",\"tier\":\"gold\"},\"_file_path\":\""
                + file
                + "\"}|null");
    assertThat(result)
        .extracting(
            BronzeResult::files,
            BronzeResult::rows,
            BronzeResult::rescuedRows,
            BronzeResult::corruptRows)
        .containsExactly(1L, 5L, 4L, 0L);
  }

  @Test
  void keepsMalformedLinesWithTheirRawTextAndProvenance() {
    land(
        "bad.json",
        "{\"order_id\":7,\"source_version\":1,\"status\":\"Created\"}",
        "not json at all",
        "[1,2,3]",
        "{\"order_id\":8,\"source_version\":",
        "",
        "{\"order_id\":9} trailing");

    BronzeResult result = ingest(config());

    assertThat(
            rows(
                bronze()
                    .selectExpr(
                        "order_id",
                        "status",
                        "_rescued_data",
                        "_corrupt_record",
                        "source_file_name")
                    .orderBy("_corrupt_record")))
        .containsExactly(
            "7|Created|null|null|bad.json",
            "null|null|null|[1,2,3]|bad.json",
            "null|null|null|not json at all|bad.json",
            "null|null|null|{\"order_id\":8,\"source_version\":|bad.json",
            "null|null|null|{\"order_id\":9} trailing|bad.json");
    assertThat(result.rows()).isEqualTo(5);
    assertThat(result.corruptRows()).isEqualTo(4);
  }

  @Test
  void readsGzipByExtension() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
      gzip.write(
          ("{\"order_id\":11,\"source_version\":2,\"status\":\"Shipped\"}\n"
                  + "{\"order_id\":12,\"source_version\":1,\"status\":\"Created\",\"note\":\"gz\"}\n")
              .getBytes(StandardCharsets.UTF_8));
    }
    zone().put(run + "/landing/batch.json.gz", bytes.toByteArray());

    ingest(config());

    String file = uri("landing/batch.json.gz");
    assertThat(bronzeRows("order_id, source_version, status, _rescued_data"))
        .containsExactly(
            "11|2|Shipped|null", "12|1|Created|{\"note\":\"gz\",\"_file_path\":\"" + file + "\"}");
  }

  @Test
  void recordsProvenanceOfEveryRow() {
    String line = "{\"order_id\":21,\"source_version\":1,\"status\":\"Created\"}";
    land("p.json", line);
    long before = System.currentTimeMillis();

    ingest(config());

    Row row =
        bronze()
            .selectExpr(
                "source_file",
                "source_file_name",
                "source_file_size",
                "source_file_mtime",
                "ingested_at")
            .first();
    assertThat(row.getString(0)).isEqualTo(uri("landing/p.json"));
    assertThat(row.getString(1)).isEqualTo("p.json");
    assertThat(row.getLong(2)).isEqualTo(line.length() + 1);
    assertThat(((Timestamp) row.get(3)).toInstant().toEpochMilli() / 1000)
        .isEqualTo(zone().modificationTime(run + "/landing/p.json").toEpochMilli() / 1000);
    assertThat(((Timestamp) row.get(4)).getTime())
        .isBetween(before - 1000, System.currentTimeMillis());
  }

  @Test
  void restartsFromItsCheckpoint() {
    String v1 = "{\"order_id\":31,\"source_version\":1,\"status\":\"Created\"}";
    String v2 = "{\"order_id\":31,\"source_version\":2,\"status\":\"Shipped\"}";
    land("1.json", v1, v2);
    PipelineConfig config = config();

    BronzeResult first = ingest(config);
    assertThat(first).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(1L, 2L);

    // Same checkpoint, nothing new: nothing is ingested and no version is written.
    BronzeResult again = ingest(config);
    assertThat(again).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(0L, 0L);
    assertThat(again.bronzeVersion()).isEqualTo(first.bronzeVersion());

    // A new file is ingested alone.
    land("2.json", "{\"order_id\":32,\"source_version\":1,\"status\":\"Created\"}");
    BronzeResult newFile = ingest(config);
    assertThat(newFile).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(1L, 1L);

    // The same events in another object are ingested again: bronze keeps what it receives.
    land("3-redelivery.json", v1, v2);
    BronzeResult redelivery = ingest(config);
    assertThat(redelivery)
        .extracting(BronzeResult::files, BronzeResult::rows)
        .containsExactly(1L, 2L);
    assertThat(bronzeRows("source_file_name, order_id, source_version"))
        .containsExactly(
            "1.json|31|1",
            "1.json|31|2",
            "2.json|32|1",
            "3-redelivery.json|31|1",
            "3-redelivery.json|31|2");

    // A deleted checkpoint forgets every file: all of them are ingested a second time.
    zone().deleteTree(run + "/checkpoint");
    BronzeResult forgotten = ingest(config);
    assertThat(forgotten)
        .extracting(BronzeResult::files, BronzeResult::rows)
        .containsExactly(3L, 5L);
    assertThat(bronze().count()).isEqualTo(10);
  }

  @Test
  void refusesACheckpointThatBelongsToAnotherSource() {
    land("1.json", "{\"order_id\":41,\"source_version\":1,\"status\":\"Created\"}");
    ingest(config("landing", "checkpoint", ""));

    assertThatThrownBy(() -> ingest(config("other-landing", "checkpoint", "")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Cannot use bronze.checkpoint " + at("checkpoint"))
        .hasMessageContaining("path '" + at("landing") + "'")
        .hasMessageContaining("this pipeline's source has path '" + at("other-landing") + "'")
        .hasMessageContaining("Give this source its own bronze.checkpoint");
  }

  @Test
  void failOnNewColumnsStopsNamingTheFieldAndFile() {
    land(
        "new.json",
        "{\"order_id\":51,\"source_version\":1,\"status\":\"Created\",\"channel\":\"web\"}");

    assertThatThrownBy(
            () ->
                ingest(
                    config("landing", "checkpoint", "  schemaEvolutionMode: failOnNewColumns\n")))
        .isInstanceOf(NewColumnException.class)
        .hasMessageStartingWith(
            "New field 'channel' in " + uri("landing/new.json") + " is not declared");
    assertThat(io.delta.tables.DeltaTable.isDeltaTable(spark, at("bronze")) ? bronze().count() : 0L)
        .isZero();
  }
}
