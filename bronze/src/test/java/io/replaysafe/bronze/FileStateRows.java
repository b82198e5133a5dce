package io.replaysafe.bronze;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/** The file state's own rows, as written: not the view, which reads the commit log too. */
final class FileStateRows {
  private FileStateRows() {}

  /** "name|status|batch", by path, of the file state under {@code checkpoint}. */
  static List<String> of(SparkSession spark, Path checkpoint) {
    return SparkTestBase.rowsOf(
        spark
            .read()
            .format("delta")
            .load(FileState.of(spark, checkpoint.toString()).path())
            .selectExpr("regexp_extract(path, '[^/]+$', 0)", "status", "batch_id")
            .orderBy("path"));
  }
}
