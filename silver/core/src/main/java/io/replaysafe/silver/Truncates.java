package io.replaysafe.silver;

import static io.replaysafe.silver.SilverContract.SEQ;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.struct;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.Columns;
import io.replaysafe.common.ReservedNames;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code applyAsTruncates} for current-state tables: a truncate event at sequence T removes every
 * row whose sequence is older than T, and from then on any event older than T is ignored, exactly
 * as if it had arrived before the truncate. Sequences must therefore be comparable across keys (a
 * log position or a timestamp), which is what a table-wide truncate implies. The highest truncate
 * applied is kept in {@code <path>_truncates}, so replays and late events respect it.
 */
public final class Truncates {
  static final String IS_TRUNCATE = ReservedNames.IS_TRUNCATE;

  private final SparkSession spark;
  private final SilverContract contract;

  public Truncates(SparkSession spark, SilverContract contract) {
    this.spark = spark;
    this.contract = contract;
  }

  public boolean enabled() {
    return contract.silver().applyAsTruncates().isPresent();
  }

  public String path() {
    return contract.silver().path() + "_truncates";
  }

  /** True for a truncate event; false when the contract has none. */
  public Column isTruncate() {
    return contract
        .silver()
        .applyAsTruncates()
        .map(
            p ->
                org.apache.spark.sql.functions.coalesce(
                    org.apache.spark.sql.functions.expr(p), lit(false)))
        .orElse(lit(false));
  }

  /** True when every sequence column is set: a truncate without one cannot be placed. */
  public Column hasSequence() {
    Column all = lit(true);
    for (String c : contract.sequenceBy()) {
      all = all.and(col(SilverContract.q(c)).isNotNull());
    }
    return all;
  }

  /**
   * Truncate events left among the validated rows lack a sequence: invalid, with a reason that says
   * so (not the missing key a truncate never has), so they are rejected or quarantined like any
   * invalid row and never stored as a null watermark.
   */
  public Dataset<Row> invalidWithoutSequence(Dataset<Row> validated) {
    Column truncate = col(IS_TRUNCATE);
    return validated
        .withColumn(
            BatchPreparation.INVALID_REASON,
            org.apache
                .spark
                .sql
                .functions
                .when(truncate, lit("INVALID_NULL_SEQUENCE"))
                .otherwise(col(BatchPreparation.INVALID_REASON)))
        .withColumn(
            BatchPreparation.INVALID_MESSAGE,
            org.apache
                .spark
                .sql
                .functions
                .when(
                    truncate,
                    lit(
                        "truncate event without a sequence: "
                            + String.join(", ", contract.sequenceBy())
                            + " must be set"))
                .otherwise(col(BatchPreparation.INVALID_MESSAGE)));
  }

  public void ensureExists() {
    StructType schema = new StructType();
    for (String c : contract.sequenceBy()) {
      schema = schema.add(c, contract.pipeline().businessSchema().apply(c).dataType(), true);
    }
    schema =
        schema
            .add(SilverContract.STORED_SOURCE_FILE, DataTypes.StringType, true)
            .add(ReservedNames.TRUNCATED_AT, DataTypes.TimestampType, true);
    DeltaTable.createIfNotExists(spark).location(path()).addColumns(schema).execute();
  }

  /**
   * The watermark after this batch: the highest truncate sequence stored or in the batch (null:
   * none). When the batch raises it, silver rows and tombstones older than it are deleted and the
   * new watermark recorded, before any event of the batch is merged.
   */
  public Row apply(Dataset<Row> truncateRows, SilverTables tables) {
    // A null watermark stored by an earlier version (a truncate without a sequence) is ignored.
    Dataset<Row> stored = spark.read().format("delta").load(path()).where(hasSequence());
    Row storedMax = stored.agg(max(contract.sequence(null))).first();
    Row batchMax = truncateRows.agg(max(col(SEQ))).first();
    Row current = storedMax.isNullAt(0) ? null : storedMax.getStruct(0);
    Row incoming = batchMax.isNullAt(0) ? null : batchMax.getStruct(0);
    if (incoming == null || (current != null && compare(incoming, current) <= 0)) {
      return current;
    }
    Column older = contract.sequence(null).lt(literal(incoming));
    tables.silverTable().delete(older);
    tables.tombstoneTable().delete(older);
    List<Column> columns = new ArrayList<>();
    for (String c : contract.sequenceBy()) {
      columns.add(col(SEQ).getField(c).as(c));
    }
    columns.add(col(Columns.SOURCE_FILE).as(SilverContract.STORED_SOURCE_FILE));
    columns.add(current_timestamp().as(ReservedNames.TRUNCATED_AT));
    truncateRows
        .where(col(SEQ).equalTo(literal(incoming)))
        .select(columns.toArray(Column[]::new))
        .limit(1)
        .write()
        .format("delta")
        .mode("append")
        .save(path());
    io.replaysafe.common.CrashPoints.maybeCrash(
        io.replaysafe.common.CrashPoints.SILVER_AFTER_TRUNCATE_WATERMARK);
    return incoming;
  }

  /** Rows of the batch not older than the watermark. */
  public Dataset<Row> notOlderThan(Dataset<Row> rows, Row watermark) {
    return watermark == null ? rows : rows.where(col(SEQ).geq(literal(watermark)));
  }

  /**
   * The stored state of a batch's keys ({@link StoredState#T_SEQ}) that the watermark left: the
   * state is read before the batch's truncate deletes what is older, and a key whose row it removed
   * must be planned as absent (its newer event an insert), as in a run after the truncate's.
   */
  Dataset<Row> storedNotOlderThan(Dataset<Row> state, Row watermark) {
    return watermark == null ? state : state.where(col(StoredState.T_SEQ).geq(literal(watermark)));
  }

  private Column literal(Row sequence) {
    List<Column> fields = new ArrayList<>();
    for (int i = 0; i < contract.sequenceBy().size(); i++) {
      fields.add(lit(sequence.get(i)).as(contract.sequenceBy().get(i)));
    }
    return struct(fields.toArray(Column[]::new));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Row a, Row b) {
    for (int i = 0; i < a.length(); i++) {
      int c = ((Comparable) a.get(i)).compareTo(b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }
}
