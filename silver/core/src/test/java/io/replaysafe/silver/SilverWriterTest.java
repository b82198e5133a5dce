package io.replaysafe.silver;

import static io.replaysafe.silver.StepFixtures.ORDERS;
import static io.replaysafe.silver.StepFixtures.ORDERS_SCHEMA;
import static io.replaysafe.silver.StepFixtures.bronze;
import static io.replaysafe.silver.StepFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Step 8's writes on real Delta tables: exactly the planned changes, guarded by sequence. */
class SilverWriterTest extends SparkTestBase {
  @TempDir Path dir;

  SilverContract contract;
  SilverTables tables;

  /** Plans the rows against the tables as they are now, as the batch processor does. */
  Dataset<Row> plan(Row... bronzeRows) {
    Dataset<Row> latest =
        BatchPreparation.latestPerKey(
            BatchPreparation.identity(bronze(spark, bronzeRows), contract), contract);
    Dataset<Row> state = StoredState.targetState(latest, tables, contract);
    return MergeClassifier.classify(latest, state, contract).localCheckpoint(true);
  }

  static Map<MergeAction, Long> actions(Dataset<Row> plan) {
    Map<MergeAction, Long> counts = new HashMap<>();
    for (Row r : plan.groupBy(SilverContract.ACTION).count().collectAsList()) {
      counts.put(MergeAction.valueOf(r.getString(0)), r.getLong(1));
    }
    return counts;
  }

  SilverWriter.Applied apply(Dataset<Row> plan) {
    return new SilverWriter(tables, contract).apply(plan, actions(plan));
  }

  void setUp() {
    contract = TestContracts.contract(dir, ORDERS_SCHEMA, ORDERS);
    tables = new SilverTables(spark, contract);
    tables.ensureExist();
  }

  java.util.List<String> silver() {
    return rows(
        tables
            .silver()
            .select("k", "v", "status", SilverContract.STORED_SOURCE_FILE, "__bronze_version")
            .orderBy("k"));
  }

  java.util.List<String> tombstones() {
    return rows(
        tables
            .tombstones()
            .select("k", "v", SilverContract.STORED_SOURCE_FILE, "__bronze_version")
            .orderBy("k"));
  }

  @Test
  void insertsUpdatesDeletesAndRevivesExactlyAsPlanned() {
    setUp();
    Dataset<Row> first =
        plan(
            row(1, 1, "A", "UPSERT", "f1", 1),
            row(2, 1, "A", "UPSERT", "f1", 1),
            row(3, 1, "A", "UPSERT", "f1", 1),
            row(4, 5, null, "DELETE", "f1", 1));
    assertThat(actions(first))
        .isEqualTo(Map.of(MergeAction.INSERT, 3L, MergeAction.TOMBSTONE_ONLY, 1L));

    assertThat(apply(first)).isEqualTo(new SilverWriter.Applied(3, 0, 0));
    assertThat(silver()).containsExactly("1|1|A|f1|1", "2|1|A|f1|1", "3|1|A|f1|1");
    assertThat(tombstones()).containsExactly("4|5|f1|1");

    Dataset<Row> second =
        plan(
            row(1, 2, "B", "UPSERT", "f2", 2),
            row(2, 2, null, "DELETE", "f2", 2),
            row(3, 0, "older", "UPSERT", "f2", 2),
            row(4, 6, "back", "UPSERT", "f2", 2));
    assertThat(actions(second))
        .isEqualTo(
            Map.of(
                MergeAction.UPDATE, 1L,
                MergeAction.DELETE, 1L,
                MergeAction.OLDER, 1L,
                MergeAction.REVIVE, 1L));

    assertThat(apply(second)).isEqualTo(new SilverWriter.Applied(1, 1, 1));
    assertThat(silver()).containsExactly("1|2|B|f2|2", "3|1|A|f1|1", "4|6|back|f2|2");
    assertThat(tombstones()).containsExactly("2|2|f2|2");
  }

  @Test
  void aNewerRowCommittedAfterThePlanStillWins() {
    setUp();
    apply(plan(row(1, 1, "A", "UPSERT", "f1", 1)));
    Dataset<Row> stale = plan(row(1, 2, "planned", "UPSERT", "f2", 2));
    // Another write lands version 3 between the plan and the MERGE.
    apply(plan(row(1, 3, "newer", "UPSERT", "f3", 3)));

    assertThat(apply(stale)).isEqualTo(new SilverWriter.Applied(0, 0, 0));
    assertThat(silver()).containsExactly("1|3|newer|f3|3");
  }

  @Test
  void aPlanWithNothingToChangeWritesNoCommit() {
    setUp();
    apply(plan(row(1, 2, "A", "UPSERT", "f1", 1)));
    long version = tables.silverTable().history(1).first().getLong(0);
    long tombstoneVersion = tables.tombstoneTable().history(1).first().getLong(0);

    Dataset<Row> replay =
        plan(row(1, 2, "A", "UPSERT", "f1", 1), row(1, 1, "X", "UPSERT", "f0", 0));
    assertThat(actions(replay)).isEqualTo(Map.of(MergeAction.RETRY, 1L));

    assertThat(apply(replay)).isEqualTo(new SilverWriter.Applied(0, 0, 0));
    assertThat(tables.silverTable().history(1).first().getLong(0)).isEqualTo(version);
    assertThat(tables.tombstoneTable().history(1).first().getLong(0)).isEqualTo(tombstoneVersion);
  }
}
