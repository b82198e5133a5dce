package io.replaysafe.silver;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;

import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.spark.DeltaTables;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The keys erased at a person's request ({@code replaysafe erase}), as a batch sees them: an event
 * of an erased key at or before the sequence the erase recorded (or without a sequence) is ignored,
 * never stored, quarantined or reported with its values; a newer event is new data and is applied.
 * The table ({@link SilverContract#erasuresPath}) holds the key and the sequence only.
 */
public final class Erasures {
  /** The erased key, in the form reports print it ({@link SilverContract#display}). */
  public static final String KEY = "key";

  /** The sequence up to which the key's events are ignored: the highest the layers held. */
  public static final String SEQUENCE = "sequence";

  public static final String REQUEST_ID = "request_id";
  public static final String ERASED_AT = "erased_at";

  /** Working column of a batch: true on a row the erasure ignores. */
  static final String ERASED = ReservedNames.ERASED;

  private static final String ERASED_KEY = ReservedNames.ERASED_KEY;
  private static final String ERASED_SEQ = ReservedNames.ERASED_SEQ;

  /** A pipeline none of whose keys was ever erased. */
  static final Erasures NONE = new Erasures(null);

  private final Dataset<Row> latest;

  private Erasures(Dataset<Row> latest) {
    this.latest = latest;
  }

  public static StructType schema(SilverContract contract) {
    return new StructType()
        .add(KEY, DataTypes.StringType, false)
        .add(SEQUENCE, sequenceType(contract), true)
        .add(REQUEST_ID, DataTypes.StringType, false)
        .add(ERASED_AT, DataTypes.TimestampType, false);
  }

  /**
   * The type of {@link #SEQUENCE}: the struct of the sequence columns a batch compares ({@link
   * SilverContract#sequence}), one column included.
   */
  public static StructType sequenceType(SilverContract contract) {
    DataType type = contract.sequenceType();
    if (type instanceof StructType struct && contract.sequenceBy().size() > 1) {
      return struct;
    }
    return new StructType().add(contract.sequenceBy().get(0), type, true);
  }

  /**
   * The pipeline's erasures, read once per run: an erase takes the pipeline's lease, so none can be
   * recorded while a run holds it. A pipeline that never erased a key, as most never do, pays one
   * request: the probe for the table's log directory ({@link DeltaTables#mayExist}), where Delta's
   * look at a missing table takes four.
   */
  static Erasures of(SparkSession spark, SilverContract contract) {
    String path = contract.erasuresPath();
    if (!DeltaTables.mayExist(spark, path) || !DeltaTables.exists(spark, path)) {
      return NONE;
    }
    // A key erased twice keeps the later (higher) sequence.
    Dataset<Row> latest =
        spark
            .read()
            .format("delta")
            .load(path)
            .groupBy(col(KEY).as(ERASED_KEY))
            .agg(max(col(SEQUENCE)).as(ERASED_SEQ));
    return new Erasures(latest);
  }

  /**
   * Adds {@link #ERASED} to identified rows ({@link BatchPreparation#identity}): true for an event
   * of an erased key whose sequence is not above the erased one.
   */
  Dataset<Row> mark(Dataset<Row> identified) {
    if (latest == null) {
      return identified.withColumn(ERASED, lit(false));
    }
    Dataset<Row> joined =
        identified.join(
            broadcast(latest),
            identified.col(BatchPreparation.KEY_DISPLAY).equalTo(col(ERASED_KEY)),
            "left");
    Column erased =
        col(ERASED_KEY)
            .isNotNull()
            .and(coalesce(col(SilverContract.SEQ).leq(col(ERASED_SEQ)), lit(true)));
    return joined.withColumn(ERASED, erased).drop(ERASED_KEY, ERASED_SEQ);
  }
}
