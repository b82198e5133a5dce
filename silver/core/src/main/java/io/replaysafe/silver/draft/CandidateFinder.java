package io.replaysafe.silver.draft;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.lag;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import io.replaysafe.common.Columns;
import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.spark.SqlNames;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Proposes keys and sequence columns from a sample, each with its evidence: unique columns, (key,
 * sequence) pairs unique together where the sequence never decreases within the key, and columns
 * that increase in arrival order. Proposals only: the user chooses.
 */
public final class CandidateFinder {
  /** Share of consecutive rows (arrival order) in which a sequence must not decrease. */
  static final double INCREASING_SHARE = 0.9;

  /** The column holding each sample row's arrival order. */
  public static final String ARRIVAL = ReservedNames.ARRIVAL;

  private static final int MAX_PAIRS = 40;

  private CandidateFinder() {}

  public record Candidates(List<Candidate> keys, List<Candidate> sequences) {}

  /** The top-level columns of a type a key or a sequence can have, in schema order. */
  public static List<StructField> atomic(StructType schema) {
    List<StructField> atomic = new ArrayList<>();
    for (StructField f : schema.fields()) {
      if (isKeyType(f.dataType()) || isSequenceType(f.dataType())) {
        atomic.add(f);
      }
    }
    return atomic;
  }

  /**
   * @param timestamps a string column whose every value reads as a timestamp
   */
  private record ColumnStats(
      String name, DataType type, long nonNull, long distinct, boolean timestamps) {
    boolean orderable() {
      return isSequenceType(type) || timestamps;
    }

    /** The value compared for order: timestamps held in strings compare as timestamps. */
    Column value() {
      return timestamps ? asTimestamp(name) : SqlNames.column(name);
    }
  }

  private static Column asTimestamp(String column) {
    return org.apache.spark.sql.functions.expr(
        "try_cast(" + SqlNames.quote(column) + " AS TIMESTAMP)");
  }

  /**
   * The candidates among {@code atomic} columns of the {@code valid} sample rows ({@link #ARRIVAL}
   * numbering them in arrival order), of which there are {@code rows}.
   */
  public static Candidates find(Dataset<Row> valid, List<StructField> atomic, long rows) {
    if (rows == 0) {
      return new Candidates(List.of(), List.of());
    }
    List<ColumnStats> stats = new ArrayList<>();
    if (!atomic.isEmpty()) {
      List<Column> aggs = new ArrayList<>();
      for (StructField f : atomic) {
        aggs.add(count(SqlNames.column(f.name())));
        aggs.add(countDistinct(SqlNames.column(f.name())));
        aggs.add(f.dataType() instanceof StringType ? count(asTimestamp(f.name())) : lit(-1L));
      }
      Row r = valid.agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(Column[]::new)).first();
      for (int i = 0; i < atomic.size(); i++) {
        long nonNull = r.getLong(3 * i);
        stats.add(
            new ColumnStats(
                atomic.get(i).name(),
                atomic.get(i).dataType(),
                nonNull,
                r.getLong(3 * i + 1),
                nonNull > 0 && r.getLong(3 * i + 2) == nonNull));
      }
    }
    Dataset<Row> ordered = inArrivalOrder(valid);

