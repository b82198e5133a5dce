package io.replaysafe.common.testing;

import io.replaysafe.common.spark.SparkSessions;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;

/**
 * One shared local[2] SparkSession per test JVM, UI off, Delta on. Each test uses its own
 * {@code @TempDir} for tables and checkpoints, so tests never see each other's data.
 */
public abstract class SparkTestBase {
  protected static SparkSession spark;

  @BeforeAll
  static void startSpark() {
    if (spark == null) {
      System.setProperty("replaysafe.sparkLogLevel", "ERROR");
      // Test data is tiny: compiling generated code for every new plan costs more than it saves.
      System.setProperty("spark.sql.codegen.wholeStage", "false");
      System.setProperty("spark.sql.codegen.factoryMode", "NO_CODEGEN");
      // Adaptive execution re-plans after every shuffle stage, and on test data each plan is tiny.
      // Three silver test classes took 314 s with Spark's defaults and 240 s with AQE off, one
      // shuffle partition and Delta stats off (2 cores); AQE off alone was not measured. Jobs and
      // child JVMs keep Spark's default (on); no contract depends on it.
      System.setProperty("spark.sql.adaptive.enabled", "false");
      spark = SparkSessions.getOrCreate("replaysafe-tests");
    }
  }

  /** Rows as "a|b|c" strings (null as "null"), for exact, readable assertions. */
  protected static List<String> rows(Dataset<Row> df) {
    return rowsOf(df);
  }

  /** The same, for helpers outside a test class. */
  public static List<String> rowsOf(Dataset<Row> df) {
    return df.collectAsList().stream().map(SparkTestBase::line).toList();
  }

  protected static String line(Row row) {
    return java.util.stream.IntStream.range(0, row.length())
        .mapToObj(i -> String.valueOf(row.get(i)))
        .collect(Collectors.joining("|"));
  }
}
