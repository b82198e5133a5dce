package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.common.testing.SystemProperties;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listing bigger than one lookup chunk (issue 26): the file state is asked about the listed files
 * a chunk at a time ({@link FileState.Version#notPlanned(java.util.function.Consumer, long,
 * boolean)}), here three files a chunk, so that a handful of files crosses several chunks. Every
 * file is ingested exactly once, a file that arrives late with an old modification time is still
 * found, {@code pathGlobFilter} and the names Spark skips still decide, and {@code
 * maxFilesPerTrigger} still takes the new files oldest first across chunks. The local listing,
 * which now reads each directory as a stream, names files exactly as Hadoop's listing does.
 */
class ListingChunksTest extends SparkTestBase {
  @TempDir Path dir;
  @RegisterExtension final SystemProperties properties = new SystemProperties();

  @BeforeEach
  void smallChunks() {
    properties.set(FileState.LOOK_UP_CHUNK_PROPERTY, "3");
  }

  private PipelineConfig config(String options) {
    return ConfigLoader.parse(
        "test",
        "name: orders\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \"order_id BIGINT, status STRING\"\n"
            + options
            + "bronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("checkpoint")
            + "\n");
  }

  private void land(String relative, int orderId, long modifiedMs) throws IOException {
    Path file = dir.resolve("landing").resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, "{\"order_id\":" + orderId + ",\"status\":\"Created\"}\n");
    Files.setLastModifiedTime(file, FileTime.fromMillis(modifiedMs));
  }

  /** Bronze's rows: each order with the name of the file it came from, by order. */
  private List<String> bronzeRows() {
    return rows(
        spark
            .read()
            .format("delta")
            .load(dir.resolve("bronze").toString())
            .selectExpr("regexp_extract(source_file_name, '[^/]+$', 0)", "order_id")
            .orderBy("order_id"));
  }

  /** The file state: each file's name and batch, by batch then name. */
  private List<String> fileState(PipelineConfig config) {
    return rows(
        FileStateView.files(spark, config, FileStateView.Filter.ALL)
            .orElseThrow()
            .selectExpr("regexp_extract(path, '[^/]+$', 0) AS name", "status", "batch_id")
            .orderBy("batch_id", "name"));
  }

  @Test
  void everyListedFileIsIngestedOnceAcrossChunksAndALateOldFileIsFound() throws IOException {
    PipelineConfig config = config("  options: {pathGlobFilter: \"*.json\"}\n");
    long t = 1_700_000_000_000L;
    // Eight data files over three directories (three chunks), a file the glob leaves out, and
    // names Spark skips: none of those is a candidate, so none counts towards a chunk.
    land("a1.json", 1, t);
    land("a2.json", 2, t + 1_000);
    land("day=1/b1.json", 3, t + 2_000);
    land("day=1/b2.json", 4, t + 3_000);
    land("day=1/b 3.json", 5, t + 4_000);
    land("day=2/c1.json", 6, t + 5_000);
    land("day=2/c2.json", 7, t + 6_000);
    land("day=2/deep/c3.json", 8, t + 7_000);
    land("day=2/notes.txt", 99, t);
    land("_hidden/x.json", 98, t);
    land(".tmp.json", 97, t);

    BronzeResult first = BronzeIngest.from(config, spark).execute();

    assertThat(first).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(8L, 8L);
    assertThat(bronzeRows())
        .containsExactly(
            "a1.json|1",
            "a2.json|2",
            "b1.json|3",
            "b2.json|4",
            "b%203.json|5",
            "c1.json|6",
            "c2.json|7",
            "c3.json|8");

    BronzeResult idle = BronzeIngest.from(config, spark).execute();
    assertThat(idle).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(0L, 0L);

    // Two late files, one with a modification time older than every file ingested: a listing
    // finds it as it finds any file not in the file state.
    land("day=0/late.json", 9, t - 86_400_000L);
    land("day=3/d1.json", 10, t + 8_000);

    BronzeResult late = BronzeIngest.from(config, spark).execute();

    assertThat(late).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(2L, 2L);
    assertThat(bronzeRows()).hasSize(10).contains("late.json|9", "d1.json|10");
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(dir.resolve("bronze").toString())
                    .groupBy("source_file_name")
                    .count()
                    .where("count <> 1")))
        .as("files ingested more than once")
        .isEmpty();
  }

  @Test
  void maxFilesPerTriggerTakesTheOldestFirstAcrossChunks() throws IOException {
    PipelineConfig config = config("  options: {maxFilesPerTrigger: 2}\n");
    long t = 1_700_000_000_000L;
    // Names and modification times in different orders, spread so each chunk holds files of
    // several batches: the batches follow the modification time, then the path, of all of them.
    land("e.json", 1, t + 4_000);
    land("a.json", 2, t + 2_000);
    land("sub/d.json", 3, t);
    land("b.json", 4, t + 5_000);
    land("sub/c.json", 5, t + 1_000);
    land("f.json", 6, t + 3_000);
    land("g.json", 7, t + 3_000);

    BronzeResult r = BronzeIngest.from(config, spark).execute();

    assertThat(r)
        .extracting(BronzeResult::batches, BronzeResult::files, BronzeResult::rows)
        .containsExactly(4L, 7L, 7L);
    assertThat(fileState(config))
        .containsExactly(
            "c.json|ingested|0",
            "d.json|ingested|0",
            "a.json|ingested|1",
            "f.json|ingested|1",
            "e.json|ingested|2",
            "g.json|ingested|2",
            "b.json|ingested|3");
  }

  /**
   * Plain names are named without Hadoop's {@link org.apache.hadoop.fs.Path} after a directory's
   * first ({@link ListingDiscovery#plain}): every name, plain or not, at any depth and under a root
   * written any way, must be named exactly as Hadoop's listing names it, with its size and time.
   */
  @Test
  void theLocalListingNamesFilesAsHadoopsListingDoes() throws IOException {
    long t = 1_700_000_000_000L;
    List<String> names =
        List.of(
            "plain.json",
            "a b.json",
            "c:d.json",
            "pct%41.json",
            "h#1.json",
            "\u00e9t\u00e9.json",
            "part-00001.json",
            "x=1.json",
            "UPPER_lower-09.JSON",
            "q?.json",
            "plus+sign.json",
            "tilde~.json");
    List<String> dirs = List.of("x", "date=2026-12-06/hour=07", "odd dir/inner", "d\u00e9j\u00e0");
    int i = 0;
    for (String d : dirs) {
      for (String name : names) {
        land(d + "/" + name, i, t + 7 * i + 3);
        i++;
      }
    }
    Path linked = dir.resolve("elsewhere.json");
    Files.writeString(linked, "{}\n");
    Files.createSymbolicLink(dir.resolve("landing/x/link.json"), linked);
    Files.createSymbolicLink(dir.resolve("landing/x/dangling.json"), dir.resolve("gone.json"));
    Files.setLastModifiedTime(dir.resolve("landing/x/plain.json"), FileTime.fromMillis(t + 999));

    org.apache.hadoop.fs.Path root =
        new org.apache.hadoop.fs.Path(dir.resolve("landing").toString());
    FileSystem fs = root.getFileSystem(spark.sparkContext().hadoopConfiguration());
    List<String> hadoop = new ArrayList<>();
    hadoopListing(fs, root, hadoop);
    assertThat(hadoop).hasSize(dirs.size() * names.size() + 1);

    for (String written :
        List.of(
            dir.resolve("landing").toString(),
            dir.resolve("landing") + "/",
            dir.resolve("landing").toUri().toString(),
            "file://" + dir.resolve("landing"))) {
      List<String> listed =
          ListingDiscovery.list(
                  spark.sparkContext().hadoopConfiguration(),
                  new org.apache.hadoop.fs.Path(written),
                  null)
              .stream()
              .map(f -> f.path() + "|" + f.size() + "|" + f.modifiedMs())
              .toList();
      assertThat(listed).as(written).containsExactlyInAnyOrderElementsOf(hadoop);
      assertThat(Arrays.asList(listed.toArray())).allMatch(p -> ((String) p).startsWith("file:/"));
    }
  }

  /** The names Spark skips decide below the root only, at any depth, read from the path alone. */
  @Test
  void aFileCountsUnlessANameBelowTheRootIsOneSparkSkips() {
    int root = new org.apache.hadoop.fs.Path("s3a://b/_landing/in").depth();
    assertThat(ListingDiscovery.counts("/_landing/in/f.json", root)).isTrue();
    assertThat(ListingDiscovery.counts("/_landing/in/date=2026-12-06/f.json", root)).isTrue();
    assertThat(ListingDiscovery.counts("/_landing/in/_date=1/f.json", root)).isTrue();
    assertThat(ListingDiscovery.counts("/_landing/in/_temporary/0/f.json", root)).isFalse();
    assertThat(ListingDiscovery.counts("/_landing/in/a/.hidden/f.json", root)).isFalse();
    assertThat(ListingDiscovery.counts("/_landing/in/a/.f.json", root)).isFalse();
    assertThat(ListingDiscovery.counts("/_landing/in/f.json._COPYING_", root)).isFalse();
    assertThat(ListingDiscovery.counts("/_landing/in/_SUCCESS", root)).isFalse();
    assertThat(ListingDiscovery.counts("/_landing/in/_metadata", root)).isTrue();
  }

  /** Hadoop's own listing, directory by directory, each file as {@code path|size|time}. */
  private static void hadoopListing(FileSystem fs, org.apache.hadoop.fs.Path at, List<String> into)
      throws IOException {
    for (FileStatus f : fs.listStatus(at)) {
      if (f.isDirectory()) {
        hadoopListing(fs, f.getPath(), into);
      } else {
        into.add(f.getPath().toUri() + "|" + f.getLen() + "|" + f.getModificationTime());
      }
    }
  }
}
