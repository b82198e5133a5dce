package io.replaysafe.silver;

import static io.replaysafe.silver.StepFixtures.ORDERS;
import static io.replaysafe.silver.StepFixtures.ORDERS_SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.lease.LeaseLostException;
import io.replaysafe.common.lease.PausedLeases;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compaction of silver's small files on real Delta tables: more than four files below 16 MiB
 * become one, with exactly the same rows (deleted rows stay deleted), in a commit that changes no
 * data; a file of 16 MiB or more is never rewritten; four small files are left alone; and a process
 * past its lease's deadline rewrites nothing.
 */
class SmallFilesTest extends SparkTestBase {
  @TempDir Path dir;

  SilverContract contract;
  SilverTables tables;

  @BeforeEach
  void silverTables() {
    contract = TestContracts.contract(dir, ORDERS_SCHEMA, ORDERS);
    tables = new SilverTables(spark, contract);
    tables.ensureExist();
  }

  /** One file of {@code count} silver rows from key {@code from}, as a small batch's MERGE adds. */
  private void smallSilverFile(long from, int count) {
    List<Row> rows = new ArrayList<>();
    for (long k = from; k < from + count; k++) {
      rows.add(RowFactory.create(k, 1L, "A", "h" + k, "f", 1L, null, null));
    }
    append(rows, contract.silverSchema(), contract.silver().path());
  }

  private void smallTombstoneFile(long k) {
    append(
        List.of(RowFactory.create(k, 2L, "t" + k, "f", 1L, null, null)),
        contract.tombstoneSchema(),
        contract.tombstonePath());
  }

  private void append(List<Row> rows, StructType schema, String path) {
    spark
        .createDataFrame(rows, schema)
        .coalesce(1)
        .write()
        .format("delta")
        .mode("append")
        .save(path);
  }

  /**
   * One silver file above 16 MiB: 200,000 rows whose status is 256 hexadecimal digits of hashes,
   * which Parquet cannot compress much.
   */
  private void bigSilverFile(long from) {
    Dataset<Row> rows =
        spark
            .range(from, from + 200_000)
            .selectExpr(
                "id",
                "1L",
                "concat(sha2(cast(id as string), 256), sha2(cast(id + 1 as string), 256),"
                    + " sha2(cast(id + 2 as string), 256), sha2(cast(id + 3 as string), 256))",
                "concat('h', id)",
                "'f'",
                "1L",
                "null",
                "null");
    spark
        .createDataFrame(rows.javaRDD(), contract.silverSchema())
        .coalesce(1)
        .write()
        .format("delta")
        .mode("append")
        .save(contract.silver().path());
  }

  private Set<String> files(String path) {
    return Set.of(spark.read().format("delta").load(path).inputFiles());
  }

  private long version(String path) {
    return io.delta.tables.DeltaTable.forPath(spark, path).history(1).first().getLong(0);
  }

  private List<String> silverRows() {
    return rows(
        tables.silver().select("k", "v", "status", SilverContract.PAYLOAD_HASH).orderBy("k"));
  }

  @Test
  void moreThanFourSmallFilesBecomeOneWithExactlyTheSameRowsAndTheBigFileStays() throws Exception {
    String silver = contract.silver().path();
    bigSilverFile(1_000_000);
    for (int f = 0; f < 5; f++) {
      smallSilverFile(f * 10L, 10);
    }
    // A deleted row (a deletion vector on its small file) must stay deleted.
    tables.silverTable().delete("k = 13");
    Set<String> before = files(silver);
    assertThat(before).hasSize(6);
    String big =
        before.stream()
            .filter(f -> sizeOf(f) >= SmallFiles.SMALL_BYTES)
            .findFirst()
            .orElseThrow(
                () ->
                    new AssertionError(
                        "no file of 16 MiB or more: "
                            + before.stream().map(f -> f + " " + sizeOf(f)).toList()));
    List<String> rowsBefore = silverRows();
    assertThat(rowsBefore).hasSize(200_000 + 49);
    long versionBefore = version(silver);

    assertThat(SmallFiles.compactIfMany(spark, silver))
        .contains(new SmallFiles.Compacted(silver, 5, 1));

    Set<String> after = files(silver);
    assertThat(after).hasSize(2).contains(big);
    assertThat(silverRows()).isEqualTo(rowsBefore);
    assertThat(version(silver)).isEqualTo(versionBefore + 1);
    Row commit = tables.silverTable().history(1).first();
    assertThat(commit.getString(commit.fieldIndex("operation"))).isEqualTo("OPTIMIZE");
    assertThat(commit.getString(commit.fieldIndex("userMetadata")))
        .contains("\"action\":\"" + SmallFiles.ACTION + "\"");
    // No data change: a reader of silver's change feed sees no rows in it.
    String json =
        Files.readString(
            Path.of(silver, "_delta_log", String.format("%020d.json", versionBefore + 1)));
    assertThat(json).contains("\"dataChange\":false").doesNotContain("\"dataChange\":true");
  }

  private static long sizeOf(String uri) {
    try {
      return Files.size(Path.of(java.net.URI.create(uri)));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void fourSmallFilesAreLeftAlone() {
    String silver = contract.silver().path();
    for (int f = 0; f < 4; f++) {
      smallSilverFile(f * 10L, 10);
    }
    long versionBefore = version(silver);

    assertThat(SmallFiles.compactIfMany(spark, silver)).isEmpty();

    assertThat(version(silver)).isEqualTo(versionBefore);
    assertThat(files(silver)).hasSize(4);
  }

  @Test
  void silverAndItsTombstonesAreEachCompactedWhenEachHasMoreThanFour() {
    for (int f = 0; f < 5; f++) {
      smallSilverFile(f * 10L, 10);
    }
    for (long k = 100; k < 103; k++) {
      smallTombstoneFile(k);
    }

    assertThat(SmallFiles.compact(spark, contract))
        .containsExactly(new SmallFiles.Compacted(contract.silver().path(), 5, 1));
    assertThat(files(contract.tombstonePath())).hasSize(3);

    smallTombstoneFile(103);
    smallTombstoneFile(104);
    List<String> tombstonesBefore = rows(tables.tombstones().select("k", "v").orderBy("k"));
    assertThat(SmallFiles.compact(spark, contract))
        .containsExactly(new SmallFiles.Compacted(contract.tombstonePath(), 5, 1));
    assertThat(files(contract.tombstonePath())).hasSize(1);
    assertThat(rows(tables.tombstones().select("k", "v").orderBy("k")))
        .isEqualTo(tombstonesBefore)
        .containsExactly("100|2", "101|2", "102|2", "103|2", "104|2");
  }

  @Test
  void aHolderPastItsLeaseDeadlineRewritesNothing() {
    String silver = contract.silver().path();
    for (int f = 0; f < 5; f++) {
      smallSilverFile(f * 10L, 10);
    }
    long versionBefore = version(silver);
    Set<String> before = files(silver);
    PausedLeases leases = new PausedLeases();
    try (PipelineLease lease =
        leases.take(
            dir.resolve("lease").toString(), spark.sparkContext().hadoopConfiguration(), "run")) {
      leases.pauseBeyondDeadline();

      assertThatThrownBy(() -> SmallFiles.compactIfMany(spark, silver))
          .isInstanceOf(LeaseLostException.class);
    }
    assertThat(version(silver)).isEqualTo(versionBefore);
    assertThat(files(silver)).isEqualTo(before);
    assertThat(silverRows()).hasSize(50);
  }
}
