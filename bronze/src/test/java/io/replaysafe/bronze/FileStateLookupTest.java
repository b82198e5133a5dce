package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file state's lookup of a discovery's candidates ({@link FileState#notPlanned}): a candidate
 * is new unless a batch up to the one asked about holds it, by path or, with {@code fileNameOnly},
 * by name; repeated candidates, paths beyond ASCII and a file recorded in a later batch are each
 * decided as such.
 */
class FileStateLookupTest extends SparkTestBase {
  @TempDir Path dir;

  private static final FileDiscovery LISTING = ListingOnly.INSTANCE;

  private static FileState.Discovered file(String path) {
    return new FileState.Discovered(path, 10, 1_000, null);
  }

  private static List<String> paths(List<FileState.Discovered> files) {
    return files.stream().map(FileState.Discovered::path).toList();
  }

  @Test
  void aCandidateIsNewUnlessABatchUpToTheOneAskedAboutHoldsIt() {
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

  @Test
  void byNameAFileInAnotherDirectoryWithAPlannedNameIsNotNew() {
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

  @Test
  void beforeTheTableExistsEveryCandidateIsNew() {
    FileState state = FileState.of(spark, dir.resolve("checkpoint").toString());
    List<FileState.Discovered> candidates = List.of(file("file:/landing/a.json"));

    assertThat(state.notPlanned(candidates, 0, false)).isEqualTo(candidates);
  }

  @Test
  void candidatesLookedUpAChunkAtATimeAreAnsweredAsOneQuestionAnswersThem() {
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
    String before = System.getProperty(FileState.LOOK_UP_CHUNK_PROPERTY);
    try {
      for (String chunk : List.of("1", "2", "3", "100")) {
        System.setProperty(FileState.LOOK_UP_CHUNK_PROPERTY, chunk);
        FileState.Version version = state.latest();

        assertThat(paths(version.notPlanned(candidates::forEach, 1, false)))
            .as("chunks of " + chunk)
            .containsExactly(x, y, x, z);
        assertThat(paths(version.notPlanned(candidates::forEach, 0, false)))
            .as("chunks of " + chunk + ", after batch 0")
            .containsExactly(x, b, y, x, z);
      }
    } finally {
      if (before == null) {
        System.clearProperty(FileState.LOOK_UP_CHUNK_PROPERTY);
      } else {
        System.setProperty(FileState.LOOK_UP_CHUNK_PROPERTY, before);
      }
    }
    FileState missing = FileState.of(spark, dir.resolve("other").toString());
    assertThat(paths(missing.latest().notPlanned(candidates::forEach, 0, false)))
        .as("before the table exists, every candidate, in order")
        .containsExactlyElementsOf(paths(candidates));
  }
}
