package io.replaysafe.silver;

import static io.replaysafe.silver.BatchPreparation.INVALID_MESSAGE;
import static io.replaysafe.silver.BatchPreparation.INVALID_REASON;
import static io.replaysafe.silver.BatchPreparation.KEY_DISPLAY;
import static io.replaysafe.silver.BatchPreparation.SEQ_DISPLAY;
import static io.replaysafe.silver.SilverContract.COMMIT_VERSION;
import static io.replaysafe.silver.SilverContract.PAYLOAD_HASH;
import static io.replaysafe.silver.SilverContract.RAW_KEY;
import static io.replaysafe.silver.SilverContract.RAW_PAYLOAD;
import static io.replaysafe.silver.SilverContract.SEQ;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.first;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.sort_array;
import static org.apache.spark.sql.functions.substring;

import io.replaysafe.common.Columns;
import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.spark.SqlNames;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Rows the contract will not apply, with why: invalid rows, and for a conflict every row of that
 * key in the batch. Written with an insert-if-absent MERGE on a content id, so a replayed batch or
 * a rerun from a deleted checkpoint never quarantines the same row twice.
 */
public final class Quarantine {
  public static final String CONFLICT_IN_BATCH = "CONFLICT_IN_BATCH";
  public static final String CONFLICT_WITH_TARGET = "CONFLICT_WITH_TARGET";
  static final String CONFLICT_DESCRIPTION = ReservedNames.CONFLICT;
  static final String CONFLICT_REASON = ReservedNames.CONFLICT_REASON;

  private Quarantine() {}

  /**
   * One row per conflicted key: the reason and a readable description of every conflicting sequence
   * of that key.
   */
  public static Dataset<Row> conflictedKeys(
      Dataset<Row> collapsed,
      Dataset<Row> inBatch,
      Dataset<Row> withTarget,
      SilverContract contract,
      long batchId) {
    List<Column> group = new ArrayList<>(List.of(SqlNames.columns(contract.keys())));
    group.add(col(SEQ));
    group.add(col(KEY_DISPLAY));
    group.add(col(SEQ_DISPLAY));
    Dataset<Row> batchDescriptions =
        collapsed
            .join(inBatch, SqlNames.seq(withColumn(contract.keys(), SEQ)), "left_semi")
            .groupBy(group.toArray(Column[]::new))
            .agg(
                count(lit(1)).as(ReservedNames.COUNT),
                sort_array(collect_list(substring(col(PAYLOAD_HASH), 1, 12)))
                    .as(ReservedNames.HASHES))
            .select(
                keyColumnsPlus(
                    contract,
                    lit(CONFLICT_IN_BATCH).as(CONFLICT_REASON),
                    concat(
                            lit("key "),
                            col(KEY_DISPLAY),
                            lit(" sequence "),
                            col(SEQ_DISPLAY),
                            lit(" has "),
                            col(ReservedNames.COUNT).cast("string"),
                            lit(" different payloads in batch " + batchId + " (hashes "),
                            concat_ws(", ", col(ReservedNames.HASHES)),
                            lit(")"))
                        .as(CONFLICT_DESCRIPTION)));
    Dataset<Row> targetDescriptions =
        withTarget.select(
            keyColumnsPlus(
                contract,
                lit(CONFLICT_WITH_TARGET).as(CONFLICT_REASON),
                concat(
                        lit("key "),
                        col(KEY_DISPLAY),
                        lit(" sequence "),
                        col(SEQ_DISPLAY),
                        lit(" differs from the stored version at the same sequence (stored hash "),
                        substring(col(StoredState.T_HASH), 1, 12),
                        lit(", incoming "),
                        substring(col(PAYLOAD_HASH), 1, 12),
                        lit(")"))
                    .as(CONFLICT_DESCRIPTION)));
    return batchDescriptions
        .unionByName(targetDescriptions)
        .groupBy(SqlNames.columns(contract.keys()))
        .agg(
            first(col(CONFLICT_REASON)).as(CONFLICT_REASON),
            concat_ws("; ", sort_array(collect_list(col(CONFLICT_DESCRIPTION))))
                .as(CONFLICT_DESCRIPTION));
  }

  private static List<String> withColumn(List<String> keys, String extra) {
    List<String> all = new ArrayList<>(keys);
    all.add(extra);
    return all;
  }

  private static Column[] keyColumnsPlus(SilverContract contract, Column... extra) {
    List<Column> columns = new ArrayList<>(List.of(SqlNames.columns(contract.keys())));
    columns.addAll(List.of(extra));
    return columns.toArray(Column[]::new);
  }

  /** Quarantine rows for invalid rows (reason and message from validation). */
  public static Dataset<Row> ofInvalid(
      Dataset<Row> invalid, SilverContract contract, long batchId, String runId) {
    return rows(invalid, col(INVALID_REASON), col(INVALID_MESSAGE), contract, batchId, runId);
  }

  /** Quarantine rows for every valid row of a conflicted key. */
  public static Dataset<Row> ofConflicts(
      Dataset<Row> valid,
      Dataset<Row> conflictedKeys,
      SilverContract contract,
      long batchId,
      String runId) {
    Dataset<Row> rows = valid.join(conflictedKeys, SqlNames.seq(contract.keys()), "inner");
    return rows(rows, col(CONFLICT_REASON), col(CONFLICT_DESCRIPTION), contract, batchId, runId);
  }

  private static Dataset<Row> rows(
      Dataset<Row> source,
      Column reason,
      Column message,
      SilverContract contract,
      long batchId,
      String runId) {
    return source.select(
        sha2(
                // The bronze row's identity, not the reason: a row is quarantined at most once.
                concat_ws(
                    "|",
                    col(RAW_PAYLOAD),
                    coalesce(col(Columns.SOURCE_FILE), lit("")),
                    coalesce(col(COMMIT_VERSION).cast("string"), lit("")),
                    coalesce(col(Columns.INGESTED_AT).cast("string"), lit(""))),
                256)
            .as("quarantine_id"),
        reason.as("reason"),
        message.as("message"),
        lit(contract.ruleVersion()).as("rule_version"),
        SilverContract.json(contract.keys()).as("key"),
        col(RAW_KEY).as("raw_key"),
        SilverContract.json(contract.sequenceBy()).as("sequence"),
        col(PAYLOAD_HASH).as("payload_hash"),
        col(RAW_PAYLOAD).as("raw_payload"),
        col(Columns.SOURCE_FILE).as("source_file"),
        col(COMMIT_VERSION).as("bronze_version"),
        lit(batchId).as("silver_batch_id"),
        lit(runId).as("run_id"),
        current_timestamp().as("quarantined_at"),
        lit("OPEN").as("status"),
        lit(null).cast("string").as("decided_by"),
        lit(null).cast("string").as("decision"),
        lit(null).cast("timestamp").as("decided_at"));
  }

  /** Insert-if-absent, so replays add nothing. Returns how many rows were new. */
  public static long write(Dataset<Row> rows, SilverTables tables) {
    Row metrics =
        tables
            .quarantineTable()
            .as("t")
            .merge(
                rows.dropDuplicates("quarantine_id").as("s"), "t.quarantine_id = s.quarantine_id")
            .whenNotMatched()
            .insertAll()
            .execute()
            .first();
    return metrics.getLong(metrics.fieldIndex("num_inserted_rows"));
  }
}
