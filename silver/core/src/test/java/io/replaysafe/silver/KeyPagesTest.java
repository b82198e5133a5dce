package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.delete;
import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.common.testing.SystemProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Silver's files are written in small Parquet pages sorted by key ({@link KeyPages}), so a batch's
 * key predicate reads the pages that hold its keys and skips the others; and a MERGE over pages
 * skipped that way (its deletion vectors point at rows by their index in the file) still changes
 * exactly the rows of the batch's keys. Pages of {@value #PAGE_ROWS} rows here, so 2,000 orders
 * fill 20 of them (Parquet checks a page's row count every 100 rows at the soonest, so a smaller
 * limit still cuts pages of 100).
 */
class KeyPagesTest extends SparkTestBase {
  private static final int PAGE_ROWS = 100;
  private static final int ORDERS = 2000;

  @TempDir Path dir;

  @RegisterExtension final SystemProperties properties = new SystemProperties();

  @BeforeEach
  void smallPages() {
    properties.set(KeyPages.ROWS_PROPERTY, String.valueOf(PAGE_ROWS));
  }

  /** One page of a file's key column: its rows and smallest and largest key. */
  private record Page(long rows, long min, long max) {}

  /** The pages of the key column {@code order_id} of each of silver's data files. */
  private List<List<Page>> keyPages(SilverHarness pipeline) {
    List<List<Page>> files = new ArrayList<>();
    for (String file : pipeline.silver().inputFiles()) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(
                  new org.apache.hadoop.fs.Path(URI.create(file)), new Configuration()))) {
        List<Page> pages = new ArrayList<>();
        for (BlockMetaData block : reader.getFooter().getBlocks()) {
          ColumnChunkMetaData key =
              block.getColumns().stream()
                  .filter(c -> c.getPath().toDotString().equals("order_id"))
                  .findFirst()
                  .orElseThrow();
          OffsetIndex offsets = reader.readOffsetIndex(key);
          ColumnIndex index = reader.readColumnIndex(key);
          for (int p = 0; p < offsets.getPageCount(); p++) {
            pages.add(
                new Page(
                    offsets.getLastRowIndex(p, block.getRowCount())
                        - offsets.getFirstRowIndex(p)
                        + 1,
                    longOf(index.getMinValues().get(p)),
                    longOf(index.getMaxValues().get(p))));
          }
        }
        files.add(pages);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return files;
  }

  private static long longOf(ByteBuffer plain) {
    return plain.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong();
  }

  /** The rows the silver scans of {@code query} returned, after the reader skipped pages. */
  private static long rowsScanned(Dataset<Row> query) {
    return StepFixtures.scanMetric(query, "numOutputRows");
  }

  private static List<String> shuffledOrders(int version, String status) {
    List<String> lines = new ArrayList<>();
    for (long id = 1; id <= ORDERS; id++) {
      lines.add(order(id, version, status));
    }
    Collections.shuffle(lines, new Random(7));
    return lines;
  }

  @Test
  void aBatchIsWrittenInSmallPagesInKeyOrder() {
    SilverHarness pipeline = SilverHarness.orders(spark, dir, "");
    pipeline.deliver(shuffledOrders(1, "New").toArray(String[]::new));

    pipeline.run();

    List<List<Page>> files = keyPages(pipeline);
    long rows = 0;
    for (List<Page> pages : files) {
      for (int p = 0; p < pages.size(); p++) {
        rows += pages.get(p).rows();
        assertThat(pages.get(p).rows()).isLessThanOrEqualTo(PAGE_ROWS);
        if (p > 0) {
          // In key order: each page starts after the one before it ends.
          assertThat(pages.get(p).min()).isGreaterThan(pages.get(p - 1).max());
        }
      }
    }
    assertThat(rows).isEqualTo(ORDERS);
    assertThat(files.stream().mapToInt(List::size).sum())
        .isGreaterThanOrEqualTo(ORDERS / PAGE_ROWS);
    // The run leaves the session as it found it: bronze's next files get Parquet's own pages.
    assertThat(spark.conf().getOption(KeyPages.PAGE_ROWS).isDefined()).isFalse();
  }

  @Test
  void aFewKeysReadTheirPagesOnly() {
    SilverHarness pipeline = SilverHarness.orders(spark, dir, "");
    pipeline.deliver(shuffledOrders(1, "New").toArray(String[]::new));
    pipeline.run();
    List<Long> keys = List.of(7L, 1234L);
    Dataset<Row> stored = pipeline.silver();

    Dataset<Row> read =
        stored.where(
            StoredState.KeyBounds.anyOf(stored.col("order_id"), new ArrayList<Object>(keys)));

    assertThat(rows(read.select("order_id", "status").orderBy("order_id")))
        .containsExactly("7|New", "1234|New");
    // At most one page per key in each file (a key sits in one file), not the 2,000 rows.
    assertThat(rowsScanned(read)).isBetween(2L, 2L * PAGE_ROWS * keyPages(pipeline).size());
  }

  /**
   * Differential: scattered updates, a delete, an older version and a new key, merged into a table
   * whose scans skip pages, leave exactly what the contract says, computed here key by key.
   */
  @Test
  void aMergeOverSkippedPagesChangesExactlyTheBatchsKeys() {
    SilverHarness pipeline = SilverHarness.orders(spark, dir, "");
    pipeline.deliver(shuffledOrders(1, "New").toArray(String[]::new));
    pipeline.run();
    TreeMap<Long, String> expected = new TreeMap<>();
    for (long id = 1; id <= ORDERS; id++) {
      expected.put(id, id + "|1|New");
    }

    pipeline.deliver(
        order(7, 2, "Shipped"),
        order(1999, 3, "Paid"),
        order(1000, 2, "Shipped"),
        order(51, 2, "Shipped"),
        delete(50, 2),
        order(ORDERS + 5, 1, "New"));
    pipeline.run();
    expected.put(7L, "7|2|Shipped");
    expected.put(1999L, "1999|3|Paid");
    expected.put(1000L, "1000|2|Shipped");
    expected.put(51L, "51|2|Shipped");
    expected.remove(50L);
    expected.put(ORDERS + 5L, (ORDERS + 5) + "|1|New");
    assertThat(pipeline.silverRows()).containsExactlyElementsOf(expected.values());

    // An older version of a changed key, and the deleted key's older insert: both ignored.
    pipeline.deliver(order(7, 1, "Late"), order(50, 1, "Back"), order(1500, 4, "Paid"));
    pipeline.run();
    expected.put(1500L, "1500|4|Paid");
    assertThat(pipeline.silverRows()).containsExactlyElementsOf(expected.values());
  }
}
