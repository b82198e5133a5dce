package io.replaysafe.silver;

import static io.replaysafe.silver.SilverContract.COMMIT_VERSION;
import static io.replaysafe.silver.SilverContract.IS_DELETE;
import static io.replaysafe.silver.SilverContract.PAYLOAD_HASH;
import static io.replaysafe.silver.SilverContract.RAW_KEY;
import static io.replaysafe.silver.SilverContract.RAW_PAYLOAD;
import static io.replaysafe.silver.SilverContract.SEQ;
import static io.replaysafe.silver.SilverContract.q;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.when;

import io.replaysafe.common.Columns;
import io.replaysafe.common.spark.SqlNames;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StringType;

/**
 * The per-batch steps before anything touches the target, each a pure DataFrame function tested on
 * its own: identity columns, validation, exact-retry collapse, in-batch conflicts, latest per key.
 * None performs an action.
 */
public final class BatchPreparation {
  /** Working columns added to the batch. */
  static final String INVALID_REASON = "__invalid_reason";

  static final String INVALID_MESSAGE = "__invalid_message";
  public static final String KEY_DISPLAY = "__key_display";
  static final String SEQ_DISPLAY = "__seq_display";

  /**
   * Optional input column: true on a row whose conflict with the stored version at the same
   * sequence is waived, because a person decided it wins (a quarantine release, a reconcile
   * delete). Absent on bronze rows, which never carry it.
   */
  public static final String WAIVED = "__waived";

  /** Optional input column: true on a row that is a delete whatever {@code applyAsDeletes} says. */
  public static final String FORCE_DELETE = "__force_delete";

  private BatchPreparation() {}

  /**
   * Step 2 and 3: keeps the raw key and raw payload for reports, replaces each key column with its
   * normalised value (the one column used for grouping, conflicts and the MERGE), and adds the
   * sequence struct, the payload hash and the delete flag.
   */
  public static Dataset<Row> identity(Dataset<Row> bronze, SilverContract contract) {
    List<String> columns = List.of(bronze.columns());
    Column isDelete =
        columns.contains(FORCE_DELETE)
            ? contract.isDelete().or(col(FORCE_DELETE))
            : contract.isDelete();
    if (!columns.contains(WAIVED)) {
      bronze = bronze.withColumn(WAIVED, lit(false));
    }
    List<String> rawColumns = new ArrayList<>(contract.pipeline().businessColumns());
    rawColumns.add(contract.pipeline().source().rescuedDataColumn());
    rawColumns.add(Columns.CORRUPT_RECORD);
    Dataset<Row> withRaw =
        bronze
            .withColumn(RAW_KEY, SilverContract.json(contract.keys()))
            .withColumn(RAW_PAYLOAD, SilverContract.json(rawColumns))
            .withColumn(PAYLOAD_HASH, contract.payloadHash())
            .withColumn(IS_DELETE, isDelete);
    for (String key : contract.keys()) {
      withRaw = withRaw.withColumn(key, contract.normalizedKey(key));
    }
    return withRaw
        .withColumn(SEQ, contract.sequence(null))
        .withColumn(KEY_DISPLAY, display(contract.keys()))
        .withColumn(SEQ_DISPLAY, display(contract.sequenceBy()));
  }

  private static Column display(List<String> columns) {
    return SilverContract.display(List.of(SqlNames.columns(columns)));
  }

