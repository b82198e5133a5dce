package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch another command left part-way is undone by whichever writing command comes next, across
 * every table its record names, even where that command's own batches are not the interrupted one.
 * (The crash matrix kills real processes at each boundary; this pins the rule in one JVM.)
 *
 * <table>
 *   <tr><th>left behind</th><th>next command</th><th>outcome</th></tr>
 *   <tr><td>record + a tagged silver commit, no run-log row</td><td>scheduled run</td>
 *       <td>silver restored, then the run's batch applied; record gone</td></tr>
 *   <tr><td>record + tagged commits and the run-log row</td><td>scheduled run</td>
 *       <td>nothing restored (the batch finished); record gone</td></tr>
 * </table>
 */
class InFlightBatchTest extends SparkTestBase {
  @TempDir Path dir;

  private static final String TAG = "replaysafe repair 0123456789abcdef";

  private String silverPath() {
    return dir.resolve("silver").toString();
  }

  private InFlightBatch record() {
    return InFlightBatch.of(spark, dir.resolve("checkpoints/silver").toString());
  }

  /** What a repair killed after its silver MERGE leaves: its record and one tagged commit. */
  private void repairKilledAfterItsMerge(long key) {
    record()
        .begin(
            TAG,
            List.of(silverPath(), dir.resolve("silver_tombstones").toString()),
            dir.resolve("silver_runs").toString());
    BatchCommits.ofTag(spark, TAG)
        .tagged(
            () -> {
              DeltaTable.forPath(spark, silverPath()).delete("order_id = " + key);
              return null;
            });
  }

  @Test
  void aScheduledRunUndoesTheOperationLeftPartWayBeforeItWrites() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    p.run();
    repairKilledAfterItsMerge(2);
    assertThat(rows(p.silver().select("order_id").orderBy("order_id"))).containsExactly("1");

    p.deliver(order(3, 1, "New"));
    p.run();

    assertThat(rows(p.silver().select("order_id", "status").orderBy("order_id")))
        .containsExactly("1|Created", "2|Created", "3|New");
    assertThat(dir.resolve("checkpoints/silver").resolve(InFlightBatch.FILE)).doesNotExist();
    assertThat(record().recover()).isEmpty();
  }

  @Test
  void aFinishedBatchIsNotUndoneOnlyItsRecordForgotten() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    p.run();
    repairKilledAfterItsMerge(2);
    // Its run-log row made it: the command died after it, before forgetting the record.
    BatchCommits.ofTag(spark, TAG)
        .tagged(
            () -> {
              spark
                  .read()
                  .format("delta")
                  .load(dir.resolve("silver_runs").toString())
                  .limit(1)
                  .write()
                  .format("delta")
                  .mode("append")
                  .save(dir.resolve("silver_runs").toString());
              return null;
            });

    assertThat(record().recover()).isEmpty();

    assertThat(rows(p.silver().select("order_id").orderBy("order_id"))).containsExactly("1");
    assertThat(dir.resolve("checkpoints/silver").resolve(InFlightBatch.FILE)).doesNotExist();
  }
}
