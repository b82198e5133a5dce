package io.replaysafe.silver;

import static io.replaysafe.silver.StepFixtures.ORDERS;
import static io.replaysafe.silver.StepFixtures.ORDERS_SCHEMA;
import static io.replaysafe.silver.StepFixtures.bronze;
import static io.replaysafe.silver.StepFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.execution.ui.SQLPlanMetric;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files a small batch's stored-state read and MERGE open, on a silver table of six files that
 * each hold one disjoint range of 100 keys (0-99, 100-199, ..., 500-599). A batch of keys 5 and 505
 * spans five of the six ranges: its listed keys must open the two files that hold them, not every
 * file between its smallest and largest key (Delta checks an IN list against each file only by the
 * list's smallest and largest value; it checks each equality of an OR against the file's own).
 */
class KeyPruningTest extends SparkTestBase {
  private static final int FILES = 6;
  private static final int KEYS_PER_FILE = 100;

  @TempDir Path dir;

  SilverContract contract;
  SilverTables tables;

  @BeforeEach
  void sixFilesOfDisjointKeyRanges() {
    contract = TestContracts.contract(dir, ORDERS_SCHEMA, ORDERS);
    tables = new SilverTables(spark, contract);
    tables.ensureExist();
    for (int f = 0; f < FILES; f++) {
      List<Row> rows = new ArrayList<>();
      for (long k = (long) f * KEYS_PER_FILE; k < (f + 1L) * KEYS_PER_FILE; k++) {
        rows.add(RowFactory.create(k, 1L, "A", "h" + k, "f", 1L, null, null));
      }
      spark
          .createDataFrame(rows, contract.silverSchema())
          .coalesce(1)
          .write()
          .format("delta")
          .mode("append")
          .save(contract.silver().path());
    }
    assertThat(spark.read().format("delta").load(contract.silver().path()).inputFiles())
        .hasSize(FILES);
  }

  private static StoredState.KeyBounds listed(List<Long> keys) {
    return new StoredState.KeyBounds(
        List.of("k"),
        List.of(java.util.Collections.min(keys)),
        List.of(java.util.Collections.max(keys)),
        List.copyOf(keys));
  }

  private static StoredState.KeyBounds range(List<Long> keys) {
    return new StoredState.KeyBounds(
        List.of("k"),
        List.of(java.util.Collections.min(keys)),
        List.of(java.util.Collections.max(keys)));
  }

  private Dataset<Row> incoming(List<Long> keys) {
    List<Row> rows = keys.stream().map(k -> row(k, 9, "B", "UPSERT", "g", 2)).toList();
    return BatchPreparation.identity(bronze(spark, rows), contract);
  }

  /** Runs {@code query}; the files its scans opened, after Delta's data skipping. */
  private static long filesRead(Dataset<Row> query) {
    return StepFixtures.scanMetric(query, "numFiles");
  }

