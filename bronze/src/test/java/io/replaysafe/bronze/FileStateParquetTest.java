package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.common.testing.SystemProperties;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.delta.actions.AddFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file state's small writes made on the driver ({@link FileStateParquet}) against the same
 * writes made by Spark and Delta, the oracle: the same rows read back through Delta, to the
 * microsecond, and statistics that bound the rows as Delta's do, so that Delta's skipping and the
 * run's own questions of the statistics answer alike. Paths beyond ASCII are in every case: Spark
 * orders strings by their UTF-8 bytes, Java by UTF-16 units, and a file whose greatest path were
 * taken in Java's order would be skipped by a lookup of the path that is really its greatest.
 */
class FileStateParquetTest extends SparkTestBase {
  @TempDir Path dir;

  @RegisterExtension final SystemProperties properties = new SystemProperties();

  /** Every small write and read on the driver (the default), or none: Spark's and Delta's own. */
  private void onDriver(boolean driver) {
    properties.set(
        SmallFileStateLookup.MAX_BYTES_PROPERTY,
        driver ? Long.toString(SmallFileStateLookup.MAX_BYTES_DEFAULT) : "0");
  }

  private static final FileDiscovery LISTING = ListingOnly.INSTANCE;

  // Longer than Delta's 32 characters of a string's statistics, and beyond ASCII: U+1F600 sorts
  // after U+FF21 in UTF-8 and before it in UTF-16.
  private static final String LONG = "s3a://landing/orders/2026/12/05/part-";
  private static final List<FileState.Discovered> BATCH_0 =
      List.of(
          new FileState.Discovered(LONG + "b.json", 10, 1_764_900_000_123L, "\"etag-b\""),
          new FileState.Discovered(LONG + "\uD83D\uDE00.json", 11, 1_764_900_000_456L, null),
          new FileState.Discovered("s3a://landing/a.json", 12, 1_764_900_000_789L, "\"etag-a\""));
  private static final List<FileState.Discovered> BATCH_1 =
      List.of(
          new FileState.Discovered(LONG + "\uFF21.json", 13, 1_764_900_001_000L, null),
          new FileState.Discovered("s3a://landing/z.json", 14, 1_764_900_001_001L, "\"etag-z\""));

  private FileState table(String name, boolean driver) {
    onDriver(driver);
    FileState state = FileState.of(spark, dir.resolve(name).toString());
    state.ensure("orders");
    return state;
  }

  /** Every column of every row but the two times of the write itself, by path. */
  private List<String> rows(FileState state) {
    return rowsOf(
        state
            .read()
            .selectExpr(
                "path", "size", "modification_time", "etag", "discovered_by", "batch_id", "status")
            .orderBy("path"));
  }

  private List<AddFile> files(FileState state) {
    return DeltaTables.filesFromChecksum(DeltaTables.snapshot(spark, state.path()).orElseThrow())
        .orElseThrow();
  }

  @Test
  void aPlanWrittenOnTheDriverReadsBackAsDeltasWriteWithStatisticsThatBoundItsRows() {
    FileState bySpark = table("spark", false);
    bySpark.plan(BATCH_0, 0, LISTING);
    FileState onDriver = table("driver", true);
    onDriver.plan(BATCH_0, 0, LISTING);

    assertThat(rows(onDriver)).isEqualTo(rows(bySpark)).hasSize(3);
    assertThat(rows(onDriver).get(0))
        .isEqualTo(
            "s3a://landing/a.json|12|2025-12-05 02:00:00.789|\"etag-a\"|listing|0|discovered");

    JsonNode ours = Json.tryRead(files(onDriver).get(0).stats()).orElseThrow();
    JsonNode deltas = Json.tryRead(files(bySpark).get(0).stats()).orElseThrow();
    assertThat(ours.get("numRecords")).isEqualTo(deltas.get("numRecords"));
    assertThat(ours.get("nullCount")).isEqualTo(deltas.get("nullCount"));
    for (String column :
        List.of("size", "modification_time", "etag", "discovered_by", "batch_id", "status")) {
      assertThat(ours.at("/minValues/" + column))
          .as(column)
          .isEqualTo(deltas.at("/minValues/" + column));
      assertThat(ours.at("/maxValues/" + column))
          .as(column)
          .isEqualTo(deltas.at("/maxValues/" + column));
    }
    // Delta cuts a path's statistics to 32 characters; ours are the whole values, in UTF-8 order.
    assertThat(ours.at("/minValues/path").asText()).isEqualTo("s3a://landing/a.json");
    assertThat(ours.at("/maxValues/path").asText()).isEqualTo(LONG + "\uD83D\uDE00.json");
    assertThat(deltas.at("/minValues/path").asText())
        .isLessThanOrEqualTo(ours.at("/minValues/path").asText());
  }

