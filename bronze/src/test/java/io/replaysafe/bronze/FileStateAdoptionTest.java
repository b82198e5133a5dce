package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first run after the upgrade adopts a checkpoint written by the release before the file state
 * (src/test/resources/adoption-fixture, see its README.txt): nothing is ingested twice, nothing is
 * skipped, the batch planned but not committed is replayed with its own file, and the batch's
 * transaction, which that release's Delta sink recorded and {@link BronzeAppend} reads, keeps it
 * from being appended twice.
 */
class FileStateAdoptionTest extends SparkTestBase {
  @TempDir Path dir;

  private void copyFixture() throws IOException {
    Path fixture = Path.of("src/test/resources/adoption-fixture");
    try (Stream<Path> files = Files.walk(fixture)) {
      for (Path from : files.toList()) {
        Path to = dir.resolve(fixture.relativize(from).toString());
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else {
          Files.copy(from, to);
        }
      }
    }
    try (Stream<Path> files = Files.walk(dir.resolve("checkpoint"))) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        Files.writeString(f, Files.readString(f).replace("@ROOT@", dir.toString()));
      }
    }
  }

  private PipelineConfig config() {
    return ConfigLoader.parse(
        "test",
        "name: orders\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \"order_id BIGINT, source_version BIGINT, status STRING\"\n"
            + "bronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("checkpoint")
            + "\n");
  }

  @Test
  void adoptsTheFileLogOfTheReleaseBefore() throws IOException {
    copyFixture();
    Files.writeString(
        dir.resolve("landing/d.json"),
        "{\"order_id\":4,\"source_version\":1,\"status\":\"New\"}\n");

    BronzeResult upgraded = BronzeIngest.from(config(), spark).execute();

    assertThat(upgraded)
        .extracting(BronzeResult::files, BronzeResult::rows)
        .containsExactly(1L, 1L);
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(dir.resolve("bronze").toString())
                    .selectExpr("source_file_name", "order_id")
                    .orderBy("order_id")))
        .containsExactly("a.json|1", "b.json|2", "c.json|3", "d.json|4");
    assertThat(
            rows(
                FileStateView.files(spark, config(), FileStateView.Filter.ALL)
                    .orElseThrow()
                    .selectExpr(
                        "regexp_extract(path, '[^/]+$', 0)", "status", "discovered_by", "batch_id")
                    .orderBy("path")))
        .containsExactly(
            "a.json|ingested|adopted|0",
            "b.json|ingested|adopted|1",
            "c.json|ingested|adopted|2",
            "d.json|ingested|listing|3");

    // Adopted once: the next run reads the file state only, and finds nothing new.
    BronzeResult again = BronzeIngest.from(config(), spark).execute();
    assertThat(again)
        .extracting(BronzeResult::files, BronzeResult::bronzeVersion)
        .containsExactly(0L, upgraded.bronzeVersion());
    assertThat(List.of(dir.resolve("checkpoint/file_state/_delta_log").toFile().list()))
        .isNotEmpty();
  }
}
