package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.delete;
import static io.replaysafe.silver.SilverHarness.order;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * foreachBatch is at-least-once: a batch replayed after a crash between the MERGE and the
 * checkpoint commit, and a rerun from a deleted silver checkpoint, must leave silver unchanged.
 */
class ReplayIdempotenceTest extends SparkTestBase {
  @TempDir Path dir;

  SilverHarness loaded() {
    return loaded(SilverHarness.Shape.PLAIN);
  }

  SilverHarness loaded(SilverHarness.Shape shape) {
    SilverHarness p =
        SilverHarness.orders(spark, dir, "onConflict: quarantine\nonInvalid: quarantine\n", shape);
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"), order(3, 1, "Created"), "not json");
    p.run();
    p.deliver(order(1, 2, "Shipped"), order(2, 1, "Changed"), delete(3, 2), order(4, 1, "Created"));
    p.run();
    return p;
  }

  /** Silver (with the time each row was applied) and its tombstones. */
  List<String> state(SilverHarness p) {
    return List.of(
        String.join("\n", p.silverContent()),
        String.join("\n", rows(p.silver().select("__applied_at").orderBy("__applied_at"))),
        String.join("\n", rows(p.tombstones().drop("__deleted_at"))));
  }

  /** Inserted, updated and deleted over a run: each, not their sum. */
  static List<Long> changes(SilverResult result) {
    return List.of(
        result.total(BatchReport::inserted),
        result.total(BatchReport::updated),
        result.total(BatchReport::deleted));
  }

  List<String> quarantineIds(SilverHarness p) {
    return rows(p.quarantine().select("quarantine_id").orderBy("quarantine_id"));
  }

  @ParameterizedTest
  @EnumSource(SilverHarness.Shape.class)
  void aBatchReplayedAfterACrashBeforeTheCheckpointCommitChangesNothing(SilverHarness.Shape shape)
      throws IOException {
    SilverHarness p = loaded(shape);
    List<String> before = state(p);
    List<String> quarantined = quarantineIds(p);
    assertThat(p.silverRows()).containsExactly("1|2|Shipped", "2|1|Created", "4|1|Created");
    assertThat(p.quarantine().count()).isEqualTo(2); // the corrupt line, and key 2's conflict

    // The MERGE of batch 1 committed, the checkpoint's commit did not: Spark reruns batch 1.
    Files.delete(dir.resolve("checkpoints/silver/commits/1"));
    Files.deleteIfExists(dir.resolve("checkpoints/silver/commits/.1.crc"));
    SilverResult replay = p.silverOnly();

    assertThat(replay.batches()).singleElement().extracting(BatchReport::batchId).isEqualTo(1L);
    assertThat(changes(replay)).containsExactly(0L, 0L, 0L);
    assertThat(state(p)).isEqualTo(before);
    assertThat(quarantineIds(p)).isEqualTo(quarantined);
    // The run log keeps one row per applied batch.
    assertThat(
            rows(
                p.runs()
                    .where("status = 'APPLIED'")
                    .groupBy("batch_id")
                    .count()
                    .orderBy("batch_id")))
        .containsExactly("0|1", "1|1");
  }

  @ParameterizedTest
  @EnumSource(SilverHarness.Shape.class)
  void aRerunFromADeletedSilverCheckpointLeavesSilverUnchanged(SilverHarness.Shape shape)
      throws IOException {
    SilverHarness p = loaded(shape);
    List<String> before = state(p);
    List<String> quarantined = quarantineIds(p);

    try (Stream<Path> files = Files.walk(dir.resolve("checkpoints/silver"))) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
    SilverResult rerun = p.silverOnly();

    assertThat(rerun.total(BatchReport::inputRows)).isEqualTo(8);
    assertThat(changes(rerun)).containsExactly(0L, 0L, 0L);
    assertThat(state(p)).isEqualTo(before);
    // Nothing quarantined before is quarantined twice. (Reprocessing all of bronze in one batch
    // also finds key 2's two payloads at sequence 1 as an in-batch conflict: its rows join them.)
    List<String> after = quarantineIds(p);
    assertThat(after).containsAll(quarantined).hasSize(quarantined.size() + 1);
    assertThat(
            rows(
                p.quarantine()
                    .where(
                        org.apache.spark.sql.functions.not(
                            col("quarantine_id").isin(quarantined.toArray())))
                    .selectExpr(
                        "reason",
                        "get_json_object(raw_payload, '" + shape.rawField("status") + "')")))
        .containsExactly("CONFLICT_IN_BATCH|Created");
  }

  @Test
  void aRunWithNothingNewStartsNoStreamAndANewCommitStillRuns() {
    SilverHarness p = loaded();
    List<String> before = state(p);
    long bronzeVersion =
        io.delta.tables.DeltaTable.forPath(spark, p.config.bronze().path())
            .history(1)
            .head()
            .getLong(0);
    assertThat(
            new SilverCheckpoint(
                    p.config.requireSilver().checkpoint(),
                    spark.sparkContext().hadoopConfiguration())
                .read()
                .processedThrough())
        .hasValue(bronzeVersion);
    java.util.concurrent.atomic.AtomicInteger started =
        new java.util.concurrent.atomic.AtomicInteger();
    org.apache.spark.sql.streaming.StreamingQueryListener listener =
        new org.apache.spark.sql.streaming.StreamingQueryListener() {
          @Override
          public void onQueryStarted(QueryStartedEvent event) {
            if (event.name() != null && event.name().startsWith("replaysafe_silver_")) {
              started.incrementAndGet();
            }
          }

          @Override
          public void onQueryProgress(QueryProgressEvent event) {}

          @Override
          public void onQueryTerminated(QueryTerminatedEvent event) {}
        };
    spark.streams().addListener(listener);
    try {
      SilverResult idle = p.silverOnly();

      assertThat(idle.batches()).isEmpty();
      assertThat(started.get()).isZero();
      assertThat(state(p)).isEqualTo(before);

      p.deliver(order(5, 1, "Created"));
      SilverResult next = p.run();

      assertThat(started.get()).isEqualTo(1);
      assertThat(next.batches()).singleElement().extracting(BatchReport::inserted).isEqualTo(1L);
      assertThat(p.silverRows())
          .containsExactly("1|2|Shipped", "2|1|Created", "4|1|Created", "5|1|Created");
    } finally {
      spark.streams().removeListener(listener);
    }
  }
}
