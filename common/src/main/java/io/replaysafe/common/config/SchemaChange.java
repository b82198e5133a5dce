package io.replaysafe.common.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;

/**
 * One difference between two versions of a source schema, and whether it can be applied in place.
 * Compatible changes are those Delta can apply to a table without rewriting it and without changing
 * what a stored row means: a nullable column or struct field added, a type widened along Delta's
 * type-widening rules. Everything else (a column dropped or renamed, a type narrowed or changed, a
 * field made NOT NULL) would reinterpret or lose stored rows, so it is refused.
 *
 * @param kind what changed
 * @param path the column, dotted for struct fields ({@code customer.tier}); {@code element}, {@code
 *     key} and {@code value} name array elements and map keys and values
 * @param from the type before (null for an added column)
 * @param to the type after (null for a dropped column)
 */
public record SchemaChange(Kind kind, String path, DataType from, DataType to) {

  /** The kinds of difference; {@link #compatible()} says which are applied in place. */
  public enum Kind {
    ADDED,
    WIDENED,
    DROPPED,
    TYPE_CHANGED,
    MADE_NOT_NULL,
    ADDED_NOT_NULL
  }

  /** True when the change is applied in place (the table evolves, nothing is re-read). */
  public boolean compatible() {
    return kind == Kind.ADDED || kind == Kind.WIDENED;
  }

  /** The change in words, e.g. "column 'customer.tier' added (STRING)". */
  public String describe() {
    return switch (kind) {
      case ADDED -> "column '" + path + "' added (" + sql(to) + ")";
      case WIDENED -> "column '" + path + "' widened from " + sql(from) + " to " + sql(to);
      case DROPPED ->
          "column '"
              + path
              + "' ("
              + sql(from)
              + ") dropped or renamed (a rename is a drop plus an add)";
      case TYPE_CHANGED ->
          "column '"
              + path
              + "' changed from "
              + sql(from)
              + " to "
              + sql(to)
              + ", which is not a widening Delta supports";
      case MADE_NOT_NULL -> "column '" + path + "' made NOT NULL";
      case ADDED_NOT_NULL ->
          "column '" + path + "' added as NOT NULL (rows stored before have no value for it)";
    };
  }

  /**
   * The differences from {@code before} to {@code after}, in {@code after}'s order (dropped columns
   * last). Names are compared exactly: a change of case is a drop plus an add.
   */
  public static List<SchemaChange> between(StructType before, StructType after) {
    List<SchemaChange> changes = new ArrayList<>();
    compareStructs("", before, after, changes);
    return List.copyOf(changes);
  }

  /** Only the changes that cannot be applied in place. */
  public static List<SchemaChange> incompatible(List<SchemaChange> changes) {
    return changes.stream().filter(c -> !c.compatible()).toList();
  }

  private static void compareStructs(
      String prefix, StructType before, StructType after, List<SchemaChange> out) {
    Map<String, StructField> old = new java.util.LinkedHashMap<>();
    for (StructField f : before.fields()) {
      old.put(f.name(), f);
    }
    Set<String> seen = new java.util.HashSet<>();
    for (StructField f : after.fields()) {
      String path = prefix + f.name();
      StructField was = old.get(f.name());
      if (was == null) {
        out.add(
            new SchemaChange(
                f.nullable() ? Kind.ADDED : Kind.ADDED_NOT_NULL, path, null, f.dataType()));
        continue;
      }
      seen.add(f.name());
      if (was.nullable() && !f.nullable()) {
        out.add(new SchemaChange(Kind.MADE_NOT_NULL, path, was.dataType(), f.dataType()));
      }
      compareTypes(path, was.dataType(), f.dataType(), out);
    }
    for (StructField f : before.fields()) {
      if (!seen.contains(f.name())) {
        out.add(new SchemaChange(Kind.DROPPED, prefix + f.name(), f.dataType(), null));
      }
    }
  }

  private static void compareTypes(
      String path, DataType from, DataType to, List<SchemaChange> out) {
    if (from.equals(to)) {
      return;
    }
    if (from instanceof StructType a && to instanceof StructType b) {
      compareStructs(path + ".", a, b, out);
    } else if (from instanceof ArrayType a && to instanceof ArrayType b) {
      compareTypes(path + ".element", a.elementType(), b.elementType(), out);
      if (a.containsNull() && !b.containsNull()) {
        out.add(new SchemaChange(Kind.MADE_NOT_NULL, path + ".element", from, to));
      }
    } else if (from instanceof MapType a && to instanceof MapType b) {
      compareTypes(path + ".key", a.keyType(), b.keyType(), out);
      compareTypes(path + ".value", a.valueType(), b.valueType(), out);
      if (a.valueContainsNull() && !b.valueContainsNull()) {
        out.add(new SchemaChange(Kind.MADE_NOT_NULL, path + ".value", from, to));
      }
    } else if (isWidening(from, to)) {
      out.add(new SchemaChange(Kind.WIDENED, path, from, to));
    } else {
      out.add(new SchemaChange(Kind.TYPE_CHANGED, path, from, to));
    }
  }

  /**
   * Delta's type-widening rules (table feature {@code typeWidening}): byte, short and int to a
   * wider integer, double or a decimal that holds every value; long to such a decimal; float to
   * double; decimal to a decimal with at least as many integer and fraction digits; date to
   * timestamp_ntz.
   */
  public static boolean isWidening(DataType from, DataType to) {
    int fromInt = integerRank(from);
    if (fromInt > 0) {
      int toInt = integerRank(to);
      if (toInt > fromInt) {
        return true;
      }
      if (to instanceof DoubleType) {
        return fromInt < 4;
      }
      if (to instanceof DecimalType d) {
        return d.precision() - d.scale() >= integerDigits(fromInt);
      }
      return false;
    }
    if (from instanceof FloatType) {
      return to instanceof DoubleType;
    }
    if (from instanceof DecimalType a && to instanceof DecimalType b) {
      return b.scale() >= a.scale() && b.precision() - b.scale() >= a.precision() - a.scale();
    }
    return from instanceof DateType && to instanceof TimestampNTZType;
  }

  private static int integerRank(DataType type) {
    if (type instanceof ByteType) {
      return 1;
    }
    if (type instanceof ShortType) {
      return 2;
    }
    if (type instanceof IntegerType) {
      return 3;
    }
    return type instanceof LongType ? 4 : 0;
  }

  /** Delta's minimum decimal targets: decimal(10,0) for byte, short and int, (20,0) for long. */
  private static int integerDigits(int rank) {
    return rank == 4 ? 20 : 10;
  }

  private static String sql(DataType type) {
    return type == null ? "none" : type.sql().toUpperCase(Locale.ROOT);
  }
}
