package io.replaysafe.silver;

import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * Appends one row per silver micro-batch to the run-log table, with Delta's idempotent-write
 * options (query id, batch id): a batch replayed after a crash is logged once, and a rejected batch
 * is logged once however often a rerun rejects it again (the rows are told apart by status, so the
 * batch is still logged when it is applied after a fix).
 */
public final class RunLog {
  private RunLog() {}

  /** Appends {@code report}'s row ({@link BatchReport#RUN_LOG}). */
  public static void append(SparkSession spark, SilverTables tables, BatchReport r) {
    var writer =
        spark
            .createDataFrame(List.of(r.runLogRow()), BatchReport.RUN_LOG_SCHEMA)
            .write()
            .format("delta")
            .mode("append");
    String appId =
        r.status() == BatchStatus.APPLIED
            ? "replaysafe-runs-" + r.runId()
            : "replaysafe-runs-"
                + r.status().name().toLowerCase(java.util.Locale.ROOT)
                + "-"
                + r.runId();
    writer.option("txnAppId", appId).option("txnVersion", r.batchId()).save(tables.runsPath());
  }
}
