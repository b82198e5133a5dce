package io.replaysafe.silver;

import static io.replaysafe.silver.BatchPreparation.KEY_DISPLAY;
import static io.replaysafe.silver.SilverContract.COMMIT_VERSION;
import static io.replaysafe.silver.SilverContract.IS_DELETE;
import static io.replaysafe.silver.SilverContract.PAYLOAD_HASH;
import static io.replaysafe.silver.SilverContract.RAW_PAYLOAD;
import static io.replaysafe.silver.SilverContract.SEQ;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import io.replaysafe.common.Columns;
import io.replaysafe.common.ConfigException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Rows a person decided to apply (a quarantine release), turned back into the bronze rows they came
 * from so they go through the same batch path as any bronze row, and what became of them.
 */
public final class DecidedRows {
  /** Carries the quarantine id of each row through to the outcome. */
  public static final String QUARANTINE_ID = "__quarantine_id";

  private DecidedRows() {}

  /**
   * The bronze rows of the chosen quarantine rows (found by file and raw payload, so every value is
   * the one bronze stored, at full precision), with their bronze version and the conflict waiver.
   */
  public static Dataset<Row> fromBronze(
      SparkSession spark, SilverContract contract, Dataset<Row> chosen) {
    List<String> rawColumns = new ArrayList<>(contract.pipeline().businessColumns());
    rawColumns.add(contract.pipeline().source().rescuedDataColumn());
    rawColumns.add(Columns.CORRUPT_RECORD);
    Dataset<Row> bronze =
        spark
            .read()
            .format("delta")
            .load(contract.pipeline().bronze().path())
            .withColumn(RAW_PAYLOAD, SilverContract.json(rawColumns));
    Dataset<Row> wanted =
        chosen.select(
            col("quarantine_id").as(QUARANTINE_ID),
            col("raw_payload").as(RAW_PAYLOAD),
            col("source_file").as(Columns.SOURCE_FILE),
            col("bronze_version").as(COMMIT_VERSION));
    Dataset<Row> rows =
        bronze
            .join(wanted, MergePlan.asSeq(List.of(RAW_PAYLOAD, Columns.SOURCE_FILE)), "inner")
            .dropDuplicates(QUARANTINE_ID)
            .drop(RAW_PAYLOAD)
            .withColumn(BatchPreparation.WAIVED, lit(true))
            .localCheckpoint(true);
    List<String> found =
        rows.select(QUARANTINE_ID).as(org.apache.spark.sql.Encoders.STRING()).collectAsList();
    List<Row> missing =
        chosen
            .where(org.apache.spark.sql.functions.not(col("quarantine_id").isin(found.toArray())))
            .select("quarantine_id", "source_file", "bronze_version")
            .collectAsList();
    if (!missing.isEmpty()) {
      Row m = missing.get(0);
      throw new ConfigException(
          "Cannot release quarantine row "
              + m.getString(0)
              + ": its bronze row (file "
              + m.getString(1)
              + ", bronze version "
              + m.get(2)
              + ") is no longer in bronze "
              + contract.pipeline().bronze().path()
              + ". Deliver the event again instead, and discard this row.");
    }
    return rows;
  }

  /**
   * Which of the applied rows did not take effect, and why (quarantine id to reason): an upsert
   * took effect when silver holds its key at its sequence with its payload; a delete, when silver
   * does not hold the key and its tombstone is at the delete's sequence with its payload.
   */
  public static Map<String, String> refusals(
      Dataset<Row> applied, SilverContract contract, SilverTables tables) {
    List<String> keys = contract.keys();
    Dataset<Row> identified =
        BatchPreparation.identity(applied, contract)
            .select(
                keyColumnsAnd(
                    keys,
                    col(SEQ),
                    col(PAYLOAD_HASH),
                    col(IS_DELETE),
                    col(KEY_DISPLAY),
                    col(QUARANTINE_ID)));
    Dataset<Row> live =
        tables
            .silver()
            .select(
                keyColumnsAnd(
                    keys,
                    contract.sequence(null).as("__live_seq"),
                    col(PAYLOAD_HASH).as("__live_hash")));
    Dataset<Row> dead =
        tables
            .tombstones()
            .select(
                keyColumnsAnd(
                    keys,
                    contract.sequence(null).as("__dead_seq"),
                    col(PAYLOAD_HASH).as("__dead_hash")));
    Column tookEffect =
        when(
                col(IS_DELETE),
                col("__live_seq")
                    .isNull()
                    .and(col("__dead_seq").equalTo(col(SEQ)))
                    .and(col("__dead_hash").equalTo(col(PAYLOAD_HASH))))
            .otherwise(
                col("__live_seq")
                    .equalTo(col(SEQ))
                    .and(col("__live_hash").equalTo(col(PAYLOAD_HASH))));
    Column reason =
        when(
                col("__live_seq").isNotNull(),
                concat(
                    lit("silver holds key "),
                    col(KEY_DISPLAY),
                    lit(" at sequence "),
                    to_json(col("__live_seq")),
                    lit(", which wins over "),
                    to_json(col(SEQ))))
            .when(
                col("__dead_seq").isNotNull(),
                concat(
                    lit("a tombstone at sequence "),
                    to_json(col("__dead_seq")),
                    lit(" keeps key "),
                    col(KEY_DISPLAY),
                    lit(" deleted")))
            .otherwise(
                concat(
                    lit("sequence "),
                    to_json(col(SEQ)),
                    lit(" of key "),
                    col(KEY_DISPLAY),
                    lit(" is older than the table's truncate")));
    Map<String, String> refused = new LinkedHashMap<>();
    for (Row r :
        identified
            .join(live, MergePlan.asSeq(keys), "left")
            .join(dead, MergePlan.asSeq(keys), "left")
            .where(
                org.apache.spark.sql.functions.not(
                    org.apache.spark.sql.functions.coalesce(tookEffect, lit(false))))
            .select(col(QUARANTINE_ID), reason)
            .orderBy(QUARANTINE_ID)
            .collectAsList()) {
      refused.put(r.getString(0), r.getString(1));
    }
    return refused;
  }

  private static Column[] keyColumnsAnd(List<String> keys, Column... extra) {
    List<Column> columns = new ArrayList<>(List.of(MergePlan.cols(keys)));
    columns.addAll(List.of(extra));
    return columns.toArray(Column[]::new);
  }
}
