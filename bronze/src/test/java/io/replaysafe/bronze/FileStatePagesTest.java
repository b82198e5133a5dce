package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file state's files are written in Parquet pages of at most 1,000 rows, whoever writes them
 * (the driver, or Spark where the driver does not), so that a run's lookup of a range of names
 * builds the rows of a page or two, not of a 20,000-row page.
 */
class FileStatePagesTest extends SparkTestBase {
  private static final int FILES = 2_500;

  @TempDir Path dir;

  @AfterEach
  void driverAgain() {
    System.clearProperty(SmallFileStateLookup.MAX_BYTES_PROPERTY);
  }

  @Test
  void filesWrittenOnTheDriverHavePagesOfAtMostAThousandRows() throws IOException {
    assertThat(pagesAfterOneRun()).containsExactly(1000L, 1000L, 500L);
  }

  @Test
  void filesWrittenBySparkHavePagesOfAtMostAThousandRows() throws IOException {
    System.setProperty(SmallFileStateLookup.MAX_BYTES_PROPERTY, "0");
    assertThat(pagesAfterOneRun()).containsExactly(1000L, 1000L, 500L);
  }

  /** The rows of each page of the {@code path} column, after one run planned and marked FILES. */
  private List<Long> pagesAfterOneRun() throws IOException {
    FileState state = FileState.of(spark, dir.resolve("checkpoint").toString());
    state.ensure("orders");
    List<FileState.Discovered> files = new ArrayList<>();
    for (int i = 0; i < FILES; i++) {
      files.add(
          new FileState.Discovered(
              String.format("file:/landing/part-%05d.json", i), 100, 1_000_000L, null));
    }
    state.plan(files, 0, ListingOnly.INSTANCE);
    state.markCommitted(0);

    assertThat(FileStateRows.of(spark, dir.resolve("checkpoint")))
        .hasSize(FILES)
        .allMatch(r -> r.contains("|ingested|"), "every row marked ingested");
    String[] live = spark.read().format("delta").load(state.path()).inputFiles();
    assertThat(live).hasSize(1);
    return pageRows(live[0]);
  }

  private static List<Long> pageRows(String file) throws IOException {
    List<Long> rows = new ArrayList<>();
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file), new Configuration()))) {
      for (BlockMetaData block : reader.getFooter().getBlocks()) {
        ColumnChunkMetaData path =
            block.getColumns().stream()
                .filter(c -> c.getPath().toDotString().equals("path"))
                .findFirst()
                .orElseThrow();
        OffsetIndex pages = reader.readOffsetIndex(path);
        for (int i = 0; i < pages.getPageCount(); i++) {
          rows.add(pages.getLastRowIndex(i, block.getRowCount()) - pages.getFirstRowIndex(i) + 1);
        }
      }
    }
    return rows;
  }
}
