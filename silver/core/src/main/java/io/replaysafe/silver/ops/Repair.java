package io.replaysafe.silver.ops;

import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.spark.SqlNames;
import io.replaysafe.silver.BatchCommits;
import io.replaysafe.silver.BatchReport;
import io.replaysafe.silver.SilverBatchProcessor;
import io.replaysafe.silver.SilverContract;
import io.replaysafe.silver.SilverTables;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Recomputes the state of named keys from their full bronze history under the same contract and
 * applies it, touching no other key: seed 003's stale totals, where silver holds an older version
 * than bronze does, fixed without reprocessing the table. It is the normal batch processor run on
 * those keys' bronze rows, so the same guards, conflicts and quarantine apply.
 */
public final class Repair {
  private final PipelineConfig config;
  private final SparkSession spark;

  public Repair(PipelineConfig config, SparkSession spark) {
    this.config = config;
    this.spark = spark;
  }

  /** Silver rows of the keys before and after, and the batch report of the repair. */
  public record Outcome(List<String> before, List<String> after, BatchReport report) {}

  public Outcome execute(KeySelection keys) {
    OpsContext context =
        OpsContext.open(config, spark).requireCurrentState("repair").recoverInFlight();
    SilverContract contract = context.contract();
    SilverTables tables = context.tables();
    tables.ensureExist();
    SilverBatchProcessor processor = new SilverBatchProcessor(spark, contract, tables);
    String identity = BatchCommits.fingerprint(keys.keys());
    BatchCommits commits = BatchCommits.ofOperation(spark, "repair", identity);
    // A repair that died part-way is undone first, so it plans against the same silver.
    processor.rollBackInterrupted(commits);
    // The keys' rows from bronze's current snapshot, not its change feed since version 0: that
    // works after Delta's log cleanup and a VACUUM, holds the values --promote-rescued filled in,
    // and no row an erase removed. Bronze is append-only, so the snapshot holds every event.
    long bronzeVersion = DeltaTables.latestVersion(spark, config.bronze().path());
    Dataset<Row> bronze =
        contract
            .derive(
                spark
                    .read()
                    .format("delta")
                    .option("versionAsOf", bronzeVersion)
                    .load(config.bronze().path())
                    .withColumn(
                        ReservedNames.COMMIT_VERSION,
                        org.apache.spark.sql.functions.lit(bronzeVersion)))
            .where(KeySelection.displayOfRaw(contract).isin(keys.keys().toArray()));
    List<String> before = rowsOf(tables, contract, keys);
    String runId = "repair-" + identity + "-v" + DeltaTables.latestVersion(tables.silverTable());
    BatchReport report = processor.process(bronze, 0, runId, commits);
    return new Outcome(before, rowsOf(tables, contract, keys), report);
  }

  static List<String> rowsOf(SilverTables tables, SilverContract contract, KeySelection keys) {
    Dataset<Row> silver = tables.silver();
    return silver
        .where(KeySelection.displayOfStored(contract).isin(keys.keys().toArray()))
        .select(SqlNames.columns(contract.silverColumns()))
        .toJSON()
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }
}
