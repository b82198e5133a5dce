package io.replaysafe.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * Appends one row per silver micro-batch to the run-log table, once per batch: a batch replayed
 * after a crash is logged once, and a rejected batch is logged once however often a rerun rejects
 * it again (the rows are told apart by status, so the batch is still logged when it is applied
 * after a fix).
 *
 * <p>A batch that cannot have been logged before (a fresh batch of a streaming run: see {@link
 * SilverBatchProcessor#noInterruptedAttempt}) is a plain append. Delta's idempotent-write options
 * (query id, batch id) would cost every such append a reconstruction of the run log's state, three
 * Spark jobs. A batch that may have been logged (the replay of an interrupted batch, an operation
 * rerun) is looked up in the run log first; a rejected row keeps the idempotent-write options.
 */
public final class RunLog {
  private RunLog() {}

  /**
   * Appends {@code report}'s row ({@link BatchReport#RUN_LOG}) unless {@code mayBeLogged} and the
   * run log already holds it.
   */
  public static void append(
      SparkSession spark, SilverTables tables, BatchReport r, boolean mayBeLogged) {
    var writer =
        spark
            .createDataFrame(List.of(r.runLogRow()), BatchReport.RUN_LOG_SCHEMA)
            .write()
            .format("delta")
            .mode("append");
    if (r.status() == BatchStatus.APPLIED) {
      if (!mayBeLogged || !logged(spark, tables, r)) {
        writer.save(tables.runsPath());
      }
      return;
    }
    String appId =
        "replaysafe-runs-" + r.status().name().toLowerCase(java.util.Locale.ROOT) + "-" + r.runId();
    writer.option("txnAppId", appId).option("txnVersion", r.batchId()).save(tables.runsPath());
  }

  /** Whether the run log holds {@code r}'s batch with {@code r}'s status already. */
  private static boolean logged(SparkSession spark, SilverTables tables, BatchReport r) {
    return !spark
        .read()
        .format("delta")
        .load(tables.runsPath())
        .where(
            col("run_id")
                .equalTo(lit(r.runId()))
                .and(col("batch_id").equalTo(lit(r.batchId())))
                .and(col("status").equalTo(lit(r.status().name()))))
        .limit(1)
        .isEmpty();
  }
}