  /**
   * Step 1: adds the reason a row is invalid (null when valid). Keys must be non-null and, for
   * strings, non-blank after normalisation; sequences non-null and, when integral, non-negative;
   * rows bronze kept as {@code _corrupt_record} are invalid.
   */
  public static Dataset<Row> validate(Dataset<Row> prepared, SilverContract contract) {
    Column reason = lit(null).cast(DataTypes.StringType);
    Column message = lit(null).cast(DataTypes.StringType);
    // Later rules take precedence in when-chains, so list them from least to most fundamental.
    for (String seq : contract.sequenceBy()) {
      DataType type = prepared.schema().apply(seq).dataType();
      if (isIntegral(type)) {
        Column negative = col(q(seq)).lt(0);
        reason = when(negative, lit("INVALID_NEGATIVE_SEQUENCE")).otherwise(reason);
        message =
            when(negative, lit("sequence column '" + seq + "' is negative")).otherwise(message);
      }
      Column missing = col(q(seq)).isNull();
      reason = when(missing, lit("INVALID_NULL_SEQUENCE")).otherwise(reason);
      message = when(missing, lit("sequence column '" + seq + "' is null")).otherwise(message);
    }
    for (String key : contract.keys()) {
      if (prepared.schema().apply(key).dataType() instanceof StringType) {
        Column blank = col(q(key)).rlike("^\\s*$");
        reason = when(blank, lit("INVALID_BLANK_KEY")).otherwise(reason);
        message =
            when(blank, lit("key column '" + key + "' is blank after normalisation"))
                .otherwise(message);
      }
      Column missing = col(q(key)).isNull();
      reason = when(missing, lit("INVALID_NULL_KEY")).otherwise(reason);
      message =
          when(missing, lit("key column '" + key + "' is null (missing or not convertible)"))
              .otherwise(message);
    }
    Column corrupt = col(Columns.CORRUPT_RECORD).isNotNull();
    reason = when(corrupt, lit("INVALID_CORRUPT_RECORD")).otherwise(reason);
    message = when(corrupt, lit("the line is not a JSON object")).otherwise(message);
    return prepared.withColumn(INVALID_REASON, reason).withColumn(INVALID_MESSAGE, message);
  }

  private static boolean isIntegral(DataType type) {
    return type == DataTypes.LongType
        || type == DataTypes.IntegerType
        || type == DataTypes.ShortType
        || type == DataTypes.ByteType;
  }

  /**
   * Step 4: one row per (key, sequence, payload hash). Which copy survives is deterministic (the
   * earliest bronze version, then file name, then raw text: copies within one file can differ in
   * how a number is written), so a rerun stores the same provenance and values.
   */
  public static Dataset<Row> collapseRetries(Dataset<Row> valid, SilverContract contract) {
    List<Column> identity = new ArrayList<>();
    contract.keys().forEach(k -> identity.add(col(q(k))));
    identity.add(col(SEQ));
    identity.add(col(PAYLOAD_HASH));
    var window =
        Window.partitionBy(identity.toArray(Column[]::new))
            .orderBy(
                col(COMMIT_VERSION).asc_nulls_last(),
                col(Columns.SOURCE_FILE).asc_nulls_last(),
                col(RAW_PAYLOAD).asc_nulls_last());
    return valid
        .withColumn("__copy", row_number().over(window))
        .where(col("__copy").equalTo(1))
        .drop("__copy");
  }

  /** Step 5: (key, sequence) pairs that carry more than one payload in the batch. */
  public static Dataset<Row> conflictsInBatch(Dataset<Row> collapsed, SilverContract contract) {
    List<Column> group = new ArrayList<>();
    contract.keys().forEach(k -> group.add(col(q(k))));
    group.add(col(SEQ));
    return collapsed
        .groupBy(group.toArray(Column[]::new))
        .agg(count(lit(1)).as("__payloads"))
        .where(col("__payloads").gt(1))
        .drop("__payloads");
  }

  /** Step 7: the highest sequence per key (SCD type 1 keeps only the latest state). */
  public static Dataset<Row> latestPerKey(Dataset<Row> clean, SilverContract contract) {
    var window =
        Window.partitionBy(contract.keys().stream().map(k -> col(q(k))).toArray(Column[]::new))
            .orderBy(col(SEQ).desc());
    return clean
        .withColumn("__rank", row_number().over(window))
        .where(col("__rank").equalTo(1))
        .drop("__rank");
  }
}
