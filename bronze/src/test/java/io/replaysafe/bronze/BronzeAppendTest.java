package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.execution.streaming.runtime.StreamExecution;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bronze's append: each batch once, under the query's id, as Delta's streaming sink commits it, and
 * without rebuilding the table's state to learn which batches are in.
 */
class BronzeAppendTest extends SparkTestBase {
  private static final String QUERY = "5f0c8a52-6a43-4bd8-a1b3-0c0b5c1d2e01";

  @TempDir Path dir;
  private String table;
  private final List<String> stateRebuilds = new CopyOnWriteArrayList<>();

  /** The state rebuilds made while appending (a read of the table rebuilds it, as it must). */
  private final List<String> rebuiltByAppends = new java.util.ArrayList<>();

  private final SparkListener rebuilds =
      new SparkListener() {
        @Override
        public void onJobStart(SparkListenerJobStart job) {
          String description = job.properties().getProperty("spark.job.description", "");
          if (description.contains("Compute snapshot for version")) {
            stateRebuilds.add(description);
          }
        }
      };

  @BeforeEach
  void setUp() {
    table = dir.resolve("bronze").toString();
    spark.sql("CREATE TABLE delta.`" + table + "` (id BIGINT, status STRING) USING delta");
    spark.sparkContext().addSparkListener(rebuilds);
  }

  @AfterEach
  void tearDown() {
    spark.sparkContext().removeSparkListener(rebuilds);
    spark.sparkContext().setLocalProperty(StreamExecution.QUERY_ID_KEY(), null);
  }

  private Dataset<Row> batch(String... rows) {
    return spark.sql("SELECT * FROM VALUES " + String.join(", ", rows) + " AS t(id, status)");
  }

  private void append(Dataset<Row> rows, long batchId) throws Exception {
    spark.sparkContext().setLocalProperty(StreamExecution.QUERY_ID_KEY(), QUERY);
    // Spark posts jobs to listeners asynchronously.
    spark.sparkContext().listenerBus().waitUntilEmpty();
    int before = stateRebuilds.size();
    try {
      new BronzeAppend(table).call(rows, batchId);
    } finally {
      spark.sparkContext().listenerBus().waitUntilEmpty();
      rebuiltByAppends.addAll(stateRebuilds.subList(before, stateRebuilds.size()));
    }
  }

  private List<String> tableRows() {
    return rows(spark.read().format("delta").load(table).orderBy("id"));
  }

  private List<String> commits() {
    return rows(
        io.delta.tables.DeltaTable.forPath(spark, table)
            .history()
            .orderBy("version")
            .selectExpr(
                "version",
                "operation",
                "operationParameters['queryId']",
                "operationParameters['epochId']",
                "operationMetrics['numAddedFiles']",
                "operationMetrics['numOutputRows']"));
  }

  @Test
  void appendsEachBatchOnceAndSkipsItsReplay() throws Exception {
    append(batch("(1L, 'NEW')", "(2L, 'NEW')").coalesce(1), 0);
    append(batch("(1L, 'NEW')", "(2L, 'NEW')").coalesce(1), 0); // replayed after a crash
    append(batch("(3L, 'PAID')").coalesce(1), 1);
    append(batch("(3L, 'PAID')").coalesce(1), 1);
    append(batch("(1L, 'NEW')", "(2L, 'NEW')").coalesce(1), 0); // an older one: still in

    assertThat(tableRows()).containsExactly("1|NEW", "2|NEW", "3|PAID");
    assertThat(commits())
        .containsExactly(
            "0|CREATE TABLE|null|null|null|null",
            "1|STREAMING UPDATE|" + QUERY + "|0|1|2",
            "2|STREAMING UPDATE|" + QUERY + "|1|1|1");
    // Every checksum from the table's creation on holds its transactions: no batch rebuilt the
    // table's state to find its own.
    assertThat(rebuiltByAppends).isEmpty();
    assertThat(BronzeAppend.fromChecksum(DeltaTables.snapshot(spark, table).orElseThrow(), QUERY))
        .isEqualTo(OptionalLong.of(1));
  }

