package io.replaysafe.common.spark;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.StorageErrors;
import io.replaysafe.common.config.SchemaChange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings an existing Delta table's schema up to a wider one in place: added columns and struct
 * fields with {@code ALTER TABLE ADD COLUMNS} (next to the field they follow), widened types with
 * {@code ALTER COLUMN TYPE} under Delta's {@code typeWidening} table feature. No data file is
 * rewritten; rows written before read the new columns as null and the widened ones at the new type.
 * Columns the table has and the target lacks are left alone (a former rescued-data column, say).
 * Applying it again changes nothing, so a run that stopped half way is finished by the next.
 */
public final class DeltaSchemaEvolution {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaSchemaEvolution.class);
  public static final String TYPE_WIDENING = "delta.enableTypeWidening";

  private DeltaSchemaEvolution() {}

  /**
   * Evolves the table at {@code path} so that it holds every column of {@code target}; returns what
   * was changed (empty when nothing was). A difference that is not an addition or a widening is
   * refused: the caller checked compatibility before, so this means the table was changed by hand.
   */
  public static List<SchemaChange> evolve(
      SparkSession spark, String path, StructType target, String what) {
    return evolve(spark, path, DeltaTables.snapshot(spark, path), target, what);
  }

  /**
   * As {@link #evolve(SparkSession, String, StructType, String)}, on the table's latest snapshot
   * that the caller has just read: not looked up again (on S3 a listing of its log).
   */
  public static List<SchemaChange> evolve(
      SparkSession spark,
      String path,
      java.util.Optional<org.apache.spark.sql.delta.Snapshot> snapshot,
      StructType target,
      String what) {
    // Most runs change nothing: the table's latest metadata, which the caller's existence check
    // has just read, says so without a DataFrame over the table (on S3, 5 requests a table: a
    // search for its root and a listing of its log). Its schema may carry Delta's internal field
    // metadata, which the DataFrame's drops, and which no comparison below looks at; when it shows
    // anything to change, the DataFrame's schema decides, as before.
    if (snapshot.isPresent() && nothingToChange(snapshot.get().schema(), target)) {
      return List.of();
    }
    StructType current = DeltaTable.forPath(spark, path).toDF().schema();
    // Nullability is the target's wish, not a change to make: a column added to an existing table
    // is nullable (rows before have no value), and NOT NULL is never added in place.
    List<SchemaChange> changes = new java.util.ArrayList<>();
    List<SchemaChange> refused = new java.util.ArrayList<>();
    for (SchemaChange c : SchemaChange.between(current, target)) {
      switch (c.kind()) {
        case ADDED, ADDED_NOT_NULL ->
            changes.add(new SchemaChange(SchemaChange.Kind.ADDED, c.path(), null, c.to()));
        case WIDENED -> changes.add(c);
        case TYPE_CHANGED -> refused.add(c);
        default -> {}
      }
    }
    if (!refused.isEmpty()) {
      throw StorageErrors.cannotEvolveTable(
          what,
          path,
          refused.stream().map(SchemaChange::describe).collect(Collectors.joining("; ")));
    }
    if (changes.isEmpty()) {
      return List.of();
    }
    String table = DeltaTables.tableName(path);
    if (changes.stream().anyMatch(c -> c.kind() == SchemaChange.Kind.WIDENED)
        && !"true".equals(property(spark, path, TYPE_WIDENING))) {
      spark.sql("ALTER TABLE " + table + " SET TBLPROPERTIES ('" + TYPE_WIDENING + "' = 'true')");
    }
    for (SchemaChange change : changes) {
      String column = quotePath(change.path());
      if (change.kind() == SchemaChange.Kind.ADDED) {
        spark.sql(
            "ALTER TABLE "
                + table
                + " ADD COLUMNS ("
                + column
                + " "
                + change.to().sql()
                + position(target, change.path())
                + ")");
      } else {
        spark.sql(
            "ALTER TABLE "
                + table
                + " ALTER COLUMN "
                + column
                + " TYPE "
                + change.to().sql().toUpperCase(Locale.ROOT));
      }
      LOG.info("Evolved {} {}: {}", what, path, change.describe());
    }
    return List.copyOf(changes);
  }

  /** True when {@code current} has every column of {@code target}, at its type. */
  static boolean nothingToChange(StructType current, StructType target) {
    return SchemaChange.between(current, target).stream()
        .noneMatch(
            c ->
                switch (c.kind()) {
                  case ADDED, ADDED_NOT_NULL, WIDENED, TYPE_CHANGED -> true;
                  default -> false;
                });
  }

  private static String property(SparkSession spark, String path, String name) {
    return DeltaTables.property(spark, path, name);
  }

  /** {@code a.b.c} with each part back-quoted. */
  static String quotePath(String path) {
    return Arrays.stream(path.split("\\."))
        .map(p -> "`" + p.replace("`", "``") + "`")
        .collect(Collectors.joining("."));
  }

  /** " FIRST" or " AFTER `sibling`": where the field stands among its siblings in the target. */
  private static String position(StructType target, String path) {
    List<String> parts = List.of(path.split("\\."));
    DataType parent = target;
    for (String part : parts.subList(0, parts.size() - 1)) {
      parent = child(parent, part);
    }
    if (!(parent instanceof StructType struct)) {
      return "";
    }
    String name = parts.get(parts.size() - 1);
    List<String> names = new ArrayList<>(Arrays.asList(struct.fieldNames()));
    int index = names.indexOf(name);
    if (index < 0) {
      return "";
    }
    return index == 0 ? " FIRST" : " AFTER `" + names.get(index - 1).replace("`", "``") + "`";
  }

  private static DataType child(DataType type, String part) {
    if (type instanceof StructType s) {
      for (StructField f : s.fields()) {
        if (f.name().equals(part)) {
          return f.dataType();
        }
      }
    } else if (type instanceof ArrayType a && "element".equals(part)) {
      return a.elementType();
    } else if (type instanceof MapType m) {
      return "key".equals(part) ? m.keyType() : m.valueType();
    }
    return null;
  }
}
