package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.delete;
import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batch that died part-way, rebuilt in this JVM from a finished one: the tables it had not yet
 * written, its run-log row and its checkpoint commit are taken back, exactly the state a crash at
 * that point leaves. (The crash matrix kills real processes; this pins the same windows quickly.)
 * The replay must write and report what the uninterrupted batch did.
 */
class InterruptedBatchTest extends SparkTestBase {
  @TempDir Path dir;

  /**
   * Takes back the newest commit of the table at {@code path} as if it had never been written: its
   * log file goes. (A RESTORE would not do: it keeps the idempotent-write record of the run log's
   * append, which a crash before that append never leaves.)
   */
  private static void undoNewestCommit(String path) throws IOException {
    long newest = DeltaTable.forPath(spark, path).history(1).head().getLong(0);
    Path log = Path.of(path, "_delta_log");
    String name = String.format("%020d", newest);
    assertThat(log.resolve(name + ".checkpoint.parquet")).doesNotExist();
    Files.delete(log.resolve(name + ".json"));
    Files.deleteIfExists(log.resolve(name + ".crc"));
    Files.deleteIfExists(log.resolve("." + name + ".json.crc"));
    Files.deleteIfExists(log.resolve("." + name + ".crc.crc"));
    // The cached snapshot still has the commit; a new process would not.
    org.apache.spark.sql.delta.DeltaLog.clearCache();
  }

  private void undoCheckpointCommit(long batchId) throws IOException {
    Files.delete(dir.resolve("checkpoints/silver/commits/" + batchId));
    Files.deleteIfExists(dir.resolve("checkpoints/silver/commits/." + batchId + ".crc"));
  }

  private List<String> runLog(SilverHarness p) {
    return rows(
        p.runs()
            .selectExpr("batch_id", "status", "input_rows", "inserted", "updated", "deleted")
            .orderBy("batch_id"));
  }

  @ParameterizedTest
  @EnumSource(SilverHarness.Shape.class)
  void aBatchThatDiedAfterTheSilverMergeReplaysItsTombstonesAndItsCounts(SilverHarness.Shape shape)
      throws IOException {
    SilverHarness p = SilverHarness.orders(spark, dir, "", shape);
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"), delete(3, 1));
    p.run();
    // Batch 1: an update, a delete, and key 3 revived by an insert newer than its tombstone.
    p.deliver(order(1, 2, "Shipped"), delete(2, 2), order(3, 2, "Back"));
    SilverResult uninterrupted = p.run();
    List<String> silver = p.silverContent();
    List<String> tombstones = rows(p.tombstones().drop("__deleted_at").orderBy("order_id"));
    List<String> log = runLog(p);

    // Died right after the silver MERGE: no tombstone MERGE, no run-log row, no checkpoint commit.
    undoNewestCommit(dir.resolve("silver_tombstones").toString());
    undoNewestCommit(dir.resolve("silver_runs").toString());
    undoCheckpointCommit(1);
    assertThat(rows(p.tombstones().select("order_id", "source_version")))
        .containsExactly("3|1"); // the revived key's tombstone is still there
    SilverResult replay = p.silverOnly();

    assertThat(replay.batches())
        .singleElement()
        .satisfies(
            b -> {
              BatchReport first = uninterrupted.batches().get(0);
              assertThat(List.of(b.inserted(), b.updated(), b.deleted(), b.distinctKeys()))
                  .isEqualTo(
                      List.of(
                          first.inserted(),
                          first.updated(),
                          first.deleted(),
                          first.distinctKeys()));
            });
    assertThat(p.silverContent()).isEqualTo(silver);
    assertThat(rows(p.tombstones().drop("__deleted_at").orderBy("order_id"))).isEqualTo(tombstones);
    assertThat(rows(p.tombstones().select("order_id", "source_version"))).containsExactly("2|2");
    assertThat(runLog(p)).isEqualTo(log).containsExactly("0|APPLIED|3|2|0|0", "1|APPLIED|3|1|1|1");
  }

  @Test
  void aHistoryBatchThatDiedBetweenTheEventsAndTheHistoryMergeStillPlacesItsVersions()
      throws IOException {
    SilverHarness p = SilverHarness.orders(spark, dir, "storedAsScdType: 2\n");
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    p.run();
    p.deliver(order(1, 2, "Shipped"), order(2, 3, "Paid"), order(2, 2, "Packed"));
    p.run();
    List<String> history = p.silverContent();
    List<String> log = runLog(p);

    // Died after the events MERGE: no history MERGE, no run-log row, no checkpoint commit.
    undoNewestCommit(dir.resolve("silver").toString());
    undoNewestCommit(dir.resolve("silver_runs").toString());
    undoCheckpointCommit(1);
    p.silverOnly();

    assertThat(p.silverContent()).isEqualTo(history);
    assertThat(runLog(p)).isEqualTo(log);
  }

  @Test
  void aHistoryRerunFromADeletedCheckpointRebuildsVersionsTheHistoryLacks() throws IOException {
    SilverHarness p = SilverHarness.orders(spark, dir, "storedAsScdType: 2\n");
    p.deliver(order(1, 1, "Created"));
    p.run();
    p.deliver(order(1, 2, "Shipped"));
    p.run();
    List<String> history = p.silverContent();

    // The events of batch 1 are stored, its history MERGE is not, and the checkpoint is gone: the
    // rerun is a new query that finds every event already stored.
    undoNewestCommit(dir.resolve("silver").toString());
    try (var files = Files.walk(dir.resolve("checkpoints/silver"))) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    }
    p.silverOnly();

    assertThat(p.silverContent()).isEqualTo(history);
    assertThat(
            rows(
                p.silver()
                    .select("order_id", "source_version", "status", "__START_AT", "__END_AT")
                    .orderBy("__START_AT")))
        .containsExactly("1|1|Created|1|2", "1|2|Shipped|2|null");
  }
}