  @Test
  void deltasSkippingAndTheSparkLookupFindEveryPathOfAFileWrittenOnTheDriver() {
    FileState state = table("driver", true);
    state.plan(BATCH_0, 0, LISTING);
    state.plan(BATCH_1, 1, LISTING);
    assertThat(files(state)).hasSize(2);

    List<FileState.Discovered> all = new ArrayList<>(BATCH_0);
    all.addAll(BATCH_1);
    for (FileState.Discovered f : all) {
      assertThat(
              state
                  .read()
                  .where(org.apache.spark.sql.functions.col("path").equalTo(f.path()))
                  .count())
          .as("a read of " + f.path() + " that Delta may skip files for")
          .isEqualTo(1);
    }
    List<FileState.Discovered> candidates = new ArrayList<>(all);
    FileState.Discovered fresh = new FileState.Discovered(LONG + "\uFF22.json", 1, 1, null);
    candidates.add(fresh);
    onDriver(false); // the lookup by Spark, which skips files by the path's statistics
    assertThat(state.notPlanned(candidates, 1, false)).containsExactly(fresh);
    assertThat(state.notPlanned(candidates, 0, false))
        .containsExactly(BATCH_1.get(0), BATCH_1.get(1), fresh);
  }

  /**
   * Delta's checkpoint of the log (every 100 commits of the file state) parses each file's
   * statistics into typed columns: those written on the driver parse, and a reader of the table
   * from the checkpoint alone finds every row, with its files skipped by them.
   */
  @Test
  void aCheckpointOfTheLogParsesTheStatisticsWrittenOnTheDriver() {
    FileState state = table("driver", true);
    state.plan(BATCH_0, 0, LISTING);
    state.plan(BATCH_1, 1, LISTING);
    state.markCommitted(0);
    List<String> before = rows(state);
    org.apache.spark.sql.delta.DeltaLog.forTable(spark, state.path()).checkpoint();
    org.apache.spark.sql.delta.DeltaLog.clearCache();

    assertThat(rows(state)).isEqualTo(before).hasSize(5);
    for (FileState.Discovered f : BATCH_1) {
      assertThat(
              state
                  .read()
                  .where(org.apache.spark.sql.functions.col("path").equalTo(f.path()))
                  .selectExpr("status")
                  .as(org.apache.spark.sql.Encoders.STRING())
                  .collectAsList())
          .containsExactly("discovered");
    }
    assertThat(state.read().where("committed_at IS NOT NULL AND batch_id = 0").count())
        .isEqualTo(3);
  }

