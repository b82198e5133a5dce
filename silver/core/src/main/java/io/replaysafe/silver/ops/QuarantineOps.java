package io.replaysafe.silver.ops;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.lit;

import io.replaysafe.common.Columns;
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
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The quarantine's exit path. Every decision is recorded on the row (who, why, when). Discard
 * closes a row. Release applies a row's payload to silver through the contract, with one difference
 * the decision makes explicit: the released payload wins at its own sequence, so a conflict with
 * the stored version is resolved as decided; a newer stored version or tombstone still wins.
 */
public final class QuarantineOps {
  private final PipelineConfig config;
  private final SparkSession spark;

  public QuarantineOps(PipelineConfig config, SparkSession spark) {
    this.config = config;
    this.spark = spark;
  }

  public Dataset<Row> open() {
    SparkSessions.applyStorage(spark, config.storage());
    return spark
        .read()
        .format("delta")
        .load(config.requireSilver().quarantinePath())
        .where(col("status").equalTo("OPEN"));
  }

  public long discard(List<String> ids, String by, String why) {
    return decide(ids, "DISCARDED", by, why);
  }

  /** Applies the chosen rows, then records the decision; returns the silver rows changed. */
  public long release(List<String> ids, String by, String why) {
    SilverContract contract = new SilverContract(config);
    if (contract.isHistory()) {
      throw new ConfigException("quarantine release supports current-state tables in this version");
    }
    Dataset<Row> chosen = selected(ids);
    List<Row> invalid =
        chosen
            .where(col("reason").startsWith("INVALID_"))
            .select("quarantine_id", "reason")
            .collectAsList();
    if (!invalid.isEmpty()) {
      throw new ConfigException(
          "Cannot release "
              + invalid.get(0).getString(0)
              + ": it is "
              + invalid.get(0).getString(1)
              + " and cannot satisfy the contract as it is; correct the source and deliver it again, or discard it");
    }
    if (chosen.select("key", "sequence").distinct().count() != chosen.count()) {
      throw new ConfigException(
          "Cannot release several payloads for one key and sequence: choose the one that wins and"
              + " discard the others");
    }
    StructType raw = new StructType();
    for (var f : config.source().schema().fields()) {
      raw = raw.add(f);
    }
    raw =
        raw.add(config.source().rescuedDataColumn(), DataTypes.StringType)
            .add(Columns.CORRUPT_RECORD, DataTypes.StringType);
    Dataset<Row> rows =
        chosen
            .select(
                from_json(col("raw_payload"), raw).as("r"),
                col("source_file"),
                col("bronze_version"))
            .select(
                col("r.*"),
                col("source_file").as(Columns.SOURCE_FILE),
                col("bronze_version").as("_commit_version"))
            .select(SqlNames.columns(contract.pipeline().businessColumns()))
            .withColumn(Columns.SOURCE_FILE, lit("quarantine release by " + by));
    Dataset<Row> prepared = rows;
    for (String key : contract.keys()) {
      prepared = prepared.withColumn(key, contract.normalizedKey(key));
    }
    prepared =
        prepared
            .withColumn(SilverContract.PAYLOAD_HASH, contract.payloadHash())
            .withColumn("__is_delete", contract.isDelete());
    SilverTables tables = new SilverTables(spark, contract);
    String seqS = contract.sequenceSql("s");
    String seqT = contract.sequenceSql("t");
    Map<String, String> values = new LinkedHashMap<>();
    for (String c : contract.silverColumns()) {
      values.put(c, "s." + SqlNames.quote(c));
    }
    values.put(SilverContract.PAYLOAD_HASH, "s." + SilverContract.PAYLOAD_HASH);
    values.put(SilverContract.SOURCE_FILE, "s." + SqlNames.quote(Columns.SOURCE_FILE));
    values.put(SilverContract.BRONZE_VERSION, "CAST(NULL AS BIGINT)");
    values.put(SilverContract.APPLIED_AT, "current_timestamp()");
    // A tombstone at or after the released sequence keeps the key deleted.
    Dataset<Row> dead =
        tables
            .tombstones()
            .select(SqlNames.columns(contract.keys()))
            .join(
                prepared.select(SqlNames.columns(contract.keys())),
                scala.jdk.javaapi.CollectionConverters.asScala(contract.keys()).toSeq(),
                "left_semi");
    Dataset<Row> applicable =
        prepared.join(
            dead,
            scala.jdk.javaapi.CollectionConverters.asScala(contract.keys()).toSeq(),
            "left_anti");
    Row metrics =
        tables
            .silverTable()
            .as("t")
            .merge(applicable.as("s"), contract.keyCondition("t", "s"))
            .whenMatched("s.__is_delete AND " + seqS + " >= " + seqT)
            .delete()
            .whenMatched(seqS + " >= " + seqT)
            .updateExpr(values)
            .whenNotMatched("NOT s.__is_delete")
            .insertExpr(values)
            .execute()
            .first();
    decide(ids, "RELEASED", by, why);
    return metrics.getLong(metrics.fieldIndex("num_affected_rows"));
  }

  private Dataset<Row> selected(List<String> ids) {
    Dataset<Row> chosen = open().where(col("quarantine_id").isin(ids.toArray()));
    long found = chosen.count();
    if (found != ids.size()) {
      throw new ConfigException(
          "Only "
              + found
              + " of the "
              + ids.size()
              + " quarantine id(s) given are open; list them with"
              + " 'replaysafe quarantine list'");
    }
    return chosen;
  }

  private long decide(List<String> ids, String status, String by, String why) {
    if (by == null || by.isBlank() || why == null || why.isBlank()) {
      throw new ConfigException(
          "A quarantine decision needs --by (who decided) and --reason (why)");
    }
    selected(ids);
    Map<String, org.apache.spark.sql.Column> set = new LinkedHashMap<>();
    set.put("status", lit(status));
    set.put("decided_by", lit(by));
    set.put("decision", lit(why));
    set.put("decided_at", org.apache.spark.sql.functions.current_timestamp());
    new SilverTables(spark, new SilverContract(config))
        .quarantineTable()
        .update(col("quarantine_id").isin(ids.toArray()).and(col("status").equalTo("OPEN")), set);
    return ids.size();
  }
}
