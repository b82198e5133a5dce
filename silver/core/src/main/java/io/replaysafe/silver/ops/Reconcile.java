package io.replaysafe.silver.ops;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.replaysafe.common.Columns;
import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.spark.SqlNames;
import io.replaysafe.silver.BatchCommits;
import io.replaysafe.silver.BatchPreparation;
import io.replaysafe.silver.SilverBatchProcessor;
import io.replaysafe.silver.SilverContract;
import io.replaysafe.silver.SilverTables;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Compares a source-of-truth extract of keys with silver (seed 003's hard deletes that never
 * produced an event). Keys silver holds and the source does not are reported; with apply they are
 * deleted as a silver batch of delete events at their stored sequence (same planning, MERGEs,
 * tombstones and run log as a silver run), so an older or replayed event cannot bring them back
 * while a genuinely newer one still can.
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
    OpsContext context = OpsContext.open(config, spark).requireCurrentState("reconcile");
    SilverContract contract = context.contract();
    SilverTables tables = context.tables();
    SilverBatchProcessor processor = new SilverBatchProcessor(spark, contract, tables);
    String identity = BatchCommits.fingerprint(sourceKeys.keys());
    BatchCommits commits = BatchCommits.ofOperation(spark, "reconcile", identity);
    if (apply) {
      context.recoverInFlight();
      // A reconcile that died part-way is undone first, so it plans against the same silver.
      processor.rollBackInterrupted(commits);
    }
    Dataset<Row> source =
        spark
            .createDataset(sourceKeys.keys(), Encoders.STRING())
            .toDF(ReservedNames.KEY)
            .distinct();
    Dataset<Row> silver =
        tables.silver().withColumn(ReservedNames.KEY, KeySelection.displayOfStored(contract));
    Dataset<Row> missing =
        silver
            .join(
                source,
                silver.col(ReservedNames.KEY).equalTo(source.col(ReservedNames.KEY)),
                "left_anti")
            .localCheckpoint(true);
    long missingCount = missing.count();
    List<String> sample =
        missing
            .select(ReservedNames.KEY)
            .orderBy(ReservedNames.KEY)
            .limit(SAMPLE)
            .as(Encoders.STRING())
            .collectAsList();
    long silverKeys = silver.count();
    if (apply && missingCount > 0) {
      long version = DeltaTables.latestVersion(tables.silverTable());
      processor.process(
          asDeletes(missing, contract, sourceName),
          0,
          "reconcile-" + identity + "-v" + version,
          commits);
    }
    return new Outcome(silverKeys, source.count(), missingCount, sample, apply && missingCount > 0);
  }

  /**
   * The missing keys as delete events at their stored sequence, through the silver batch path: the
   * conflict with the stored version at that sequence is waived (the decision to delete is the
   * source of truth's), and the tombstone keeps an older or replayed event from bringing the key
   * back while a genuinely newer one still can.
   */
  private Dataset<Row> asDeletes(Dataset<Row> missing, SilverContract contract, String sourceName) {
    List<Column> columns = new ArrayList<>();
    var schema = config.businessSchema();
    for (String c : contract.pipeline().businessColumns()) {
      columns.add(
          contract.silverColumns().contains(c)
              ? col(SqlNames.quote(c))
              : lit(null).cast(schema.apply(c).dataType()).as(c));
    }
    columns.add(lit(null).cast("string").as(config.source().rescuedDataColumn()));
    columns.add(lit(null).cast("string").as(Columns.CORRUPT_RECORD));
    columns.add(
        lit("reconcile: missing from source-of-truth " + sourceName).as(Columns.SOURCE_FILE));
    columns.add(lit(null).cast("timestamp").as(Columns.INGESTED_AT));
    columns.add(col(SilverContract.BRONZE_VERSION).as(ReservedNames.COMMIT_VERSION));
    columns.add(lit(true).as(BatchPreparation.FORCE_DELETE));
    columns.add(lit(true).as(BatchPreparation.WAIVED));
    // Already in the contract's shape: derived columns, when the contract has them, are not
    // derived again from an envelope these rows never had.
    Dataset<Row> rows = missing.select(columns.toArray(Column[]::new));
    return rows.withColumn(SilverContract.RAW_PAYLOAD, contract.businessPayload());
  }
}
