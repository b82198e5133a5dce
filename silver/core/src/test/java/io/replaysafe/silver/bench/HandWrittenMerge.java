package io.replaysafe.silver.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;

import io.delta.tables.DeltaTable;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The yardstick of issue 14: what a user writes without replaysafe (the seed-000 pattern). A {@code
 * foreachBatch} over bronze keeps the latest row per key and runs a sequence-guarded Delta MERGE
 * into the same silver table. No normalisation, hashing, conflicts, tombstones, quarantine or
 * evidence: kept short on purpose, as a user would write it.
 */
final class HandWrittenMerge {
  private HandWrittenMerge() {}

  /** One availableNow run over bronze commits from {@code startingVersion} on. */
  static void run(
      SparkSession spark,
      String bronzePath,
      long startingVersion,
      String silverPath,
      String checkpoint)
      throws Exception {
    VoidFunction2<Dataset<Row>, Long> upsert =
        (batch, batchId) -> {
          Dataset<Row> latest =
              batch
                  .withColumn(
                      "rn",
                      row_number()
                          .over(
                              Window.partitionBy("order_id").orderBy(col("source_version").desc())))
                  .where("rn = 1")
                  .select(
                      col("order_id"),
                      col("source_version"),
                      col("customer_id"),
                      col("status"),
                      col("amount"),
                      col("currency"),
                      col("updated_at"),
                      col("op"),
                      // silver's own columns, so the table keeps its layout
                      lit("hand-written").as("__payload_hash"),
                      lit(1).as("__hash_version"),
                      col("source_file").as("__source_file"),
                      lit(null).cast("long").as("__bronze_version"),
                      current_timestamp().as("__applied_at"));
          DeltaTable.forPath(spark, silverPath)
              .as("t")
              .merge(latest.as("s"), "t.order_id = s.order_id")
              .whenMatched("s.op = 'DELETE' AND s.source_version > t.source_version")
              .delete()
              .whenMatched("s.source_version > t.source_version")
              .updateAll()
              .whenNotMatched("s.op <> 'DELETE'")
              .insertAll()
              .execute();
        };
    spark
        .readStream()
        .format("delta")
        .option("startingVersion", startingVersion)
        .load(bronzePath)
        .writeStream()
        .option("checkpointLocation", checkpoint)
        .trigger(Trigger.AvailableNow())
        .foreachBatch(upsert)
        .start()
        .awaitTermination();
  }
}
