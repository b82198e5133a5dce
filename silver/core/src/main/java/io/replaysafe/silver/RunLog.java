package io.replaysafe.silver;

import java.sql.Timestamp;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;

/**
 * Appends one row per silver micro-batch to the run-log table, with Delta's idempotent-write
 * options (query id, batch id): a batch replayed after a crash is logged once, and a rejected batch
 * is logged once however often a rerun rejects it again (the rows are told apart by status, so the
 * batch is still logged when it is applied after a fix).
 */
public final class RunLog {
  private RunLog() {}

  public static void append(
      SparkSession spark,
      SilverTables tables,
      BatchReport r,
      String ruleVersion,
      Timestamp startedAt,
      String message) {
    Row row =
        RowFactory.create(
            r.runId(),
            r.batchId(),
            r.status().name(),
            ruleVersion,
            startedAt,
            r.seconds(),
            r.bronzeVersionMin(),
            r.bronzeVersionMax(),
            r.inputRows(),
            r.invalid(),
            r.exactRetries(),
            r.distinctKeys(),
            r.conflictsInBatch(),
            r.conflictsWithTarget(),
            r.olderIgnored(),
            r.supersededInBatch(),
            r.inserted(),
            r.updated(),
            r.deleted(),
            r.quarantined(),
            message);
    var writer =
        spark
            .createDataFrame(List.of(row), SilverTables.RUNS_SCHEMA)
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
