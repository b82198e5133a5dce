package io.replaysafe.common.spark;

import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.functions;

/**
 * Quoting of column names and paths for Spark SQL text and {@code col(...)}. A name from a schema
 * or a pipeline file may hold a dot, a space or a backtick; quoted here it always means that one
 * column (a backtick is escaped by doubling it), never a nested field or a syntax error.
 */
public final class SqlNames {
  private SqlNames() {}

  /** {@code name} as a quoted identifier: {@code a`b} becomes {@code `a``b`}. */
  public static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /** The top-level column called exactly {@code name}. */
  public static Column column(String name) {
    return functions.col(quote(name));
  }

  /** The top-level columns called exactly {@code names}, in order. */
  public static Column[] columns(List<String> names) {
    return names.stream().map(SqlNames::column).toArray(Column[]::new);
  }

  /** The names as a Scala sequence, for Spark's joins on column names ({@code usingColumns}). */
  public static scala.collection.immutable.Seq<String> seq(List<String> names) {
    return scala.jdk.javaapi.CollectionConverters.asScala(names).toSeq();
  }
}
