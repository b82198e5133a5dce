package io.replaysafe.common.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.delta.DeltaLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeltaTables answers from the transaction log: "known empty" only when the latest version's
 * checksum says the table holds no file, never when the checksum is missing.
 */
class DeltaTablesTest extends SparkTestBase {
  @TempDir Path dir;

  private String table() {
    String path = dir.resolve("t").toString();
    DeltaTable.createIfNotExists(spark).location(path).addColumn("id", "BIGINT").execute();
    return path;
  }

  private void append(String path, Long... ids) {
    spark
        .createDataset(List.of(ids), Encoders.LONG())
        .toDF("id")
        .write()
        .format("delta")
        .mode("append")
        .save(path);
  }

  @Test
  void aNewTableIsKnownEmptyAndATableWithRowsIsNot() {
    String path = table();
    assertThat(DeltaTables.knownEmpty(spark, path)).isTrue();
    append(path, 1L, 2L);
    assertThat(DeltaTables.knownEmpty(spark, path)).isFalse();
    assertThat(DeltaTables.latestVersion(spark, path)).isEqualTo(1);
  }

  @Test
  void aTableWhoseRowsWereAllDeletedIsKnownEmptyAgain() {
    String path = table();
    append(path, 1L);
    spark.sql("DELETE FROM " + DeltaTables.tableName(path) + " WHERE id = 1");
    assertThat(DeltaTables.knownEmpty(spark, path)).isTrue();
  }

  @Test
  void withoutTheLatestChecksumNothingIsKnown() throws IOException {
    String path = table();
    // Written by an engine that keeps no checksum (or a writer that died before writing it).
    spark.conf().set("spark.databricks.delta.writeChecksumFile.enabled", "false");
    try {
      append(path, 1L);
      spark.sql("DELETE FROM " + DeltaTables.tableName(path) + " WHERE id = 1");
    } finally {
      spark.conf().unset("spark.databricks.delta.writeChecksumFile.enabled");
    }
    assertThat(Files.exists(dir.resolve("t/_delta_log/00000000000000000002.crc"))).isFalse();
    // As a later run's JVM sees it: from the log on disk, not from this JVM's last commit.
    DeltaLog.clearCache();
    assertThat(DeltaTables.knownEmpty(spark, path))
        .as("empty, but no checksum says so: the caller must read the table")
        .isFalse();
  }
}
