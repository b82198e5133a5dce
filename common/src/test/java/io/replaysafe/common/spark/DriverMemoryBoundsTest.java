package io.replaysafe.common.spark;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.status.JobDataWrapper;
import org.apache.spark.status.StageDataWrapper;
import org.apache.spark.util.kvstore.KVStore;
import org.junit.jupiter.api.Test;

/**
 * A local session's driver keeps a bounded record of what it ran, however many batches a continuous
 * run makes (issue 27): Spark's status store is filled with or without the UI, and Tungsten pages
 * are sized for small batches, not for the heap.
 */
class DriverMemoryBoundsTest extends SparkTestBase {
  /** Over every bound below: each round is one SQL execution, two jobs and three stages or more. */
  private static final int ROUNDS = 30;

  @Test
  void tungstenPagesAreOneMebibyteWhateverTheHeap() {
    // Derived from a 4 GB heap on two cores it would be 64 MB for every task's first page of a
    // sort, an aggregation or a hash map, however few its rows.
    assertThat(spark.sparkContext().env().memoryManager().pageSizeBytes()).isEqualTo(1L << 20);
    assertThat(spark.sparkContext().getConf().get("spark.buffer.pageSize")).isEqualTo("1m");
  }

  @Test
  void aBroadcastRelationBuiltOnTheDriverTakesPagesOfOneMebibyte() {
    // The driver builds a broadcast join's relation with a memory manager from new SparkConf():
    // system properties only. Ten rows keyed by a long took a 64 MB page before.
    assertThat(new org.apache.spark.SparkConf().get("spark.buffer.pageSize")).isEqualTo("1m");
    var memory = spark.sparkContext().env().memoryManager();
    long before = memory.storageMemoryUsed();
    Dataset<Row> ten = spark.range(0, 10).withColumnRenamed("id", "k");
    long matched =
        spark
            .range(0, 1000, 1, 2)
            .withColumn("k", col("id").mod(20))
            .join(broadcast(ten), "k")
            .count();
    assertThat(matched).isEqualTo(500);
    // The relation stays in the driver's block store until the context cleaner drops it.
    assertThat(memory.storageMemoryUsed() - before).isLessThan(4L << 20);
  }

  @Test
  void theStatusStoreKeepsTheRetainedCountsAfterManyExecutions() throws Exception {
    Dataset<Row> keys = spark.range(0, 10).withColumnRenamed("id", "k");
    for (int i = 0; i < ROUNDS; i++) {
      // A broadcast join and an aggregation: a job of its own for the broadcast, a shuffle stage.
      long matched =
          spark
              .range(0, 100, 1, 2)
              .withColumn("k", col("id").mod(20))
              .join(broadcast(keys), "k")
              .groupBy("k")
              .count()
              .count();
      assertThat(matched).isEqualTo(10);
    }
    spark.sparkContext().listenerBus().waitUntilEmpty(60_000L);
    KVStore store = spark.sparkContext().statusStore().store();
    // The store deletes what is over a bound on a thread of its own, after the write that passed
    // it: wait for that (a bound on how long, not an assertion on timing).
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < deadline
        && (store.count(SQLExecutionUIData.class) > 20
            || store.count(JobDataWrapper.class) > 50
            || store.count(StageDataWrapper.class) > 50)) {
      Thread.sleep(100);
    }
    // Executions over the bound are deleted one for one; jobs and stages a tenth of the bound at
    // a time (at least), so 45 to 50 of them remain.
    assertThat(store.count(SQLExecutionUIData.class)).isEqualTo(20);
    assertThat(spark.sharedState().statusStore().executionsCount()).isEqualTo(20);
    assertThat(store.count(JobDataWrapper.class)).isBetween(45L, 50L);
    assertThat(store.count(StageDataWrapper.class)).isBetween(45L, 50L);
  }
}
