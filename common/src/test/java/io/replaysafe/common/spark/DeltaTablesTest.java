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
    return table("t");
  }

  private String table(String name) {
    String path = dir.resolve(name).toString();
    DeltaTable.createIfNotExists(spark).location(path).addColumn("id", "BIGINT").execute();
    return path;
  }

  /** readSmall's rows as a later run's JVM reads them, sorted, beside Delta's own read. */
  private void readSmallMatchesDelta(String path, Long... expected) {
    DeltaLog.clearCache();
    List<Long> small =
        DeltaTables.readSmall(spark, path)
            .select("id")
            .orderBy("id")
            .as(Encoders.LONG())
            .collectAsList();
    List<Long> delta =
        spark
            .read()
            .format("delta")
            .load(path)
            .select("id")
            .orderBy("id")
            .as(Encoders.LONG())
            .collectAsList();
    assertThat(delta).containsExactly(expected);
    assertThat(small).isEqualTo(delta);
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

  @Test
  void aSmallTableIsReadFromTheFilesItsChecksumListsAndGivesDeltasRows() {
    // A space and a percent sign: the checksum lists paths URL-encoded.
    String path = table("small table 100%");
    readSmallMatchesDelta(path);
    append(path, 3L);
    append(path, 1L, 2L);
    readSmallMatchesDelta(path, 1L, 2L, 3L);
    assertThat(DeltaTables.listedPlainFiles(spark, path))
        .as("read from the listed files")
        .isNotEmpty();
    // An overwrite removes files: only the live ones are listed.
    spark
        .createDataset(List.of(7L), Encoders.LONG())
        .toDF("id")
        .write()
        .format("delta")
        .mode("overwrite")
        .save(path);
    readSmallMatchesDelta(path, 7L);
    assertThat(DeltaTables.listedPlainFiles(spark, path)).isNotEmpty();
  }

  @Test
  void readSmallIfExistsIsEmptyWithoutATableAndGivesDeltasRowsWithOne() {
    String missing = dir.resolve("missing").toString();
    assertThat(DeltaTables.readSmallIfExists(spark, missing)).isEmpty();

    String path = table();
    append(path, 5L, 6L);
    DeltaLog.clearCache();
    assertThat(
            DeltaTables.readSmallIfExists(spark, path)
                .orElseThrow()
                .select("id")
                .orderBy("id")
                .as(Encoders.LONG())
                .collectAsList())
        .containsExactly(5L, 6L);
  }

  @Test
  void aDeletionVectorMakesItDeltasOwnRead() {
    String path = table();
    spark.sql(
        "ALTER TABLE "
            + DeltaTables.tableName(path)
            + " SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
    append(path, 1L, 2L, 3L);
    spark.sql("DELETE FROM " + DeltaTables.tableName(path) + " WHERE id = 2");
    DeltaLog.clearCache();
    assertThat(DeltaTables.listedPlainFiles(spark, path))
        .as("a file with a deletion vector")
        .isNull();
    readSmallMatchesDelta(path, 1L, 3L);
  }

  @Test
  void withoutTheChecksumOrWithPartitionsItIsDeltasOwnRead() {
    String path = table();
    spark.conf().set("spark.databricks.delta.writeChecksumFile.enabled", "false");
    try {
      append(path, 1L);
    } finally {
      spark.conf().unset("spark.databricks.delta.writeChecksumFile.enabled");
    }
    DeltaLog.clearCache();
    assertThat(DeltaTables.listedPlainFiles(spark, path)).isNull();
    readSmallMatchesDelta(path, 1L);

    String partitioned = dir.resolve("p").toString();
    spark
        .createDataset(List.of(4L, 5L), Encoders.LONG())
        .toDF("id")
        .withColumn("part", org.apache.spark.sql.functions.col("id").mod(2))
        .write()
        .format("delta")
        .partitionBy("part")
        .save(partitioned);
    DeltaLog.clearCache();
    assertThat(DeltaTables.listedPlainFiles(spark, partitioned)).isNull();
    readSmallMatchesDelta(partitioned, 4L, 5L);
  }
}
