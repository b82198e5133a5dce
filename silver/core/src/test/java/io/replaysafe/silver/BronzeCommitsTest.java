package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What silver learns of bronze's unread commits from their files alone. */
class BronzeCommitsTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void rowsAddedCountsTheAppendsNotACompactionsRewrite() {
    String bronze = dir.resolve("bronze").toString();
    spark.range(0, 3).toDF("id").write().format("delta").save(bronze); // version 0: 3 rows
    spark.range(3, 7).toDF("id").write().format("delta").mode("append").save(bronze); // 1: 4 rows
    DeltaTable.forPath(spark, bronze).optimize().executeCompaction(); // 2: 7 rows rewritten
    spark.range(7, 9).toDF("id").write().format("delta").mode("append").save(bronze); // 3: 2 rows
    var snapshot = DeltaTables.snapshot(spark, bronze).orElseThrow();
    assertThat(snapshot.version()).isEqualTo(3);

    // Silver processed version 0: versions 1-3 are unread, the compaction's rows among them.
    Optional<BronzeCommits> unread =
        BronzeCommits.after(snapshot, 0, spark.sparkContext().hadoopConfiguration());
    assertThat(unread).isPresent();
    assertThat(unread.get().rowsAdded()).contains(6L);
    // Processed up to the compaction: only the last append's 2 rows.
    assertThat(
            BronzeCommits.after(snapshot, 2, spark.sparkContext().hadoopConfiguration())
                .orElseThrow()
                .rowsAdded())
        .contains(2L);
  }
}
