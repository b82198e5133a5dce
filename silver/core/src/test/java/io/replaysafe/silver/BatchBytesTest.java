package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A streaming batch of a Delta table is sized by the files Delta's source handed it. */
class BatchBytesTest extends SparkTestBase {
  @TempDir Path dir;

  private void append(String table, long from, long to) {
    spark
        .range(from, to)
        .selectExpr("id", "cast(id as string) as status")
        .coalesce(1)
        .write()
        .format("delta")
        .mode("append")
        .option("delta.enableChangeDataFeed", "true")
        .save(table);
  }

  /** The size of the file each version added. */
  private List<Long> addedBytes(String table) {
    return DeltaTable.forPath(spark, table).history().orderBy("version").collectAsList().stream()
        .map(
            r ->
                Long.parseLong(
                    r.<scala.collection.Map<String, String>>getAs("operationMetrics")
                        .get("numOutputBytes")
                        .get()))
        .toList();
  }

  private List<Long> batches(String table, boolean changeFeed, String checkpoint) throws Exception {
    List<Long> seen = Collections.synchronizedList(new ArrayList<>());
    VoidFunction2<Dataset<Row>, Long> each =
        (batch, id) -> seen.add(BatchBytes.of(batch).orElse(-1L));
    var reader = spark.readStream().format("delta").option("maxFilesPerTrigger", "1");
    if (changeFeed) {
      reader = reader.option("readChangeFeed", "true").option("startingVersion", "0");
    }
    reader
        .load(table)
        .writeStream()
        .option("checkpointLocation", checkpoint)
        .trigger(Trigger.AvailableNow())
        .foreachBatch(each)
        .start()
        .awaitTermination();
    return seen;
  }

  @Test
  void eachBatchIsTheSizeOfTheFilesItReads() throws Exception {
    String table = dir.resolve("bronze").toString();
    append(table, 0, 10);
    append(table, 10, 100_010);
    List<Long> added = addedBytes(table);
    assertThat(added.get(1)).isGreaterThan(10 * added.get(0));

    // Spark's estimate of a file relation adds a byte to the files' sizes (not so for the change
    // feed's relation): each batch is its version's file, to the byte.
    for (boolean changeFeed : new boolean[] {false, true}) {
      List<Long> sized = batches(table, changeFeed, dir.resolve("c" + changeFeed).toString());
      assertThat(sized).as("change feed %s", changeFeed).hasSize(2);
      for (int i = 0; i < 2; i++) {
        assertThat(sized.get(i)).as("batch %d", i).isBetween(added.get(i), added.get(i) + 1);
      }
    }
  }
}