  /** Until Spark's status store has seen every event posted so far. */
  private void drainListenerBus() {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError(e);
    }
  }

  /** The newest SQL execution id Spark's status store holds, -1 for none. */
  private long lastExecutionId() {
    drainListenerBus();
    long last = -1;
    for (SQLExecutionUIData e :
        scala.jdk.javaapi.CollectionConverters.asJava(
            spark.sharedState().statusStore().executionsList())) {
      last = Math.max(last, e.executionId());
    }
    return last;
  }

  /**
   * The files each file scan of the SQL executions after {@code after} read ("number of files
   * read", Spark's metric of the scan after Delta's data skipping): a MERGE runs its scans as
   * executions of their own, which {@link #filesRead} cannot reach.
   */
  private List<Long> filesReadPerScanSince(long after) {
    drainListenerBus();
    SQLAppStatusStore store = spark.sharedState().statusStore();
    List<Long> perScan = new ArrayList<>();
    for (SQLExecutionUIData e :
        scala.jdk.javaapi.CollectionConverters.asJava(store.executionsList())) {
      if (e.executionId() <= after) {
        continue;
      }
      Map<Object, String> values =
          scala.jdk.javaapi.CollectionConverters.asJava(store.executionMetrics(e.executionId()));
      for (SQLPlanMetric m : scala.jdk.javaapi.CollectionConverters.asJava(e.metrics())) {
        String value = values.get(m.accumulatorId());
        if (m.name().equals("number of files read") && value != null) {
          perScan.add(Long.parseLong(value.replace(",", "").trim()));
        }
      }
    }
    return perScan;
  }

  @Test
  void listedKeysReadOnlyTheFilesWhoseRangeHoldsOneOfThem() {
    List<Long> keys = List.of(5L, 505L);

    Dataset<Row> state = StoredState.targetState(incoming(keys), tables, contract, listed(keys));

    assertThat(rows(state.orderBy("k")))
        .containsExactly("5|[1]|h5|LIVE|null", "505|[1]|h505|LIVE|null");
    assertThat(filesRead(state)).isEqualTo(2);
  }

  @Test
  void theRangeAloneReadsEveryFileItOverlaps() {
    List<Long> keys = List.of(5L, 505L);

    Dataset<Row> state = StoredState.targetState(incoming(keys), tables, contract, range(keys));

    assertThat(rows(state.orderBy("k")))
        .containsExactly("5|[1]|h5|LIVE|null", "505|[1]|h505|LIVE|null");
    assertThat(filesRead(state)).isEqualTo(FILES);
  }

  @Test
  void keysOutsideEveryFileReadNoFile() {
    // 650 and 700 lie beyond the last file; 50 is inside the first one, -1 before it.
    List<Long> keys = List.of(-1L, 50L, 650L, 700L);

    Dataset<Row> state = StoredState.targetState(incoming(keys), tables, contract, listed(keys));

    assertThat(rows(state.orderBy("k"))).containsExactly("50|[1]|h50|LIVE|null");
    assertThat(filesRead(state)).isEqualTo(1);
  }

  @Test
  void theMergeOfTheRangeAloneSearchesEveryFileItOverlaps() {
    List<Long> keys = List.of(5L, 505L);
    Dataset<Row> plan = updatePlan(keys);
    long before = lastExecutionId();
    new SilverWriter(tables, contract).apply(plan, Map.of(MergeAction.UPDATE, 2L), range(keys));
    assertThat(filesReadPerScanSince(before)).contains((long) FILES);
  }

  private Dataset<Row> updatePlan(List<Long> keys) {
    Dataset<Row> latest =
        BatchPreparation.latestPerKey(
            BatchPreparation.identity(
                bronze(
                    spark,
                    keys.stream().map(k -> row(k, 2, "B", "UPSERT", "g", 2)).toArray(Row[]::new)),
                contract),
            contract);
    return MergeClassifier.classify(
            latest, StoredState.targetState(latest, tables, contract, listed(keys)), contract)
        .localCheckpoint(true);
  }

  @Test
  void theMergeOfListedKeysTouchesOnlyTheirFilesAndChangesExactlyThem() {
    List<Long> keys = List.of(5L, 505L);
    Dataset<Row> latest =
        BatchPreparation.latestPerKey(
            BatchPreparation.identity(
                bronze(spark, row(5, 2, "B", "UPSERT", "g", 2), row(505, 2, "B", "UPSERT", "g", 2)),
                contract),
            contract);
    Dataset<Row> plan =
        MergeClassifier.classify(
                latest, StoredState.targetState(latest, tables, contract, listed(keys)), contract)
            .localCheckpoint(true);
    Map<MergeAction, Long> actions = new HashMap<>();
    for (Row r : plan.groupBy(SilverContract.ACTION).count().collectAsList()) {
      actions.put(MergeAction.valueOf(r.getString(0)), r.getLong(1));
    }
    assertThat(actions).isEqualTo(Map.of(MergeAction.UPDATE, 2L));

    long before = lastExecutionId();
    assertThat(new SilverWriter(tables, contract).apply(plan, actions, listed(keys)))
        .isEqualTo(new SilverWriter.Applied(0, 2, 0));
    // Every scan of silver the MERGE ran (the search for the touched files, then their rewrite)
    // opened the two files that hold the keys; as a range, the search opened all six.
    assertThat(filesReadPerScanSince(before)).isNotEmpty().allMatch(files -> files == 2);

    Row merge = tables.silverTable().history(1).first();
    assertThat(merge.getString(merge.fieldIndex("operation"))).isEqualTo("MERGE");
    scala.collection.Map<String, String> metrics =
        merge.getMap(merge.fieldIndex("operationMetrics"));
    // Each of the two files holds one updated row: Delta marks it deleted there (a deletion
    // vector) and writes it anew; no file is rewritten.
    assertThat(metrics.apply("numTargetDeletionVectorsAdded")).isEqualTo("2");
    assertThat(metrics.apply("numTargetFilesRemoved")).isEqualTo("0");
    assertThat(metrics.apply("numTargetRowsUpdated")).isEqualTo("2");
    assertThat(metrics.apply("numTargetRowsCopied")).isEqualTo("0");
    List<String> silver =
        rows(tables.silver().select("k", "v", "status").where("v = 2 OR k IN (4, 6)").orderBy("k"));
    assertThat(silver).containsExactly("4|1|A", "5|2|B", "6|1|A", "505|2|B");
    assertThat(tables.silver().count()).isEqualTo((long) FILES * KEYS_PER_FILE);
  }
}
