package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch is pending exactly when the checkpoint's newest offsets file has no commit: only then can
 * a run's first batch replay an attempt that died part-way.
 */
class SilverCheckpointTest {
  @TempDir Path dir;

  private boolean pending() {
    return new SilverCheckpoint(dir.toString(), new Configuration()).read().batchPending();
  }

  private void write(String file) throws IOException {
    Path path = dir.resolve(file);
    Files.createDirectories(path.getParent());
    Files.writeString(path, "v1\n");
  }

  @Test
  void noCheckpointYetHasNothingPending() {
    assertThat(pending()).isFalse();
  }

  @Test
  void everyPlannedBatchCommittedHasNothingPending() throws IOException {
    write("offsets/0");
    write("commits/0");
    write("offsets/1");
    write("commits/1");
    assertThat(pending()).isFalse();
  }

  @Test
  void aPlannedBatchWithoutItsCommitIsPending() throws IOException {
    write("offsets/0");
    assertThat(pending()).as("the first batch never committed").isTrue();
    write("commits/0");
    write("offsets/1");
    write("offsets/.1.crc");
    assertThat(pending()).as("batch 1 planned, not committed").isTrue();
  }
}
