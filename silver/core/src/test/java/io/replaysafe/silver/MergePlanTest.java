package io.replaysafe.silver;

import static io.replaysafe.silver.StepFixtures.ORDERS;
import static io.replaysafe.silver.StepFixtures.ORDERS_SCHEMA;
import static io.replaysafe.silver.StepFixtures.bronze;
import static io.replaysafe.silver.StepFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the target holds for a batch's keys, and conflicts with it, on real Delta tables. */
class MergePlanTest extends SparkTestBase {
  @TempDir Path dir;

  /**
   * The batch's keys as the state read is given them: none, their range only (key 5 lies inside it
   * but is not in the batch), or listed (the predicate selects exactly the batch's keys).
   */
  static java.util.stream.Stream<MergePlan.KeyBounds> keyBounds() {
    java.util.List<String> k = java.util.List.of("k");
    java.util.List<Object> min = java.util.List.of(1L);
    java.util.List<Object> max = java.util.List.of(6L);
    return java.util.stream.Stream.of(
        null,
        new MergePlan.KeyBounds(k, min, max),
        new MergePlan.KeyBounds(k, min, max, java.util.List.of(1L, 2L, 3L, 4L, 6L)));
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("keyBounds")
  void theStoredStateOfAKeyIsItsNewestLiveRowOrTombstoneAndTheLiveRowWinsATie(
      MergePlan.KeyBounds bounds) {
    SilverContract contract = TestContracts.contract(dir, ORDERS_SCHEMA, ORDERS);
    SilverTables tables = new SilverTables(spark, contract);
    tables.ensureExist();
    spark
        .createDataFrame(
            java.util.List.of(
                RowFactory.create(1L, 3L, "A", "h1", "f", 1L, null, null),
                RowFactory.create(2L, 1L, "A", "h2", "f", 1L, null, null),
                RowFactory.create(3L, 5L, "A", "h3", "f", 1L, null, null),
                RowFactory.create(5L, 1L, "A", "h5", "f", 1L, null, null)),
            contract.silverSchema())
        .write()
        .format("delta")
        .mode("append")
        .save(contract.silver().path());
    spark
        .createDataFrame(
            java.util.List.of(
                RowFactory.create(1L, 2L, "t1", "f", 1L, null, null),
                RowFactory.create(2L, 4L, "t2", "f", 1L, null, null),
                RowFactory.create(3L, 5L, "t3", "f", 1L, null, null),
                RowFactory.create(4L, 7L, "t4", "f", 1L, null, null)),
            contract.tombstoneSchema())
        .write()
        .format("delta")
        .mode("append")
        .save(contract.tombstonePath());
    // Keys 1 to 4 and 6 arrive; key 5 is stored but not in the batch, key 6 is nowhere.
    Dataset<Row> incoming =
        BatchPreparation.identity(
            bronze(
                spark,
                row(1, 9, "B", "UPSERT", "g", 2),
                row(2, 9, "B", "UPSERT", "g", 2),
                row(3, 9, "B", "UPSERT", "g", 2),
                row(4, 9, "B", "UPSERT", "g", 2),
                row(6, 9, "B", "UPSERT", "g", 2)),
            contract);

    Dataset<Row> state = MergePlan.targetState(incoming, tables, contract, bounds);

    assertThat(rows(state.orderBy("k")))
        .containsExactly(
            // The last field is the stored hash version: null for rows written before versioning.
            "1|[3]|h1|LIVE|null",
            "2|[4]|t2|TOMBSTONE|null",
            "3|[5]|h3|LIVE|null",
            "4|[7]|t4|TOMBSTONE|null");
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("keyBounds")
  void withoutTombstonesTheStoredStateIsTheLiveRowsOfTheBatchsKeysOnly(MergePlan.KeyBounds bounds) {
    SilverContract contract = TestContracts.contract(dir, ORDERS_SCHEMA, ORDERS);
    SilverTables tables = new SilverTables(spark, contract);
    tables.ensureExist();
    spark
        .createDataFrame(
            java.util.List.of(
                RowFactory.create(1L, 3L, "A", "h1", "f", 1L, null, null),
                RowFactory.create(5L, 1L, "A", "h5", "f", 1L, null, null),
                RowFactory.create(7L, 1L, "A", "h7", "f", 1L, null, null)),
            contract.silverSchema())
        .write()
        .format("delta")
        .mode("append")
        .save(contract.silver().path());
    Dataset<Row> incoming =
        BatchPreparation.identity(
            bronze(
                spark,
                row(1, 9, "B", "UPSERT", "g", 2),
                row(2, 9, "B", "UPSERT", "g", 2),
                row(6, 9, "B", "UPSERT", "g", 2)),
            contract);
    java.util.List<String> k = java.util.List.of("k");
    MergePlan.KeyBounds ofThisBatch =
        bounds == null || !bounds.exact()
            ? bounds
            : new MergePlan.KeyBounds(k, bounds.min(), bounds.max(), java.util.List.of(1L, 2L, 6L));

    Dataset<Row> state = MergePlan.targetState(incoming, tables, contract, ofThisBatch);

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
                .add(MergePlan.T_SEQ, new org.apache.spark.sql.types.StructType().add("v", "long"))
                .add(MergePlan.T_HASH, "string")
                .add(MergePlan.T_KIND, "string"));

    Dataset<Row> conflicts = MergePlan.conflictsWithTarget(collapsed, target, contract);

    assertThat(rows(conflicts.select("k", "status", MergePlan.T_KIND)))
        .containsExactly("2|other|TOMBSTONE");
  }
}