  @Test
  void aMarkOnTheDriverKeepsEveryRowAndSparksTimesToTheMicrosecond() throws Exception {
    // Spark writes and marks the first batch: its committed_at has microseconds, as an INT96.
    FileState state = table("mixed", false);
    state.plan(BATCH_0, 0, LISTING);
    state.markCommitted(0);
    Map<String, String> committedBySpark = committedAt(state);
    assertThat(committedBySpark).hasSize(3);

    onDriver(true);
    state.plan(BATCH_1, 1, LISTING);
    assertThat(files(state)).hasSize(2);
    state.markCommitted(0);
    assertThat(files(state)).as("nothing of batch 1 to mark, so nothing rewritten").hasSize(2);
    state.markCommitted(1);

    assertThat(files(state)).as("both files rewritten as one").hasSize(1);
    assertThat(writtenOnDriver(state, files(state).get(0))).isTrue();
    assertThat(FileStateCommits.mayHoldUnmarked(files(state).get(0), 1)).isFalse();
    Map<String, String> committed = committedAt(state);
    assertThat(committed).hasSize(5);
    committedBySpark.forEach(
        (path, at) -> assertThat(committed.get(path)).as("kept: " + path).isEqualTo(at));
    assertThat(rows(state))
        .extracting(r -> r.substring(r.lastIndexOf('|', r.lastIndexOf('|') - 1) + 1))
        .containsExactly("0|ingested", "0|ingested", "1|ingested", "0|ingested", "1|ingested");

    FileState bySpark = table("spark", false);
    bySpark.plan(BATCH_0, 0, LISTING);
    bySpark.markCommitted(0);
    bySpark.plan(BATCH_1, 1, LISTING);
    bySpark.markCommitted(1);
    assertThat(rows(state)).isEqualTo(rows(bySpark));
  }

  @Test
  void aMarkOnTheDriverLeavesLaterBatchesDiscoveredAndTheirStatisticsSayIt() throws Exception {
    FileState state = table("driver", true);
    state.plan(BATCH_0, 0, LISTING);
    state.plan(BATCH_1, 1, LISTING);
    state.markCommitted(0);

    assertThat(rows(state))
        .extracting(r -> r.substring(r.lastIndexOf('|', r.lastIndexOf('|') - 1) + 1))
        .containsExactly("0|ingested", "0|ingested", "1|discovered", "0|ingested", "1|discovered");
    assertThat(committedAt(state)).hasSize(3);
    AddFile only = files(state).get(0);
    assertThat(files(state)).hasSize(1);
    assertThat(writtenOnDriver(state, only)).isTrue();
    assertThat(FileStateCommits.mayHoldUnmarked(only, 1)).isTrue();
    assertThat(state.latest().lastPlanned()).hasValue(1);

    FileState bySpark = table("spark", false);
    bySpark.plan(BATCH_0, 0, LISTING);
    bySpark.plan(BATCH_1, 1, LISTING);
    bySpark.markCommitted(0);
    assertThat(rows(state)).isEqualTo(rows(bySpark));
    JsonNode ours = Json.tryRead(only.stats()).orElseThrow();
    JsonNode deltas = Json.tryRead(files(bySpark).get(0).stats()).orElseThrow();
    for (String column : List.of("batch_id", "status")) {
      assertThat(ours.at("/minValues/" + column)).isEqualTo(deltas.at("/minValues/" + column));
      assertThat(ours.at("/maxValues/" + column)).isEqualTo(deltas.at("/maxValues/" + column));
      assertThat(ours.at("/nullCount/" + column)).isEqualTo(deltas.at("/nullCount/" + column));
    }
    assertThat(ours.at("/nullCount/committed_at").asLong()).isEqualTo(2);
  }

  /**
   * Whether {@code file} is one this JVM wrote on the driver: its timestamps are INT64, where
   * Spark's writer (by default) writes INT96.
   */
  private boolean writtenOnDriver(FileState state, AddFile file) throws Exception {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(state.path(), file.path());
    try (var reader =
        org.apache.parquet.hadoop.ParquetFileReader.open(
            org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                path, spark.sparkContext().hadoopConfiguration()))) {
      return reader
              .getFooter()
              .getFileMetaData()
              .getSchema()
              .getType("committed_at")
              .asPrimitiveType()
              .getPrimitiveTypeName()
          == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;
    }
  }

  /** committed_at by path, of the rows that have one, to the microsecond. */
  private Map<String, String> committedAt(FileState state) {
    Map<String, String> at = new java.util.TreeMap<>();
    Iterator<Row> rows =
        state
            .read()
            .where("committed_at IS NOT NULL")
            .selectExpr("path", "CAST(unix_micros(committed_at) AS STRING)")
            .toLocalIterator();
    rows.forEachRemaining(r -> at.put(r.getString(0), r.getString(1)));
    return at;
  }
}