    // Sequence columns: orderable, never null, and not decreasing in arrival order (overall or
    // within a repeating key).
    List<ColumnStats> orderable =
        stats.stream().filter(s -> s.orderable() && s.nonNull == rows).toList();
    // Timestamps identify moments, not rows: unique ones are a coincidence of the sample.
    List<ColumnStats> identifying =
        stats.stream()
            .filter(s -> isKeyType(s.type) && !s.timestamps && !isTimeType(s.type))
            .filter(s -> s.nonNull == rows)
            .toList();
    List<ColumnStats> repeating =
        identifying.stream().filter(s -> s.distinct > 1 && s.distinct < rows).toList();
    List<Candidate> keys = new ArrayList<>();
    for (ColumnStats s : identifying) {
      if (s.distinct == rows) {
        keys.add(
            new Candidate(
                List.of(s.name),
                Candidate.Evidence.UNIQUE,
                "unique in the sample: " + s.distinct + " distinct values in " + rows + " rows"));
      }
    }
    List<Candidate> sequences = new ArrayList<>();
    // (key, sequence) pairs unique together, where the sequence never decreases within the key.
    List<String[]> versioned = new ArrayList<>();
    for (String[] pair : uniquePairs(valid, repeating, orderable, rows)) {
      ColumnStats seq = orderable.stream().filter(o -> o.name.equals(pair[1])).findFirst().get();
      if (decreases(ordered, seq.value(), SqlNames.column(pair[0])) == 0) {
        versioned.add(pair);
      }
    }
    // Both ways round (a, b) and (b, a): a key has more distinct values than its versions.
    List<String[]> oneWay = new ArrayList<>();
    for (String[] pair : versioned) {
      boolean reverse =
          versioned.stream().anyMatch(p -> p[0].equals(pair[1]) && p[1].equals(pair[0]));
      if (!reverse || distinct(stats, pair[0]) >= distinct(stats, pair[1])) {
        oneWay.add(pair);
      }
    }
    versioned = oneWay;
    for (ColumnStats seq : orderable) {
      long globalDrops = decreases(ordered, seq.value(), null);
      List<String> within = new ArrayList<>();
      for (String[] pair : versioned) {
        if (pair[1].equals(seq.name)) {
          within.add(pair[0]);
        }
      }
      String typeNote =
          seq.timestamps
              ? "STRING holding timestamps (declare it TIMESTAMP in the schema to order by time); "
              : seq.type.sql() + "; ";
      if (!within.isEmpty()) {
        // Within a key is what the contract compares: listed first, and said so even when it
        // also holds overall.
        sequences.add(
            (int)
                sequences.stream()
                    .filter(c -> c.kind() == Candidate.Evidence.INCREASING_WITHIN_KEY)
                    .count(),
            new Candidate(
                List.of(seq.name),
                Candidate.Evidence.INCREASING_WITHIN_KEY,
                typeNote
                    + "never decreases within each "
                    + String.join(" or ", within)
                    + " in arrival order; no nulls"));
      } else if (globalDrops == 0) {
        sequences.add(
            new Candidate(
                List.of(seq.name),
                Candidate.Evidence.INCREASING,
                typeNote + "never decreases in arrival order; no nulls"));
      } else if (rows > 1 && 1.0 - (double) globalDrops / (rows - 1) >= INCREASING_SHARE) {
        sequences.add(
            new Candidate(
                List.of(seq.name),
                Candidate.Evidence.MOSTLY_INCREASING,
                typeNote
                    + "mostly increasing: decreases "
                    + globalDrops
                    + " time(s) in "
                    + (rows - 1)
                    + " consecutive rows of arrival order (late or replayed data?); no nulls"));
      }
    }
    for (String[] pair : versioned) {
      ColumnStats key = repeating.stream().filter(s -> s.name.equals(pair[0])).findFirst().get();
      boolean sequenceListed =
          sequences.stream().anyMatch(c -> c.columns().equals(List.of(pair[1])));
      if (sequenceListed) {
        keys.add(
            new Candidate(
                List.of(pair[0]),
                Candidate.Evidence.UNIQUE_WITH_SEQUENCE,
                "repeats ("
                    + key.distinct
                    + " distinct values in "
                    + rows
                    + " rows) and is unique together with sequence "
                    + pair[1]
                    + ": one row per version"));
      }
    }
    // One entry per key column: the first evidence found is the strongest.
    List<Candidate> distinctKeys = new ArrayList<>();
    Set<List<String>> seenKeys = new HashSet<>();
    for (Candidate c : keys) {
      if (seenKeys.add(c.columns())) {
        distinctKeys.add(c);
      }
    }
    return new Candidates(distinctKeys, sequences);
  }

  private static long distinct(List<ColumnStats> stats, String column) {
    return stats.stream().filter(s -> s.name.equals(column)).findFirst().get().distinct;
  }

  /** (key, sequence) column pairs that are unique together in the sample. */
  private static List<String[]> uniquePairs(
      Dataset<Row> valid, List<ColumnStats> keys, List<ColumnStats> sequences, long rows) {
    List<String[]> pairs = new ArrayList<>();
    for (ColumnStats k : keys) {
      for (ColumnStats s : sequences) {
        // A sequence unique on its own makes every pair unique: no evidence about the key.
        if (!k.name.equals(s.name) && s.distinct < rows && pairs.size() < MAX_PAIRS) {
          pairs.add(new String[] {k.name, s.name});
        }
      }
    }
    if (pairs.isEmpty()) {
      return List.of();
    }
    List<Column> aggs = new ArrayList<>();
    for (String[] p : pairs) {
      aggs.add(countDistinct(SqlNames.column(p[0]), SqlNames.column(p[1])));
    }
    Row r = valid.agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(Column[]::new)).first();
    List<String[]> unique = new ArrayList<>();
    for (int i = 0; i < pairs.size(); i++) {
      if (r.getLong(i) == rows) {
        unique.add(pairs.get(i));
      }
    }
    return unique;
  }

  /** The sample rows with {@link ReservedNames#ORDER}: file time, file, line (arrival order). */
  static Dataset<Row> inArrivalOrder(Dataset<Row> valid) {
    return valid.select(
        col("*"),
        struct(col(Columns.SOURCE_FILE_MTIME), col(Columns.SOURCE_FILE), col(ARRIVAL))
            .as(ReservedNames.ORDER));
  }

  /**
   * How often {@code value} decreases from one row to the next in arrival order ({@link
   * #inArrivalOrder}), within each value of {@code partitionKey} when it is not null.
   */
  static long decreases(Dataset<Row> ordered, Column value, Column partitionKey) {
    var window =
        partitionKey == null
            ? Window.orderBy(col(ReservedNames.ORDER))
            : Window.partitionBy(partitionKey).orderBy(col(ReservedNames.ORDER));
    Row r =
        ordered
            .select(when(value.lt(lag(value, 1).over(window)), lit(1)).otherwise(lit(0)).as("d"))
            .agg(sum(col("d")))
            .first();
    return r.isNullAt(0) ? 0 : r.getLong(0);
  }

  static boolean isKeyType(DataType type) {
    return !(type instanceof FloatType
            || type instanceof DoubleType
            || type instanceof BooleanType
            || type instanceof BinaryType)
        && (type instanceof StringType
            || type == DataTypes.LongType
            || type == DataTypes.IntegerType
            || type == DataTypes.ShortType
            || type == DataTypes.ByteType
            || type instanceof DecimalType
            || type instanceof DateType
            || type instanceof TimestampType);
  }

  static boolean isTimeType(DataType type) {
    return type instanceof DateType || type instanceof TimestampType;
  }

  private static boolean isSequenceType(DataType type) {
    return type == DataTypes.LongType
        || type == DataTypes.IntegerType
        || type == DataTypes.ShortType
        || type == DataTypes.ByteType
        || type instanceof DecimalType
        || type instanceof DoubleType
        || type instanceof FloatType
        || type instanceof DateType
        || type instanceof TimestampType;
  }
}