  @Test
  void readsTheBatchesDeltasOwnSinkCommitted() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Files.writeString(landing.resolve("a.json"), "{\"id\": 1, \"status\": \"NEW\"}\n");
    StreamingQuery sink =
        spark
            .readStream()
            .schema("id BIGINT, status STRING")
            .json(landing.toString())
            .writeStream()
            .format("delta")
            .option("checkpointLocation", dir.resolve("checkpoint").toString())
            .trigger(Trigger.AvailableNow())
            .start(table);
    sink.awaitTermination();
    String query = sink.id().toString();
    DeltaLog.clearCache();

    // A bronze table written by an earlier release (Delta's sink) is continued where it stopped.
    assertThat(
            BronzeAppend.lastCommittedBatch(
                DeltaLog.forTable(spark, table).startTransaction(), query))
        .isEqualTo(0);
    assertThat(
            BronzeAppend.lastCommittedBatch(
                DeltaLog.forTable(spark, table).startTransaction(), QUERY))
        .isEqualTo(-1);
    spark.sparkContext().setLocalProperty(StreamExecution.QUERY_ID_KEY(), query);
    new BronzeAppend(table).call(batch("(1L, 'NEW')"), 0L);
    new BronzeAppend(table).call(batch("(2L, 'PAID')"), 1L);
    assertThat(tableRows()).containsExactly("1|NEW", "2|PAID");
  }

  @Test
  void asksDeltaWhereTheChecksumIsGone() throws Exception {
    append(batch("(1L, 'NEW')"), 0);
    append(batch("(2L, 'NEW')"), 1);
    Files.delete(dir.resolve("bronze/_delta_log/00000000000000000002.crc"));
    DeltaLog.clearCache();

    assertThat(BronzeAppend.fromChecksum(DeltaTables.snapshot(spark, table).orElseThrow(), QUERY))
        .isEmpty();
    append(batch("(2L, 'NEW')"), 1);
    append(batch("(3L, 'NEW')"), 2);

    assertThat(tableRows()).containsExactly("1|NEW", "2|NEW", "3|NEW");
    // Delta rebuilt version 2's state for the replayed batch; that commit's checksum holds the
    // transactions again, and the next batch found them there.
    assertThat(rebuiltByAppends).containsExactly("Delta: Compute snapshot for version: 2");
  }

  @Test
  void aBatchWithAColumnTheTableLacksIsRefusedAsDeltasSinkRefusesIt() throws Exception {
    Dataset<Row> wider =
        spark.sql("SELECT * FROM VALUES (1L, 'NEW', 'x') AS t(id, status, channel)");

    assertThatThrownBy(() -> append(wider, 0))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("schema mismatch");
    assertThat(tableRows()).isEmpty();
    // A batch without one of the table's columns is written, the column null.
    append(spark.sql("SELECT * FROM VALUES (4L) AS t(id)"), 0);
    assertThat(tableRows()).containsExactly("4|null");
  }

  @Test
  void writesAsIsOnlyTheTablesColumnsWithTheirTypes() {
    StructType table = StructType.fromDDL("id BIGINT, status STRING, nested STRUCT<a: INT>");
    StructType strict = new StructType().add("id", "bigint", false).add("status", "string", true);

    assertThat(BronzeAppend.writableAsIs(table, table)).isTrue();
    assertThat(BronzeAppend.writableAsIs(StructType.fromDDL("status STRING, id BIGINT"), table))
        .isTrue();
    assertThat(BronzeAppend.writableAsIs(StructType.fromDDL("id BIGINT, extra STRING"), table))
        .isFalse();
    assertThat(BronzeAppend.writableAsIs(StructType.fromDDL("id INT"), table)).isFalse();
    assertThat(BronzeAppend.writableAsIs(StructType.fromDDL("nested STRUCT<a: BIGINT>"), table))
        .isFalse();
    assertThat(BronzeAppend.writableAsIs(StructType.fromDDL("ID BIGINT"), table)).isFalse();
    // Nullable values into a NOT NULL column: Delta's writer checks them.
    assertThat(BronzeAppend.writableAsIs(StructType.fromDDL("id BIGINT"), strict)).isFalse();
    assertThat(BronzeAppend.writableAsIs(strict, table)).isTrue();
  }
}
