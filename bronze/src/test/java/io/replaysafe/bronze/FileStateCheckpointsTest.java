package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file state's log is checkpointed every 100 commits, not Delta's 10: a run commits to it twice
 * (plan and mark), and at 10 every fifth run also rebuilt the table's state for a checkpoint
 * (1.0-1.6 s warm). A table an earlier release created gets the interval at its next mark, and the
 * rows stay exactly what the runs planned and marked.
 */
class FileStateCheckpointsTest extends SparkTestBase {
  @TempDir Path dir;

  private int landed;

  @Test
  void aNewFileStateWritesNoCheckpointInItsFirstHundredCommits() throws IOException {
    FileState state = FileState.of(spark, dir.resolve("checkpoint").toString());
    state.ensure("orders");

    for (long batch = 0; batch < 8; batch++) {
      run(state, batch);
    }

    // The creation and 16 commits: Delta's default would have checkpointed version 10.
    Path log = Path.of(state.path(), "_delta_log");
    assertThat(Files.exists(log.resolve("00000000000000000016.json"))).isTrue();
    assertThat(checkpointFiles(log)).isEmpty();
    assertThat(interval(state)).isEqualTo("100");
    assertEveryFileIngestedOnce();
  }

  @Test
  void aFileStateFromAnEarlierReleaseGetsTheIntervalAtItsNextMark() throws IOException {
    FileState state = FileState.of(spark, dir.resolve("checkpoint").toString());
    // As releases before the interval created it.
    DeltaTable.createIfNotExists(spark)
        .location(state.path())
        .addColumns(FileState.SCHEMA)
        .clusterBy("path")
        .property("delta.autoOptimize.autoCompact", "true")
        .execute();
    assertThat(interval(state)).isNull();
    assertThat(property(state, FileState.PAGE_ROWS)).isNull();

    run(state, 0);

    assertThat(interval(state)).isEqualTo("100");
    assertThat(property(state, FileState.PAGE_ROWS)).isEqualTo("1000");
    for (long batch = 1; batch < 6; batch++) {
      run(state, batch);
    }
    assertThat(checkpointFiles(Path.of(state.path(), "_delta_log"))).isEmpty();
    assertEveryFileIngestedOnce();
  }

  /** Plans two new files as batch {@code batch} and marks it, as a run does. */
  private void run(FileState state, long batch) {
    List<FileState.Discovered> files = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      files.add(
          new FileState.Discovered(
              String.format("file:/landing/part-%05d.json", landed++), 100, 1_000_000L, null));
    }
    state.plan(files, batch, ListingOnly.INSTANCE);
    state.markCommitted(batch);
  }

  private String interval(FileState state) {
    return property(state, FileState.CHECKPOINT_INTERVAL);
  }

  private String property(FileState state, String key) {
    return DeltaTable.forPath(spark, state.path())
        .detail()
        .selectExpr("properties['" + key + "']")
        .first()
        .getString(0);
  }

  private static List<String> checkpointFiles(Path log) throws IOException {
    try (Stream<Path> files = Files.list(log)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.contains("checkpoint"))
          .toList();
    }
  }

  private void assertEveryFileIngestedOnce() {
    List<String> rows = FileStateRows.of(spark, dir.resolve("checkpoint"));
    assertThat(rows).hasSize(landed).doesNotHaveDuplicates();
    assertThat(rows).allMatch(r -> r.contains("|ingested|"), "every row marked ingested");
  }
}
