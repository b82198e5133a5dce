package io.replaysafe.common.config;

import io.replaysafe.common.ConfigException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.QueryPlanningTracker;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry$;
import org.apache.spark.sql.catalyst.analysis.SimpleAnalyzer$;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAlias;
import org.apache.spark.sql.catalyst.analysis.UnresolvedFunction;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser$;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.AtomicType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code silver.columns}: columns computed from each bronze row before the contract (a Debezium
 * envelope's {@code coalesce(after.id, before.id)}, {@code source.lsn}), each a Spark SQL
 * expression over the source schema's columns. Checked once, when the pipeline file is loaded, with
 * Spark's own parser and analyzer (no session needed): each must parse, resolve against the source
 * schema (provenance, rescued and internal columns are not in it, so they do not resolve), use
 * built-in functions only, be deterministic and yield a type silver can store. The result is the
 * schema of the derived columns, in declared order: silver's business columns.
 */
public final class DerivedColumns {
  /**
   * Built-in functions that Spark counts as deterministic although their value depends on when or
   * where the row is read: a replay would derive another value and look like a conflict.
   */
  private static final Set<String> CONTEXT_DEPENDENT =
      Set.of(
          "CurrentTimestamp",
          "CurrentDate",
          "CurrentTime",
          "Now",
          "LocalTimestamp",
          "CurrentTimeZone",
          "CurrentUser",
          "CurrentDatabase",
          "CurrentCatalog",
          "CurrentSchema");

  private DerivedColumns() {}

  /**
   * The derived columns' schema, every column nullable, in the order {@code columns} lists them.
   *
   * @param columns name to Spark SQL expression, as written under {@code silver.columns}
   * @param source the source schema the expressions read
   */
  public static StructType schema(Map<String, String> columns, StructType source) {
    StructType result = new StructType();
    for (Map.Entry<String, String> c : columns.entrySet()) {
      DataType type = resolve(c.getKey(), c.getValue(), source);
      result = result.add(c.getKey(), type, true);
    }
    return result;
  }

  /** The map as YAML gave it, checked for names and blank expressions; empty when absent. */
  static Map<String, String> parse(Map<String, String> raw) {
    if (raw == null) {
      return Map.of();
    }
    if (raw.isEmpty()) {
      throw ConfigErrors.rule(
          "silver.columns is empty",
          "map each derived column to a Spark SQL expression (id: \"coalesce(after.id,"
              + " before.id)\"), or omit it to use bronze's columns as they are");
    }
    Map<String, String> result = new LinkedHashMap<>();
    for (Map.Entry<String, String> c : raw.entrySet()) {
      String name = c.getKey();
      if (name == null || name.isBlank()) {
        throw ConfigErrors.rule("silver.columns has a blank column name", "name every column");
      }
      if (c.getValue() == null || c.getValue().isBlank()) {
        throw ConfigErrors.rule(
            "silver.columns." + name + " has no expression",
            "write a Spark SQL expression over source.schema's columns, e.g. \"after."
                + name
                + "\"");
      }
      result.put(name, c.getValue().strip());
    }
    return java.util.Collections.unmodifiableMap(result);
  }

  private static DataType resolve(String name, String expression, StructType source) {
    Expression parsed;
    try {
      parsed = CatalystSqlParser$.MODULE$.parseExpression(expression);
    } catch (Exception e) { // Spark's ParseException is checked, but thrown from Scala unchecked
      throw invalid(name, expression, "it does not parse: " + SourceConfig.firstLine(e), e);
    }
    for (String function : functionNames(parsed, new ArrayList<>())) {
      if (!FunctionRegistry$.MODULE$.builtin().functionExists(FunctionIdentifier.apply(function))) {
        throw invalid(
            name,
            expression,
            "'"
                + function
                + "' is not a built-in Spark SQL function (user-defined functions are"
                + " not allowed: silver must derive the same value whenever it reads the row)",
            null);
      }
    }
    Expression resolved;
    try {
      resolved = analyze(parsed, source);
    } catch (Exception e) { // AnalysisException, checked in Java, thrown from Scala unchecked
      throw invalid(
          name,
          expression,
          "it does not resolve against source.schema: "
              + SourceConfig.firstLine(e)
              + " (provenance, rescued and internal columns cannot be read)",
          e);
    }
    String context = contextDependent(resolved);
    if (!resolved.deterministic() || context != null) {
      throw invalid(
          name,
          expression,
          "it is not deterministic"
              + (context == null ? "" : " (" + context + " depends on when it runs)")
              + ": silver must derive the same value whenever it reads the row, or a replay would"
              + " be a conflict",
          null);
    }
    DataType type = resolved.dataType();
    String unstorable = unstorable(type);
    if (unstorable != null) {
      throw invalid(
          name,
          expression,
          "it yields " + type.sql() + ", which silver cannot store (" + unstorable + ")",
          null);
    }
    return type;
  }

  private static Expression analyze(Expression parsed, StructType source) {
    @SuppressWarnings("unchecked")
    scala.collection.immutable.Seq<Attribute> attributes =
        (scala.collection.immutable.Seq<Attribute>) (Object) DataTypeUtils.toAttributes(source);
    LogicalPlan relation =
        new LocalRelation(
            attributes,
            CollectionConverters.asScala(List.<InternalRow>of()).toList(),
            false,
            scala.Option.empty());
    List<NamedExpression> projection = List.of(new UnresolvedAlias(parsed, scala.Option.empty()));
    LogicalPlan plan = new Project(CollectionConverters.asScala(projection).toList(), relation);
    LogicalPlan analyzed =
        SimpleAnalyzer$.MODULE$.executeAndCheck(
            plan, new QueryPlanningTracker(scala.Option.empty()));
    return (Expression) ((Project) analyzed).projectList().head();
  }

  private static List<String> functionNames(Expression e, List<String> names) {
    if (e instanceof UnresolvedFunction f) {
      names.add(String.join(".", CollectionConverters.asJava(f.nameParts())));
    }
    for (Expression child : CollectionConverters.asJava(e.children())) {
      functionNames(child, names);
    }
    return names;
  }

  private static String contextDependent(Expression e) {
    String name = e.getClass().getSimpleName();
    if (CONTEXT_DEPENDENT.contains(name)) {
      return e.prettyName() + "()";
    }
    for (Expression child : CollectionConverters.asJava(e.children())) {
      String found = contextDependent(child);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /** Why Delta cannot hold a value of {@code type}, or null when it can. */
  private static String unstorable(DataType type) {
    if (type instanceof StructType struct) {
      for (StructField f : struct.fields()) {
        String why = unstorable(f.dataType());
        if (why != null) {
          return why;
        }
      }
      return null;
    }
    if (type instanceof ArrayType array) {
      return unstorable(array.elementType());
    }
    if (type instanceof MapType map) {
      String why = unstorable(map.keyType());
      return why != null ? why : unstorable(map.valueType());
    }
    if (type instanceof org.apache.spark.sql.types.NullType) {
      return "a bare NULL has no type: cast it, e.g. CAST(NULL AS STRING)";
    }
    if (type instanceof org.apache.spark.sql.types.CalendarIntervalType
        || type instanceof org.apache.spark.sql.types.DayTimeIntervalType
        || type instanceof org.apache.spark.sql.types.YearMonthIntervalType) {
      return "Delta tables do not store intervals";
    }
    if (type instanceof AtomicType || type instanceof org.apache.spark.sql.types.VariantType) {
      return null;
    }
    return "not a column type";
  }

  private static ConfigException invalid(
      String name, String expression, String why, Throwable cause) {
    return ConfigErrors.rule(
        "silver.columns." + name + " \"" + expression + "\" cannot be derived: " + why,
        "write a deterministic Spark SQL expression over source.schema's columns",
        cause);
  }
}
