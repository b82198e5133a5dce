package io.replaysafe.cli.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.row_number;

import io.delta.tables.DeltaTable;
import java.util.Locale;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;

/**
 * The job a user writes instead of replaysafe, from the seeds, as one scheduled process: bronze
 * (seed 004: an availableNow JSON file stream with an explicit schema and {@code _metadata}
 * provenance, appended to a Delta table) then silver (seed 000: {@code merge_orders} in {@code
 * foreachBatch} over bronze read as a Delta stream). Each layer has its own checkpoint. No
 * quarantine, evidence, tombstones or lease: kept as short as a user would write it.
 *
 * <p>The session is sized for the same two local cores as replaysafe's local session (master,
 * shuffle partitions, no UI); nothing else is tuned. S3A's endpoint and options come from {@code
 * -Dspark.hadoop.fs.s3a.*} system properties and credentials from the AWS environment variables, as
 * a scheduler would pass them.
 *
 * <p>{@code HandWrittenJob LANDING BRONZE SILVER CHECKPOINT_ROOT}; prints one line with each
 * layer's seconds, which the benchmark reads.
 */
public final class HandWrittenJob {
  static final StructType ORDERS = StructType.fromDDL(OrderEvents.SCHEMA);

  private HandWrittenJob() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: HandWrittenJob LANDING BRONZE SILVER CHECKPOINT_ROOT");
      System.exit(2);
    }
    String landing = args[0];
    String bronze = args[1];
    String silver = args[2];
    String checkpoints = args[3];
    SparkSession spark =
        SparkSession.builder()
            .appName("orders-hand-written")
            .master("local[2]")
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.ui.enabled", "false")
            .getOrCreate();

    long start = System.nanoTime();
    ingestBronze(spark, landing, bronze, checkpoints + "/bronze");
    long bronzeDone = System.nanoTime();
    mergeSilver(spark, bronze, silver, checkpoints + "/silver");
    long silverDone = System.nanoTime();
    System.out.printf(
        Locale.ROOT,
        "hand-written: bronze %.3f s, silver %.3f s%n",
        (bronzeDone - start) / 1e9,
        (silverDone - bronzeDone) / 1e9);
    spark.stop();
  }

  /** Seed 004: every new JSON file appended to bronze with where it came from and when. */
  static void ingestBronze(SparkSession spark, String landing, String bronze, String checkpoint)
      throws Exception {
    spark
        .readStream()
        .format("json")
        .schema(ORDERS)
        .load(landing)
        .select(
            col("*"),
            col("_metadata.file_path").as("source_file"),
            col("_metadata.file_name").as("source_file_name"),
            col("_metadata.file_size").as("source_file_size"),
            col("_metadata.file_modification_time").as("source_file_mtime"),
            current_timestamp().as("ingested_at"))
        .writeStream()
        .format("delta")
        .option("checkpointLocation", checkpoint)
        .trigger(Trigger.AvailableNow())
        .start(bronze)
        .awaitTermination();
  }

  /** Seed 000's {@code merge_orders}, applied to every new bronze commit. */
  static void mergeSilver(SparkSession spark, String bronze, String silver, String checkpoint)
      throws Exception {
    DeltaTable.createIfNotExists(spark).location(silver).addColumns(ORDERS).execute();
    VoidFunction2<Dataset<Row>, Long> mergeOrders =
        (batch, id) -> mergeOrders(spark, batch, silver);
    spark
        .readStream()
        .format("delta")
        .load(bronze)
        .writeStream()
        .option("checkpointLocation", checkpoint)
        .trigger(Trigger.AvailableNow())
        .foreachBatch(mergeOrders)
        .start()
        .awaitTermination();
  }

  static void mergeOrders(SparkSession spark, Dataset<Row> batch, String silver) {
    Dataset<Row> source = batch.selectExpr(ORDERS.fieldNames());
    if (source.filter("order_id IS NULL OR source_version IS NULL").limit(1).count() > 0) {
      throw new IllegalStateException("Required source fields cannot be null.");
    }
    Dataset<Row> unique = source.dropDuplicates();
    if (unique.groupBy("order_id", "source_version").count().filter("count > 1").limit(1).count()
        > 0) {
      throw new IllegalStateException("One order version has conflicting payloads.");
    }
    Dataset<Row> latest =
        unique
            .withColumn(
                "rn",
                row_number()
                    .over(Window.partitionBy("order_id").orderBy(col("source_version").desc())))
            .filter("rn = 1")
            .drop("rn");
    DeltaTable.forPath(spark, silver)
        .as("t")
        .merge(latest.as("s"), "t.order_id = s.order_id")
        .whenMatched("s.op = 'DELETE' AND s.source_version > t.source_version")
        .delete()
        .whenMatched("s.source_version > t.source_version")
        .updateAll()
        .whenNotMatched("s.op <> 'DELETE'")
        .insertAll()
        .execute();
  }
}
