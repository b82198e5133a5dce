package io.replaysafe.silver;

import static io.replaysafe.silver.StepFixtures.ORDERS;
import static io.replaysafe.silver.StepFixtures.ORDERS_SCHEMA;
import static io.replaysafe.silver.StepFixtures.bronze;
import static io.replaysafe.silver.StepFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What the target holds for a batch's keys, and conflicts with it, on real Delta tables. */
class StoredStateTest extends SparkTestBase {
  @TempDir Path dir;

  /**
   * The batch's keys as the state read is given them: not at all, by their range only (a stored key
   * inside the range but not in the batch must stay out), or listed.
   */
  enum KeyPredicate {
    NONE,
    RANGE,
    LIST;

    StoredState.KeyBounds of(List<Long> batchKeys) {
      List<Object> min = List.of(Collections.min(batchKeys));
      List<Object> max = List.of(Collections.max(batchKeys));
      return switch (this) {
        case NONE -> null;
        case RANGE -> new StoredState.KeyBounds(List.of("k"), min, max);
        case LIST -> new StoredState.KeyBounds(List.of("k"), min, max, List.copyOf(batchKeys));
      };
    }
  }

  private SilverTables tables(SilverContract contract, List<Row> live, List<Row> tombstones) {
    SilverTables tables = new SilverTables(spark, contract);
    tables.ensureExist();
    append(live, contract.silverSchema(), contract.silver().path());
    append(tombstones, contract.tombstoneSchema(), contract.tombstonePath());
    return tables;
  }

  private void append(List<Row> rows, StructType schema, String path) {
    if (!rows.isEmpty()) {
      spark.createDataFrame(rows, schema).write().format("delta").mode("append").save(path);
    }
  }

  /** A stored silver row: key, sequence, payload hash (status A, file f, bronze version 1). */
  private static Row live(long k, long v, String hash) {
    return RowFactory.create(k, v, "A", hash, "f", 1L, null, null);
  }

  /** A stored tombstone: key, sequence, payload hash. */
  private static Row tombstone(long k, long v, String hash) {
    return RowFactory.create(k, v, hash, "f", 1L, null, null);
  }

  /** An incoming row for each key, all at sequence 9. */
  private Dataset<Row> incoming(SilverContract contract, List<Long> keys) {
    List<Row> rows = keys.stream().map(k -> row(k, 9, "B", "UPSERT", "g", 2)).toList();
    return BatchPreparation.identity(bronze(spark, rows), contract);
  }

  @ParameterizedTest
  @EnumSource(KeyPredicate.class)
  void theStoredStateOfAKeyIsItsNewestLiveRowOrTombstoneAndTheLiveRowWinsATie(KeyPredicate keys) {
    SilverContract contract = TestContracts.contract(dir, ORDERS_SCHEMA, ORDERS);
    SilverTables tables =
        tables(
            contract,
            List.of(live(1, 3, "h1"), live(2, 1, "h2"), live(3, 5, "h3"), live(5, 1, "h5")),
            List.of(
                tombstone(1, 2, "t1"),
                tombstone(2, 4, "t2"),
                tombstone(3, 5, "t3"),
                tombstone(4, 7, "t4")));
    // Keys 1 to 4 and 6 arrive; key 5 is stored but not in the batch, key 6 is nowhere.
    List<Long> batchKeys = List.of(1L, 2L, 3L, 4L, 6L);

    Dataset<Row> state =
        StoredState.targetState(
            incoming(contract, batchKeys), tables, contract, keys.of(batchKeys));

    assertThat(rows(state.orderBy("k")))
        .containsExactly(
            // The last field is the stored hash version: null for rows written before versioning.
            "1|[3]|h1|LIVE|null",
            "2|[4]|t2|TOMBSTONE|null",
            "3|[5]|h3|LIVE|null",
            "4|[7]|t4|TOMBSTONE|null");
  }

  @ParameterizedTest
  @EnumSource(KeyPredicate.class)
  void withoutTombstonesTheStoredStateIsTheLiveRowsOfTheBatchsKeysOnly(KeyPredicate keys) {
    SilverContract contract = TestContracts.contract(dir, ORDERS_SCHEMA, ORDERS);
    SilverTables tables =
        tables(contract, List.of(live(1, 3, "h1"), live(5, 1, "h5"), live(7, 1, "h7")), List.of());
    // Key 5 is stored inside the batch's range, key 7 outside it.
    List<Long> batchKeys = List.of(1L, 2L, 6L);

    Dataset<Row> state =
        StoredState.targetState(
            incoming(contract, batchKeys), tables, contract, keys.of(batchKeys));

    assertThat(rows(state.orderBy("k"))).containsExactly("1|[3]|h1|LIVE|null");
  }

  @Test
  void aConflictWithTheTargetIsTheStoredSequenceWithAnotherPayload() {
    SilverContract contract = TestContracts.contract(dir, ORDERS_SCHEMA, ORDERS);
    Dataset<Row> collapsed =
        BatchPreparation.identity(
            bronze(
                spark,
                row(1, 3, "same", "UPSERT", "g", 2),
                row(2, 3, "other", "UPSERT", "g", 2),
                row(3, 4, "other", "UPSERT", "g", 2)),
            contract);
    String same = collapsed.where("k = 1").select(SilverContract.PAYLOAD_HASH).first().getString(0);
    Dataset<Row> target =
        spark.createDataFrame(
            java.util.List.of(
                RowFactory.create(1L, RowFactory.create(3L), same, "LIVE"),
                RowFactory.create(2L, RowFactory.create(3L), same, "TOMBSTONE"),
                RowFactory.create(3L, RowFactory.create(3L), same, "LIVE")),
            new org.apache.spark.sql.types.StructType()
                .add("k", "long")
                .add(
                    StoredState.T_SEQ, new org.apache.spark.sql.types.StructType().add("v", "long"))
                .add(StoredState.T_HASH, "string")
                .add(StoredState.T_KIND, "string"));

    Dataset<Row> conflicts = MergeClassifier.conflictsWithTarget(collapsed, target, contract);

    assertThat(rows(conflicts.select("k", "status", StoredState.T_KIND)))
        .containsExactly("2|other|TOMBSTONE");
  }
}
