package io.replaysafe.silver.ops;

import static org.apache.spark.sql.functions.lit;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.common.spark.SqlNames;
import io.replaysafe.silver.SilverContract;
import io.replaysafe.silver.SilverTables;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Compares a source-of-truth extract of keys with silver (seed 003's hard deletes that never
 * produced an event). Keys silver holds and the source does not are reported; with apply they are
 * deleted through the tombstone mechanism at their stored sequence, so an older or replayed event
 * cannot bring them back while a genuinely newer one still can.
 */
public final class Reconcile {
  static final int SAMPLE = 20;

  private final PipelineConfig config;
  private final SparkSession spark;

  public Reconcile(PipelineConfig config, SparkSession spark) {
    this.config = config;
    this.spark = spark;
  }

  /** Keys present in silver but missing at the source, and whether they were deleted. */
  public record Outcome(
      long silverKeys,
      long sourceKeys,
      long missingAtSource,
      List<String> sample,
      boolean applied) {}

  public Outcome execute(KeySelection sourceKeys, String sourceName, boolean apply) {
    SparkSessions.applyStorage(spark, config.storage());
    SilverContract contract = new SilverContract(config);
    if (contract.isHistory()) {
      throw new ConfigException("reconcile works on current-state tables (storedAsScdType 1)");
    }
    SilverTables tables = new SilverTables(spark, contract);
    Dataset<Row> source =
        spark.createDataset(sourceKeys.keys(), Encoders.STRING()).toDF("__key").distinct();
    Dataset<Row> silver =
        tables.silver().withColumn("__key", KeySelection.displayOfStored(contract));
    Dataset<Row> missing =
        silver
            .join(source, silver.col("__key").equalTo(source.col("__key")), "left_anti")
            .localCheckpoint(true);
    long missingCount = missing.count();
    List<String> sample =
        missing
            .select("__key")
            .orderBy("__key")
            .limit(SAMPLE)
            .as(Encoders.STRING())
            .collectAsList();
    if (apply && missingCount > 0) {
      deleteWithTombstones(missing, tables, contract, sourceName);
    }
    return new Outcome(
        silver.count(), source.count(), missingCount, sample, apply && missingCount > 0);
  }

  private void deleteWithTombstones(
      Dataset<Row> missing, SilverTables tables, SilverContract contract, String sourceName) {
    // Tombstones first: if the run stops between the two writes, the key is already protected
    // and a rerun finds it still missing and deletes it.
    Map<String, String> tombstone = new LinkedHashMap<>();
    for (String c : contract.silver().identityColumns()) {
      tombstone.put(c, "s." + SqlNames.quote(c));
    }
    tombstone.put(SilverContract.PAYLOAD_HASH, "s." + SilverContract.PAYLOAD_HASH);
    tombstone.put(SilverContract.SOURCE_FILE, "s.__reason");
    tombstone.put(SilverContract.BRONZE_VERSION, "s." + SilverContract.BRONZE_VERSION);
    tombstone.put("__deleted_at", "current_timestamp()");
    Dataset<Row> source =
        missing.withColumn(
            "__reason", lit("reconcile: missing from source-of-truth " + sourceName));
    tables
        .tombstoneTable()
        .as("t")
        .merge(source.as("s"), contract.keyCondition("t", "s"))
        .whenMatched()
        .updateExpr(tombstone)
        .whenNotMatched()
        .insertExpr(tombstone)
        .execute();
    tables
        .silverTable()
        .as("t")
        .merge(source.as("s"), contract.keyCondition("t", "s"))
        .whenMatched()
        .delete()
        .execute();
  }
}
