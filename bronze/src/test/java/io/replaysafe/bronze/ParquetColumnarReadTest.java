package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bronze's Parquet read in column batches (issue 29): a batch with a file whose footer needs no
 * conversion is scanned in column batches, and its rows must be exactly what the row-by-row mapping
 * gives for the same files ({@link BronzeRows#rows}, the retry path, which reads rows), what
 * Spark's plain reader gives for the declared columns, and what the rescue rules say for the rest.
 */
class ParquetColumnarReadTest extends SparkTestBase {
  static final String SCHEMA = "id BIGINT, amount DOUBLE, status STRING, missing INT";

  /** Every column of the bronze table but the ingestion time, by id. */
  static final String[] COLUMNS = {
    "id",
    "amount",
    "status",
    "missing",
    "_rescued_data",
    "_corrupt_record",
    "_corrupt_record_base64",
    "source_file_name",
    "source_file_size"
  };

  @TempDir Path dir;

  private final List<String> plans = Collections.synchronizedList(new ArrayList<>());
  private final SparkListener planListener =
      new SparkListener() {
        @Override
        public void onOtherEvent(SparkListenerEvent event) {
          if (event instanceof SparkListenerSQLExecutionStart start) {
            plans.add(start.physicalPlanDescription());
          }
        }
      };

  /**
   * Spark scans in column batches only under whole-stage code generation, which the tests' session
   * turns off ({@code SparkTestBase}); production keeps Spark's default (on).
   */
  @BeforeEach
  void scanAsProductionDoes() {
    spark.conf().set("spark.sql.codegen.wholeStage", "true");
    spark.sparkContext().addSparkListener(planListener);
  }

  @AfterEach
  void restoreTestSettings() {
    spark.sparkContext().removeSparkListener(planListener);
    spark.conf().set("spark.sql.codegen.wholeStage", "false");
  }

  PipelineConfig config() {
    return config(SCHEMA);
  }

  PipelineConfig config(String schema) {
    return ConfigLoader.parse(
        "test",
        "name: columnar\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  format: parquet\n  schema: \""
            + schema
            + "\"\nbronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("checkpoint")
            + "\n");
  }

  /** Writes the query's rows as one Parquet file named {@code name} into the landing. */
  Path land(String name, String query) throws IOException {
    Path out = dir.resolve("written-" + name);
    spark.sql(query).coalesce(1).write().parquet(out.toString());
    Path part;
    try (Stream<Path> files = Files.list(out)) {
      part =
          files
              .filter(p -> p.getFileName().toString().startsWith("part-"))
              .findFirst()
              .orElseThrow();
    }
    Path landed = dir.resolve("landing").resolve(name);
    Files.createDirectories(landed.getParent());
    Files.move(part, landed);
    return landed;
  }

  Dataset<Row> bronze() {
    return spark.read().format("delta").load(dir.resolve("bronze").toString());
  }

  /** The same files through the row-by-row mapping (a batch read, never columnar). */
  List<String> rowByRow(List<Path> files) {
    List<String> paths = files.stream().map(p -> p.toUri().toString()).toList();
    return rows(BronzeRows.rows(spark, config().source(), paths).selectExpr(COLUMNS).orderBy("id"));
  }

  /** Whether the bronze run's scan of the landed files read column batches. */
  boolean scannedColumnar() {
    return plans.stream()
        .anyMatch(p -> p.contains("Batched: true") && p.contains("Scan replaysafe-rescuing"));
  }

  /** Whether any scan of the bronze run read rows. */
  boolean scannedRows() {
    return plans.stream()
        .anyMatch(p -> p.contains("Batched: false") && p.contains("Scan replaysafe-rescuing"));
  }

  static String path(Path file) {
    return file.toUri().toString().replace("file:///", "file:/");
  }

  @Test
  void filesOnTheSchemaAndFilesWithAnUndeclaredColumnAreReadInColumnBatches() throws IOException {
    // 5,000 rows: more than one of the reader's batches (4,096 rows).
    Path onSchema =
        land(
            "a-on-schema.parquet",
            "SELECT id, id * 1.5D amount, CASE WHEN id % 3 = 0 THEN NULL ELSE 's' || id END status"
                + " FROM range(1, 5001)");
    // The undeclared column holds a value in three rows only, one in the reader's second batch.
    Path extra =
        land(
            "b-extra.parquet",
            "SELECT id, 2.0D amount, 'x' status,"
                + " CASE WHEN id IN (10001, 10002, 14500) THEN 'SPRING' || id END coupon,"
                + " CASE WHEN id = 10002 THEN named_struct('k', id) END nested"
                + " FROM range(10001, 15001)");

    BronzeResult result = BronzeIngest.from(config(), spark).execute();

    assertThat(result.rows()).isEqualTo(10_000);
    assertThat(result.rescuedRows()).isEqualTo(3);
    assertThat(scannedColumnar()).isTrue();
    assertThat(scannedRows()).isFalse();
    List<String> bronzeRows = rows(bronze().selectExpr(COLUMNS).orderBy("id"));
    assertThat(bronzeRows).isEqualTo(rowByRow(List.of(onSchema, extra)));
    // The declared columns as Spark's plain reader of the same files gives them.
    assertThat(rows(bronze().selectExpr("id", "amount", "status", "missing").orderBy("id")))
        .isEqualTo(
            rows(
                spark
                    .read()
                    .schema(StructType.fromDDL(SCHEMA))
                    .parquet(onSchema.toString(), extra.toString())
                    .orderBy("id")));
    String b = path(extra);
    assertThat(
            rows(
                bronze()
                    .selectExpr("id", "_rescued_data")
                    .where("_rescued_data IS NOT NULL")
                    .orderBy("id")))
        .containsExactly(
            "10001|{\"coupon\":\"SPRING10001\",\"_file_path\":\"" + b + "\"}",
            "10002|{\"coupon\":\"SPRING10002\",\"nested\":{\"k\":10002},\"_file_path\":\""
                + b
                + "\"}",
            "14500|{\"coupon\":\"SPRING14500\",\"_file_path\":\"" + b + "\"}");
    assertThat(bronzeRows.get(0))
        .isEqualTo("1|1.5|s1|null|null|null|null|a-on-schema.parquet|" + Files.size(onSchema));
    assertThat(bronzeRows.get(2)).startsWith("3|4.5|null|null|null|");
  }

  /**
   * Every type ParquetAvroSourceTest reads row by row (nested struct, arrays, map, decimal, binary,
   * date, timestamp, NaN), read in column batches: the plain reader's values.
   */
  @Test
  void everyTypeReadInColumnBatchesIsWhatSparksPlainReaderGives() throws IOException {
    land("a.parquet", ParquetAvroSourceTest.ROWS);
    StructType schema = StructType.fromDDL(ParquetAvroSourceTest.SCHEMA);

    BronzeResult result = BronzeIngest.from(config(ParquetAvroSourceTest.SCHEMA), spark).execute();

    assertThat(result.rows()).isEqualTo(3);
    assertThat(result.rescuedRows()).isZero();
    assertThat(scannedColumnar()).isTrue();
    String[] shown = ParquetAvroSourceTest.shown(schema);
    List<String> expected =
        rows(
            spark
                .read()
                .schema(schema)
                .parquet(dir.resolve("landing").toString())
                .selectExpr(shown)
                .orderBy("id"));
    assertThat(rows(bronze().selectExpr(shown).orderBy("id"))).isEqualTo(expected);
    assertThat(expected.get(0))
        .isEqualTo(
            "1|7|1.5|12.50|caf\u00e9|true|2024-02-29|2024-01-05 10:11:12.345678|000102"
                + "|[1,null,3]|{\"a\":1}|{\"x\":5,\"y\":\"why\",\"z\":[1.5]}|[{\"k\":\"p\",\"v\":2}]");
    assertThat(rows(bronze().selectExpr("count(_rescued_data)", "count(_corrupt_record)")))
        .containsExactly("0|0");
  }

  @Test
  void inABatchReadInColumnBatchesAFileThatNeedsConversionIsMappedRowByRow() throws IOException {
    Path onSchema = land("a-on-schema.parquet", "SELECT id, 1.0D amount FROM range(1, 4)");
    // amount as text: a declared column of another type, rescued as the JSON path rescues a
    // string where the schema declares a number.
    Path text =
        land(
            "b-text.parquet",
            "SELECT id, CASE WHEN id = 11 THEN '2.5' ELSE 'n/a' END amount, 'T' status"
                + " FROM range(11, 14)");
    // id as INT: widened to the declared BIGINT.
    Path narrow =
        land("c-narrow.parquet", "SELECT CAST(id AS INT) id, 3.0D amount FROM range(21, 23)");

    BronzeResult result = BronzeIngest.from(config(), spark).execute();

    assertThat(result.batches()).isEqualTo(1);
    assertThat(result.rows()).isEqualTo(8);
    assertThat(result.rescuedRows()).isEqualTo(3);
    assertThat(scannedColumnar()).isTrue();
    List<String> bronzeRows = rows(bronze().selectExpr(COLUMNS).orderBy("id"));
    assertThat(bronzeRows).isEqualTo(rowByRow(List.of(onSchema, text, narrow)));
    String b = path(text);
    assertThat(
            rows(
                bronze()
                    .selectExpr("id", "amount", "status", "_rescued_data", "source_file_name")
                    .orderBy("id")))
        .containsExactly(
            "1|1.0|null|null|a-on-schema.parquet",
            "2|1.0|null|null|a-on-schema.parquet",
            "3|1.0|null|null|a-on-schema.parquet",
            "11|null|T|{\"amount\":\"2.5\",\"_file_path\":\"" + b + "\"}|b-text.parquet",
            "12|null|T|{\"amount\":\"n/a\",\"_file_path\":\"" + b + "\"}|b-text.parquet",
            "13|null|T|{\"amount\":\"n/a\",\"_file_path\":\"" + b + "\"}|b-text.parquet",
            "21|3.0|null|null|c-narrow.parquet",
            "22|3.0|null|null|c-narrow.parquet");
  }

  @Test
  void aBatchWithoutAFileThatReadsColumnarIsReadRowByRow() throws IOException {
    Path text = land("a-text.parquet", "SELECT id, CAST(id AS STRING) amount FROM range(1, 3)");

    BronzeResult result = BronzeIngest.from(config(), spark).execute();

    assertThat(result.rows()).isEqualTo(2);
    assertThat(scannedColumnar()).isFalse();
    assertThat(scannedRows()).isTrue();
    assertThat(rows(bronze().selectExpr(COLUMNS).orderBy("id"))).isEqualTo(rowByRow(List.of(text)));
    String a = path(text);
    assertThat(rows(bronze().selectExpr("id", "amount", "_rescued_data").orderBy("id")))
        .containsExactly(
            "1|null|{\"amount\":\"1\",\"_file_path\":\"" + a + "\"}",
            "2|null|{\"amount\":\"2\",\"_file_path\":\"" + a + "\"}");
  }
}
