package io.replaysafe.silver;

import static io.replaysafe.silver.SilverContract.COMMIT_VERSION;
import static io.replaysafe.silver.SilverContract.IS_DELETE;
import static io.replaysafe.silver.SilverContract.PAYLOAD_HASH;
import static io.replaysafe.silver.SilverContract.RAW_KEY;
import static io.replaysafe.silver.SilverContract.RAW_PAYLOAD;
import static io.replaysafe.silver.SilverContract.SEQ;
import static io.replaysafe.silver.SilverContract.q;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.isnan;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.when;

import io.replaysafe.common.Columns;
import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.spark.SqlNames;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.functions;
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
  static final String INVALID_REASON = ReservedNames.INVALID_REASON;

  /** The reason of a NaN or infinite sequence: it has no place in any order of versions. */
  public static final String NOT_ORDERABLE = "INVALID_SEQUENCE_NOT_ORDERABLE";

  static final String INVALID_MESSAGE = ReservedNames.INVALID_MESSAGE;
  public static final String KEY_DISPLAY = ReservedNames.KEY_DISPLAY;
  static final String SEQ_DISPLAY = ReservedNames.SEQ_DISPLAY;

  /**
   * Optional input column: true on a row whose conflict with the stored version at the same
   * sequence is waived, because a person decided it wins (a quarantine release, a reconcile
   * delete). Absent on bronze rows, which never carry it.
   */
  public static final String WAIVED = ReservedNames.WAIVED;

  /**
   * True on a Kafka tombstone: a line that is the JSON literal {@code null}, which a Kafka Connect
   * S3 sink writes for a record without a value ({@code behavior.on.null.values=write}; Debezium
   * sends one after each delete, for log compaction). Bronze keeps it (as {@code _corrupt_record});
   * silver counts it and ignores it: it carries no key, no sequence and no data, so it is not
   * invalid.
   */
  public static final String KAFKA_TOMBSTONE = "__kafka_tombstone";

  /** Optional input column: true on a row that is a delete whatever {@code applyAsDeletes} says. */
  public static final String FORCE_DELETE = ReservedNames.FORCE_DELETE;

  private BatchPreparation() {}

  /**
   * Step 2 and 3: derives the contract's columns ({@link SilverContract#derive}), keeps the raw key
   * and raw payload for reports, replaces each key column with its normalised value (the one column
   * used for grouping, conflicts and the MERGE), and adds the sequence struct, the payload hash and
   * the delete flag.
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
    Dataset<Row> withRaw =
        contract
            .derive(bronze)
            .withColumn(RAW_KEY, SilverContract.json(contract.keys()))
            .withColumn(PAYLOAD_HASH, contract.payloadHash())
            .withColumn(IS_DELETE, isDelete)
            .withColumn(
                KAFKA_TOMBSTONE,
                functions.coalesce(
                    functions.trim(col(Columns.CORRUPT_RECORD)).equalTo("null"), lit(false)));
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
   * strings, non-blank after normalisation; sequences non-null, when integral non-negative, when
   * floating-point neither NaN nor infinite; rows bronze kept as {@code _corrupt_record} are
   * invalid, except Kafka tombstones ({@link #KAFKA_TOMBSTONE}), which are never invalid and never
   * valid events.
   */
  public static Dataset<Row> validate(Dataset<Row> prepared, SilverContract contract) {
    Column reason = lit(null).cast(DataTypes.StringType);
    Column message = lit(null).cast(DataTypes.StringType);
    // Later rules take precedence in when-chains, so list them from least to most fundamental.
    for (String seq : contract.sequenceBy()) {
      DataType type = prepared.schema().apply(seq).dataType();
      if (type == DataTypes.DoubleType || type == DataTypes.FloatType) {
        // NaN sorts above every number in Spark, so a stored NaN would make every later version
        // of its key "older" forever; an infinity is no source's real position either.
        Column value = col(q(seq)).cast(DataTypes.DoubleType);
        Column unorderable =
            isnan(value).or(value.isin(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY));
        reason = when(unorderable, lit(NOT_ORDERABLE)).otherwise(reason);
        message =
            when(
                    unorderable,
                    concat(
                        lit("sequence column '" + seq + "' is "),
                        value.cast(DataTypes.StringType),
                        lit(", which has no order")))
                .otherwise(message);
      }
    }
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
    Column tombstone = col(KAFKA_TOMBSTONE);
    reason = when(tombstone, lit(null).cast(DataTypes.StringType)).otherwise(reason);
    message = when(tombstone, lit(null).cast(DataTypes.StringType)).otherwise(message);
    return prepared.withColumn(INVALID_REASON, reason).withColumn(INVALID_MESSAGE, message);
  }

  /** Rows that are events: valid, and not a Kafka tombstone. */
  static Column isValidEvent() {
    return col(INVALID_REASON).isNull().and(functions.not(col(KAFKA_TOMBSTONE)));
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
        .withColumn(ReservedNames.RANK, row_number().over(window))
        .where(col(ReservedNames.RANK).equalTo(1))
        .drop(ReservedNames.RANK);
  }

  /** Step 5: (key, sequence) pairs that carry more than one payload in the batch. */
  public static Dataset<Row> conflictsInBatch(Dataset<Row> collapsed, SilverContract contract) {
    List<Column> group = new ArrayList<>();
    contract.keys().forEach(k -> group.add(col(q(k))));
    group.add(col(SEQ));
    return collapsed
        .groupBy(group.toArray(Column[]::new))
        .agg(count(lit(1)).as(ReservedNames.COUNT))
        .where(col(ReservedNames.COUNT).gt(1))
        .drop(ReservedNames.COUNT);
  }

  /** Step 7: the highest sequence per key (SCD type 1 keeps only the latest state). */
  public static Dataset<Row> latestPerKey(Dataset<Row> clean, SilverContract contract) {
    var window =
        Window.partitionBy(contract.keys().stream().map(k -> col(q(k))).toArray(Column[]::new))
            .orderBy(col(SEQ).desc());
    return clean
        .withColumn(ReservedNames.RANK, row_number().over(window))
        .where(col(ReservedNames.RANK).equalTo(1))
        .drop(ReservedNames.RANK);
  }
}
