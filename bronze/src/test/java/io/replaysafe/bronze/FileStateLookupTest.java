package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.common.testing.SystemProperties;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The file state's lookup of a discovery's candidates ({@link FileState#notPlanned}): a candidate
 * is new unless a batch up to the one asked about holds it, by path or, with {@code fileNameOnly},
 * by name; repeated candidates, paths beyond ASCII and a file recorded in a later batch are each
 * decided as such. Every case is answered twice, by the two ways a lookup reads the table: on the
 * driver ({@link SmallFileStateLookup}, a small table) and by Spark (a larger one).
 */
class FileStateLookupTest extends SparkTestBase {
  @TempDir Path dir;

  /** How the table is read: on the driver up to its default size, or always by Spark. */
  enum Reader {
    DRIVER(Long.toString(SmallFileStateLookup.MAX_BYTES_DEFAULT)),
    SPARK("0");

    final String maxBytes;

    Reader(String maxBytes) {
      this.maxBytes = maxBytes;
    }
  }

  @RegisterExtension final SystemProperties properties = new SystemProperties();

  private void readBy(Reader reader) {
    properties.set(SmallFileStateLookup.MAX_BYTES_PROPERTY, reader.maxBytes);
  }

  private static final FileDiscovery LISTING = ListingOnly.INSTANCE;

  private static FileState.Discovered file(String path) {
    return new FileState.Discovered(path, 10, 1_000, null);
  }

  private static List<String> paths(List<FileState.Discovered> files) {
    return files.stream().map(FileState.Discovered::path).toList();
  }

  @ParameterizedTest
  @EnumSource(Reader.class)
  void aCandidateIsNewUnlessABatchUpToTheOneAskedAboutHoldsIt(Reader reader) {
    readBy(reader);
    FileState state = FileState.of(spark, dir.resolve("checkpoint").toString());
    state.ensure("orders");
    // Paths beyond ASCII too: Spark orders strings by their UTF-8 bytes, Java by UTF-16 units.
    String a = "file:/landing/a.json";
    String b = "file:/landing/sub/b.json";
    String c = "file:/landing/\uD83D\uDE00.json";
    String d = "file:/landing/\uFF21.json";
    state.plan(List.of(file(a), file(c)), 0, LISTING);
    state.plan(List.of(file(b), file(d)), 1, LISTING);
    String fresh = "file:/landing/new.json";
    List<FileState.Discovered> candidates =
        List.of(file(fresh), file(a), file(b), file(c), file(d), file(fresh), file(a));

    assertThat(paths(state.notPlanned(candidates, 1, false))).containsExactly(fresh, fresh);
    assertThat(paths(state.notPlanned(candidates, 0, false)))
        .as("the files of batch 1, written before a stop, are not planned after batch 0")
        .containsExactly(fresh, b, d, fresh);
    assertThat(paths(state.notPlanned(List.of(file(fresh)), 1, false))).containsExactly(fresh);
    assertThat(state.notPlanned(List.of(file(d), file(c)), 1, false))
        .as("two planned files whose order differs between UTF-16 and UTF-8")
        .isEmpty();
    assertThat(state.notPlanned(List.of(), 1, false)).isEmpty();
  }

  /**
   * The driver's lookup filters the file state's rows by path ({@code SmallFileStateLookup}):
   * Parquet skips the pages of {@code path} that cannot hold a candidate. Over a state of several
   * pages (Parquet ends a page at 20,000 rows), candidates drawn from the first, middle and last
   * page, between two stored paths, before the first and after the last, must get the answer
   * Spark's lookup gives, on both sides of a batch.
   */
  @Test
  void aLookupAcrossManyPagesGivesSparksAnswer() {
    FileState state = FileState.of(spark, dir.resolve("checkpoint").toString());
    state.ensure("orders");
    int rows = 45_000;
    List<FileState.Discovered> planned = new java.util.ArrayList<>();
    for (int i = 0; i < rows; i++) {
      planned.add(file(String.format("file:/landing/f%06d.json", 2 * i)));
    }
    state.plan(planned.subList(0, rows / 2), 0, LISTING);
    state.plan(planned.subList(rows / 2, rows), 1, LISTING);
    List<FileState.Discovered> candidates = new java.util.ArrayList<>();
    for (int i : new int[] {0, 1, 2, 19_999, 20_000, 20_001, 22_499, 22_500, 44_998, 44_999}) {
      candidates.add(planned.get(i));
      candidates.add(file(String.format("file:/landing/f%06d.json", 2 * i + 1))); // between two
    }
    candidates.add(file("file:/landing/a.json")); // before the first stored path
    candidates.add(file("file:/landing/z.json")); // after the last
    candidates.add(file("file:/landing/f000000.json.gz")); // a stored path's prefix

    Map<Reader, List<List<String>>> answers = new java.util.EnumMap<>(Reader.class);
    for (Reader reader : Reader.values()) {
      readBy(reader);
      FileState.Version version = state.latest();
      answers.put(
          reader,
          List.of(
              paths(version.notPlanned(candidates::forEach, 1, false)),
              paths(version.notPlanned(candidates::forEach, 0, false))));
    }

    assertThat(answers.get(Reader.DRIVER)).isEqualTo(answers.get(Reader.SPARK));
    List<String> notHeld =
        candidates.stream()
            .map(FileState.Discovered::path)
            .filter(p -> !paths(planned).contains(p))
            .toList();
    assertThat(answers.get(Reader.DRIVER).get(0)).containsExactlyElementsOf(notHeld);
    assertThat(answers.get(Reader.DRIVER).get(1))
        .as("after batch 0, the files of batch 1 too")
        .hasSize(notHeld.size() + 3);
  }

  @ParameterizedTest
  @EnumSource(Reader.class)
  void byNameAFileInAnotherDirectoryWithAPlannedNameIsNotNew(Reader reader) {
    readBy(reader);
    FileState state = FileState.of(spark, dir.resolve("checkpoint").toString());
    state.ensure("orders");
    state.plan(List.of(file("file:/landing/day=1/a.json")), 0, LISTING);
    List<FileState.Discovered> candidates =
        List.of(
            file("file:/landing/day=2/a.json"),
            file("file:/landing/day=2/b.json"),
            file("file:/landing/day=3/a.json"));

    assertThat(paths(state.notPlanned(candidates, 0, true)))
        .containsExactly("file:/landing/day=2/b.json");
    assertThat(paths(state.notPlanned(candidates, 0, false)))
        .containsExactlyElementsOf(paths(candidates));
  }

  @ParameterizedTest
  @EnumSource(Reader.class)
  void beforeTheTableExistsEveryCandidateIsNew(Reader reader) {
    readBy(reader);
    FileState state = FileState.of(spark, dir.resolve("checkpoint").toString());
    List<FileState.Discovered> candidates = List.of(file("file:/landing/a.json"));

    assertThat(state.notPlanned(candidates, 0, false)).isEqualTo(candidates);
  }

  @ParameterizedTest
  @EnumSource(Reader.class)
  void candidatesLookedUpAChunkAtATimeAreAnsweredAsOneQuestionAnswersThem(Reader reader) {
    readBy(reader);
    FileState state = FileState.of(spark, dir.resolve("checkpoint").toString());
    state.ensure("orders");
    String a = "file:/landing/a.json";
    String b = "file:/landing/sub/b.json";
    String c = "file:/landing/\uD83D\uDE00.json";
    state.plan(List.of(file(a), file(c)), 0, LISTING);
    state.plan(List.of(file(b)), 1, LISTING);
    String x = "file:/landing/x.json";
    String y = "file:/landing/y.json";
    String z = "file:/landing/z/z.json";
    List<FileState.Discovered> candidates =
        List.of(file(x), file(a), file(b), file(y), file(c), file(x), file(z));
    for (String chunk : List.of("1", "2", "3", "100")) {
      properties.set(FileState.LOOK_UP_CHUNK_PROPERTY, chunk);
      FileState.Version version = state.latest();

      assertThat(paths(version.notPlanned(candidates::forEach, 1, false)))
          .as("chunks of " + chunk)
          .containsExactly(x, y, x, z);
      assertThat(paths(version.notPlanned(candidates::forEach, 0, false)))
          .as("chunks of " + chunk + ", after batch 0")
          .containsExactly(x, b, y, x, z);
    }
    FileState missing = FileState.of(spark, dir.resolve("other").toString());
    assertThat(paths(missing.latest().notPlanned(candidates::forEach, 0, false)))
        .as("before the table exists, every candidate, in order")
        .containsExactlyElementsOf(paths(candidates));
  }

  /**
   * A table its runs planned and marked (rewritten by the marks, ordered by path) and a batch a
   * stopped run planned and never committed: both readers give the same exact answer, and the
   * driver's asks Spark for no job.
   */
  @ParameterizedTest
  @EnumSource(Reader.class)
  void aMarkedTableIsAnsweredTheSameByBothReaders(Reader reader) {
    readBy(reader);
    FileState state = FileState.of(spark, dir.resolve("checkpoint").toString());
    state.ensure("orders");
    List<FileState.Discovered> candidates = new java.util.ArrayList<>();
    List<String> expected = new java.util.ArrayList<>();
    for (int batch = 0; batch < 4; batch++) {
      List<FileState.Discovered> planned = new java.util.ArrayList<>();
      for (int i = 0; i < 50; i++) {
        planned.add(file(String.format("file:/landing/day=%d/part-%03d.json", batch, i)));
      }
      state.plan(planned, batch, LISTING);
      if (batch < 3) {
        state.markCommitted(batch); // batch 3: planned by a run stopped before it committed
      }
      candidates.addAll(planned.subList(0, 10));
    }
    for (int i = 0; i < 5; i++) {
      String fresh = String.format("file:/landing/day=4/new-%03d.json", i);
      candidates.add(file(fresh));
      expected.add(fresh);
    }
    java.util.Collections.shuffle(candidates, new java.util.Random(7));
    List<String> afterBatch2 = new java.util.ArrayList<>(expected);
    candidates.stream()
        .map(FileState.Discovered::path)
        .filter(p -> p.contains("day=3/"))
        .forEach(afterBatch2::add);
    FileState.Version version = state.latest();

    int jobsBefore = spark.sparkContext().dagScheduler().numTotalJobs();
    List<String> asked = paths(version.notPlanned(candidates, 3, false));
    int jobs = spark.sparkContext().dagScheduler().numTotalJobs() - jobsBefore;

    assertThat(asked).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(paths(version.notPlanned(candidates, 2, false)))
        .as("after batch 2: the stopped run's batch 3 is not planned")
        .containsExactlyInAnyOrderElementsOf(afterBatch2);
    assertThat(paths(version.notPlanned(candidates, 3, true)))
        .as("by name")
        .containsExactlyInAnyOrderElementsOf(expected);
    if (reader == Reader.DRIVER) {
      assertThat(jobs).as("Spark jobs for the driver's lookup").isZero();
    } else {
      assertThat(jobs).as("Spark jobs for Spark's lookup").isPositive();
    }
  }
}
