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
import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.spark.SqlNames;
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
  public static final String QUARANTINE_ID = ReservedNames.QUARANTINE_ID;

  private DecidedRows() {}

  /**
   * The bronze rows of the chosen quarantine rows, with their bronze version and the conflict
   * waiver. A row is found by its identity, whatever the schema became since it was quarantined:
   * its file, and the values of the columns its quarantined payload holds, read back at the types
   * bronze holds them at now. So a column added since (null in the old row, or filled by {@code
   * --promote-rescued}) or a widened type still finds it; the rescued data is left out of the
   * comparison, as promotion moves values out of it. Every value released is the one bronze stores
   * now, at full precision.
   */
  public static Dataset<Row> fromBronze(
      SparkSession spark, SilverContract contract, Dataset<Row> chosen) {
    Dataset<Row> bronze = spark.read().format("delta").load(contract.pipeline().bronze().path());
    Dataset<Row> rows = null;
    for (Map.Entry<List<String>, List<String>> group :
        byQuarantinedColumns(chosen, bronze, contract).entrySet()) {
      List<String> compared = group.getKey();
      org.apache.spark.sql.types.StructType types = new org.apache.spark.sql.types.StructType();
      for (String c : compared) {
        types = types.add(bronze.schema().apply(c));
      }
      Dataset<Row> wanted =
          chosen
              .where(col("quarantine_id").isin(group.getValue().toArray()))
              .select(
                  col("quarantine_id").as(QUARANTINE_ID),
                  org.apache
                      .spark
                      .sql
                      .functions
                      .from_json(col("raw_payload"), types)
                      .as(RAW_PAYLOAD),
                  col("source_file").as(Columns.SOURCE_FILE),
                  col("bronze_version").as(COMMIT_VERSION));
      wanted =
          wanted.withColumn(
              RAW_PAYLOAD,
              org.apache.spark.sql.functions.to_json(
                  col(RAW_PAYLOAD), Map.of("ignoreNullFields", "false")));
      Dataset<Row> found =
          bronze
              .withColumn(RAW_PAYLOAD, SilverContract.json(compared))
              .join(wanted, SqlNames.seq(List.of(RAW_PAYLOAD, Columns.SOURCE_FILE)), "inner")
              .drop(RAW_PAYLOAD);
      rows = rows == null ? found : rows.unionByName(found);
    }
    rows =
        rows.dropDuplicates(QUARANTINE_ID)
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
      throw SilverErrors.releaseOfRowGoneFromBronze(
          m.getString(0), m.getString(1), m.get(2), contract.pipeline().bronze().path());
    }
    return rows;
  }

  /**
   * The chosen quarantine rows grouped by the columns their raw payload holds that bronze still has
   * (their schema's business columns and the corrupt record, never the rescued data), in bronze's
   * order: rows quarantined under one schema compare on one set of columns.
   */
  private static Map<List<String>, List<String>> byQuarantinedColumns(
      Dataset<Row> chosen, Dataset<Row> bronze, SilverContract contract) {
    List<String> bronzeColumns = List.of(bronze.columns());
    String rescued = contract.pipeline().source().rescuedDataColumn();
    Map<List<String>, List<String>> groups = new LinkedHashMap<>();
    com.fasterxml.jackson.databind.ObjectMapper json = io.replaysafe.common.io.Json.mapper();
    for (Row r : chosen.select("quarantine_id", "raw_payload").collectAsList()) {
      java.util.Set<String> held = new java.util.HashSet<>();
      try {
        json.readTree(r.getString(1)).fieldNames().forEachRemaining(held::add);
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw SilverErrors.releaseOfUnreadablePayload(r.getString(0), e);
      }
      List<String> compared =
          bronzeColumns.stream().filter(c -> held.contains(c) && !c.equals(rescued)).toList();
      groups.computeIfAbsent(compared, k -> new ArrayList<>()).add(r.getString(0));
    }
    return groups;
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
    return switch (contract.shape()) {
      case CURRENT_STATE -> currentStateRefusals(identified, contract, tables);
      case HISTORY -> historyRefusals(identified, contract, tables);
    };
  }

  /**
   * Current state: a released row took effect when silver holds its sequence with its payload, or,
   * for a delete, a tombstone does and no live row came back.
   */
  private static Map<String, String> currentStateRefusals(
      Dataset<Row> identified, SilverContract contract, SilverTables tables) {
    List<String> keys = contract.keys();
    Dataset<Row> live =
        tables
            .silver()
            .select(
                keyColumnsAnd(
                    keys,
                    contract.sequence(null).as(ReservedNames.LIVE_SEQ),
                    col(PAYLOAD_HASH).as(ReservedNames.LIVE_HASH)));
    Dataset<Row> dead =
        tables
            .tombstones()
            .select(
                keyColumnsAnd(
                    keys,
                    contract.sequence(null).as(ReservedNames.DEAD_SEQ),
                    col(PAYLOAD_HASH).as(ReservedNames.DEAD_HASH)));
    Column tookEffect =
        when(
                col(IS_DELETE),
                col(ReservedNames.LIVE_SEQ)
                    .isNull()
                    .and(col(ReservedNames.DEAD_SEQ).equalTo(col(SEQ)))
                    .and(col(ReservedNames.DEAD_HASH).equalTo(col(PAYLOAD_HASH))))
            .otherwise(
                col(ReservedNames.LIVE_SEQ)
                    .equalTo(col(SEQ))
                    .and(col(ReservedNames.LIVE_HASH).equalTo(col(PAYLOAD_HASH))));
    Column reason =
        when(
                col(ReservedNames.LIVE_SEQ).isNotNull(),
                concat(
                    lit("silver holds key "),
                    col(KEY_DISPLAY),
                    lit(" at sequence "),
                    to_json(col(ReservedNames.LIVE_SEQ)),
                    lit(", which wins over "),
                    to_json(col(SEQ))))
            .when(
                col(ReservedNames.DEAD_SEQ).isNotNull(),
                concat(
                    lit("a tombstone at sequence "),
                    to_json(col(ReservedNames.DEAD_SEQ)),
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
            .join(live, SqlNames.seq(keys), "left")
            .join(dead, SqlNames.seq(keys), "left")
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

  /**
   * A history takes every event in its place: a released row took effect when the key's events hold
   * its sequence with its payload (a later event does not undo it, it closes its version).
   */
  private static Map<String, String> historyRefusals(
      Dataset<Row> identified, SilverContract contract, SilverTables tables) {
    List<String> keys = contract.keys();
    Dataset<Row> stored =
        tables
            .events()
            .select(
                keyColumnsAnd(
                    keys,
                    contract.sequence(null).as(ReservedNames.LIVE_SEQ),
                    col(PAYLOAD_HASH).as(ReservedNames.LIVE_HASH)));
    List<String> joinOn = new ArrayList<>(keys);
    joinOn.add(ReservedNames.LIVE_SEQ);
    Map<String, String> refused = new LinkedHashMap<>();
    for (Row r :
        identified
            .withColumn(ReservedNames.LIVE_SEQ, col(SEQ))
            .join(stored, SqlNames.seq(joinOn), "left")
            .where(
                org.apache.spark.sql.functions.not(
                    org.apache.spark.sql.functions.coalesce(
                        col(ReservedNames.LIVE_HASH).equalTo(col(PAYLOAD_HASH)), lit(false))))
            .select(
                col(QUARANTINE_ID),
                concat(
                    lit("the history of key "),
                    col(KEY_DISPLAY),
                    lit(" holds no event at sequence "),
                    to_json(col(SEQ)),
                    lit(" with the released payload (an erased key, or a later release)")))
            .orderBy(QUARANTINE_ID)
            .collectAsList()) {
      refused.put(r.getString(0), r.getString(1));
    }
    return refused;
  }

  private static Column[] keyColumnsAnd(List<String> keys, Column... extra) {
    List<Column> columns = new ArrayList<>(List.of(SqlNames.columns(keys)));
    columns.addAll(List.of(extra));
    return columns.toArray(Column[]::new);
  }
}
