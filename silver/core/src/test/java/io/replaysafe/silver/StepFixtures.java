package io.replaysafe.silver;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.types.StructType;

/** Bronze rows as the change feed hands them to silver, for tests that call one step directly. */
final class StepFixtures {
  /** The orders contract's bronze columns as silver reads them. */
  static final String BRONZE =
      "k BIGINT, v BIGINT, status STRING, op STRING, _rescued_data STRING,"
          + " _corrupt_record STRING, source_file STRING, _commit_version BIGINT";

  static final String ORDERS_SCHEMA = "k BIGINT, v BIGINT, status STRING, op STRING";
  static final String ORDERS =
      "keys: [k]\nsequenceBy: [v]\napplyAsDeletes: \"op = 'DELETE'\"\nexceptColumnList: [op]\n";

  private StepFixtures() {}

  /** One bronze row: key, sequence, status, op, file, bronze version (rescued/corrupt null). */
  static Row row(long k, long v, String status, String op, String file, long version) {
    return RowFactory.create(k, v, status, op, null, null, file, version);
  }

  static Dataset<Row> bronze(SparkSession spark, Row... rows) {
    return spark.createDataFrame(Arrays.asList(rows), StructType.fromDDL(BRONZE));
  }

  static Dataset<Row> bronze(SparkSession spark, List<Row> rows) {
    return spark.createDataFrame(rows, StructType.fromDDL(BRONZE));
  }

  /**
   * Runs {@code query}; the sum over its file scans of Spark's metric {@code metric} (such as
   * {@code numFiles}, the files read after Delta's data skipping, or {@code numOutputRows}, the
   * rows the reader returned after skipping pages).
   */
  static long scanMetric(Dataset<Row> query, String metric) {
    query.collectAsList();
    long sum = 0;
    SparkPlan plan = query.queryExecution().executedPlan();
    for (SparkPlan leaf : scala.jdk.javaapi.CollectionConverters.asJava(plan.collectLeaves())) {
      if (leaf instanceof FileSourceScanExec scan) {
        sum += (Long) scan.metrics().apply(metric).value();
      }
    }
    return sum;
  }
}
