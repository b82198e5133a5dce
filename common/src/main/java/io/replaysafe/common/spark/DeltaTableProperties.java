package io.replaysafe.common.spark;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The table properties of a Delta table at a path, read from its metadata alone. {@code
 * DeltaTable.detail()} would also do, but it reports the table's size and file count, which Delta
 * computes by reconstructing the table's whole state: a Spark job, and on a small run's fixed path
 * (silver reads bronze's change-feed property on every run) about half a second.
 */
public final class DeltaTableProperties {
  private DeltaTableProperties() {}

  /** The SQL name of the Delta table at {@code path}: {@code delta.`path`}, backticks escaped. */
  public static String tableName(String path) {
    return "delta." + SqlNames.quote(path);
  }

  /** Every table property of the Delta table at {@code path}, in the order Delta lists them. */
  public static Map<String, String> read(SparkSession spark, String path) {
    Map<String, String> properties = new LinkedHashMap<>();
    for (Row r : spark.sql("SHOW TBLPROPERTIES " + tableName(path)).collectAsList()) {
      properties.put(r.getString(0), r.getString(1));
    }
    return properties;
  }

  /** The property {@code name} of the Delta table at {@code path}; null when it is not set. */
  public static String get(SparkSession spark, String path, String name) {
    return read(spark, path).get(name);
  }
}
