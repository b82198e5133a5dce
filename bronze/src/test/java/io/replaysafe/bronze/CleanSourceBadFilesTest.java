package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code cleanSource} and bad files: a file bronze recorded as bad stays in the source path until
 * it is ingested by a retry (then it is cleaned like any other) or dismissed (then it stays, for
 * whoever dismissed it). Good files of the same batch are cleaned as before.
 *
 * <table>
 *   <tr><th>file</th><th>first run</th><th>after retry / dismiss</th></tr>
 *   <tr><td>a-good.json</td><td>cleaned</td><td>cleaned</td></tr>
 *   <tr><td>b-truncated.json.gz (bad, open)</td><td>stays</td><td>retried: cleaned</td></tr>
 *   <tr><td>c-long.json (line over the limit, open)</td><td>stays</td><td>dismissed: stays</td></tr>
 * </table>
 */
class CleanSourceBadFilesTest extends SparkTestBase {
  @TempDir Path dir;

  private PipelineConfig config(String mode) {
    String options =
        mode.equals("delete")
            ? "{cleanSource: delete}"
            : "{cleanSource: archive, sourceArchiveDir: '" + dir.resolve("archive") + "'}";
    return ConfigLoader.parse(
        "test",
        "name: clean\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \"id INT, s STRING\"\n  maxLineBytes: 1k\n  options: "
            + options
            + "\nbronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("checkpoint")
            + "\n");
  }

  private Path landed(String name) {
    return dir.resolve("landing").resolve(name);
  }

  /** Where {@code archive} moves a file: under the archive directory, keeping its whole path. */
  private Path archived(String name) {
    return Path.of(dir.resolve("archive") + landed(name).toString());
  }

  private void land(String name, byte[] content) throws IOException {
    Files.createDirectories(landed(name).getParent());
    Files.write(landed(name), content);
  }

  private long bronzeRows() {
    return spark.read().format("delta").load(dir.resolve("bronze").toString()).count();
  }

  @ParameterizedTest
  @ValueSource(strings = {"delete", "archive"})
  void aBadFileStaysInTheSourcePathUntilItIsIngestedOrDismissed(String mode) throws IOException {
    PipelineConfig config = config(mode);
    StringBuilder many = new StringBuilder();
    for (int i = 100; i < 1100; i++) {
      many.append("{\"id\":").append(i).append("}\n");
    }
    byte[] whole = BronzeInputTest.gzip(many.toString());
    land("a-good.json", "{\"id\":1}\n".getBytes(StandardCharsets.UTF_8));
    land("b-truncated.json.gz", Arrays.copyOf(whole, whole.length / 2));
    land("c-long.json", (BronzeInputTest.lineOf(2, 1025) + "\n").getBytes(StandardCharsets.UTF_8));

    BronzeResult first = BronzeIngest.from(config, spark).execute();

    assertThat(first.unreadableFiles()).hasSize(2);
    assertThat(landed("a-good.json")).doesNotExist();
    assertThat(landed("b-truncated.json.gz")).exists();
    assertThat(landed("c-long.json")).exists();
    if (mode.equals("archive")) {
      assertThat(archived("a-good.json")).hasContent("{\"id\":1}");
      assertThat(archived("b-truncated.json.gz")).doesNotExist();
      assertThat(archived("c-long.json")).doesNotExist();
    }

    // A run with nothing new leaves them where they are too.
    BronzeIngest.from(config, spark).execute();
    assertThat(landed("b-truncated.json.gz")).exists();
    assertThat(landed("c-long.json")).exists();

    // Re-delivered whole and retried, the gzip is ingested, then cleaned; the dismissed file stays.
    land("b-truncated.json.gz", whole);
    BadFiles badFiles = new BadFiles(config, spark);
    badFiles.decide(
        List.of(landed("b-truncated.json.gz").toUri().toString()), "retry", "ann", "re-sent");
    badFiles.decide(List.of(landed("c-long.json").toUri().toString()), "dismiss", "bob", "junk");
    long before = bronzeRows();

    BronzeResult retry = BronzeIngest.from(config, spark).execute();

    assertThat(retry.retriedFiles()).isEqualTo(1);
    assertThat(bronzeRows() - before).isEqualTo(1000);
    assertThat(landed("b-truncated.json.gz")).doesNotExist();
    assertThat(landed("c-long.json")).exists();
    if (mode.equals("archive")) {
      assertThat(archived("b-truncated.json.gz")).hasBinaryContent(whole);
      assertThat(archived("c-long.json")).doesNotExist();
    }
    // replaysafe files shows each file's status and what cleanSource did with it.
    String done = mode.equals("delete") ? "deleted" : "archived";
    assertThat(
            rows(
                FileStateView.files(spark, config, FileStateView.Filter.ALL)
                    .orElseThrow()
                    .selectExpr("regexp_extract(path, '[^/]+$', 0)", "status", "cleaned")
                    .orderBy("path")))
        .containsExactly(
            "a-good.json|ingested|" + done,
            "b-truncated.json.gz|retried|" + done,
            "c-long.json|dismissed|null");
  }
}
