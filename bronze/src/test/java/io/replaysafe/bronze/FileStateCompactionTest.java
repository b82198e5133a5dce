package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.delta.actions.AddFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mark's compaction tiers ({@link FileStateCommits.Tiers}): a run with one new file rewrites
 * the file state's fresh files, not the files grown past them, so its cost follows the new rows and
 * not the files ever ingested; a tier that fills up is merged into one file; no row is lost,
 * doubled or left unmarked on the way. Small tiers (4 KiB fresh, 3 files per tier) stand in for the
 * default 64 KiB and 16.
 */
class FileStateCompactionTest extends SparkTestBase {
  @TempDir Path dir;

  private static final FileStateCommits.Tiers TIERS = new FileStateCommits.Tiers(4_096, 3);

  private static final FileDiscovery LISTING = ListingOnly.INSTANCE;

  private FileState state;
  private int landed;

  /** Plans {@code count} new files as batch {@code batch} and marks it, as a run does. */
  private void run(long batch, int count) {
    List<FileState.Discovered> files = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      files.add(
          new FileState.Discovered(
              String.format("file:/landing/day=%03d/part-%08d.json", batch, landed++),
              100 + i,
              1_000_000L + i,
              null));
    }
    state.plan(files, batch, LISTING);
    assertThat(FileStateCommits.markCommitted(spark, state.path(), batch, TIERS)).isTrue();
  }

  /** The table's data files: path to size. */
  private Map<String, Long> dataFiles() {
    List<AddFile> files =
        DeltaTables.filesFromChecksum(DeltaTables.snapshot(spark, state.path()).orElseThrow())
            .orElseThrow();
    Map<String, Long> sizes = new HashMap<>();
    files.forEach(f -> sizes.put(f.path(), f.size()));
    return sizes;
  }

  private Map<Integer, Long> filesPerTier() {
    return dataFiles().values().stream()
        .collect(Collectors.groupingBy(TIERS::tier, Collectors.counting()));
  }

  private void assertEveryFileIngestedOnce() {
    List<String> rows = FileStateRows.of(spark, dir.resolve("checkpoint"));
    assertThat(rows).hasSize(landed).doesNotHaveDuplicates();
    assertThat(rows).allMatch(r -> r.contains("|ingested|"), "every row marked ingested");
  }

  @Test
  void aRunWithOneNewFileRewritesOnlyTheFreshFiles() {
    state = FileState.of(spark, dir.resolve("checkpoint").toString());
    state.ensure("orders");
    run(0, 3_000);
    Map<String, Long> grown = dataFiles();
    assertThat(grown).hasSize(1);
    assertThat(grown.values().iterator().next())
        .as("3,000 files' rows grow past the fresh bound")
        .isGreaterThanOrEqualTo(TIERS.freshBytes());

    run(1, 1);
    Map<String, Long> afterOne = dataFiles();
    assertThat(afterOne).hasSize(2).containsAllEntriesOf(grown);
    String fresh =
        afterOne.keySet().stream().filter(p -> !grown.containsKey(p)).findFirst().orElseThrow();
    assertThat(afterOne.get(fresh)).isLessThan(TIERS.freshBytes());

    run(2, 1);
    Map<String, Long> afterTwo = dataFiles();
    assertThat(afterTwo)
        .as("the grown file kept, the fresh one rewritten with the new batch into one")
        .hasSize(2)
        .containsAllEntriesOf(grown)
        .doesNotContainKey(fresh);
    assertEveryFileIngestedOnce();
  }

  @Test
  void aTierThatFillsUpIsMergedAndNoRowIsLostOrLeftUnmarked() {
    state = FileState.of(spark, dir.resolve("checkpoint").toString());
    state.ensure("orders");
    int merges = 0;
    int previousFiles = 0;
    for (long batch = 0; batch < 12; batch++) {
      run(batch, batch % 3 == 2 ? 1 : 600);
      Map<Integer, Long> tiers = filesPerTier();
      assertThat(tiers.getOrDefault(0, 0L)).as("fresh files after batch " + batch).isLessThan(2);
      for (Map.Entry<Integer, Long> tier : tiers.entrySet()) {
        assertThat(tier.getValue())
            .as("files in tier " + tier.getKey() + " after batch " + batch)
            .isLessThanOrEqualTo(TIERS.filesPerTier());
      }
      int files = dataFiles().size();
      if (files < previousFiles) {
        merges++;
      }
      previousFiles = files;
      assertEveryFileIngestedOnce();
    }
    assertThat(merges).as("tiers merged over 12 runs").isPositive();
  }

  @Test
  void tiersGrowByTheirFactor() {
    assertThat(TIERS.tier(0)).isZero();
    assertThat(TIERS.tier(4_095)).isZero();
    assertThat(TIERS.tier(4_096)).isEqualTo(1);
    assertThat(TIERS.tier(12_287)).isEqualTo(1);
    assertThat(TIERS.tier(12_288)).isEqualTo(2);
    assertThat(FileStateCommits.Tiers.DEFAULT.tier(Long.MAX_VALUE)).isPositive();
  }
}
