package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code replaysafe files}: each file's state, filtered, as text and JSON lines; read-only. */
class FilesCommandTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void showsEachFilesStateAndFilters() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing/2026/12"));
    Path file = dir.resolve("p.yaml");
    Files.writeString(
        file,
        "name: files\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \"id INT\"\nbronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("ckpt")
            + "\n");
    CliRunner.Outcome before = CliRunner.run("files", "--config", file.toString());
    assertThat(before.exitCode()).isZero();
    assertThat(before.out())
        .startsWith("no file state in " + dir.resolve("ckpt") + " yet: bronze has not run");

    Files.writeString(landing.resolve("a.json"), "{\"id\":1}\n{\"id\":2}\n");
    Files.write(landing.resolve("b.json.gz"), new byte[] {1, 2, 3}); // not gzip: a bad file
    assertThat(CliRunner.run("bronze", "--config", file.toString()).exitCode()).isZero();

    CliRunner.Outcome all = CliRunner.run("files", "--config", file.toString(), "--json");
    assertThat(all.exitCode()).isZero();
    assertThat(summaries(all.out()))
        .containsExactly(
            "a.json|ingested|0|2|listing|null",
            "b.json.gz|bad|0|null|listing|java.io.EOFException");

    CliRunner.Outcome bad =
        CliRunner.run("files", "--config", file.toString(), "--status", "bad", "--json");
    assertThat(summaries(bad.out()))
        .containsExactly("b.json.gz|bad|0|null|listing|java.io.EOFException");

    CliRunner.Outcome glob =
        CliRunner.run("files", "--config", file.toString(), "--path-glob", "*/2026/12/a.*");
    assertThat(glob.out().lines().toList())
        .hasSize(3)
        .satisfies(l -> assertThat(l.get(0)).startsWith("STATUS"))
        .satisfies(l -> assertThat(l.get(1)).startsWith("ingested        0        2  20"))
        .satisfies(l -> assertThat(l.get(1)).endsWith("/landing/2026/12/a.json"))
        .satisfies(l -> assertThat(l.get(2)).isEqualTo("1 file(s)"));

    CliRunner.Outcome later =
        CliRunner.run("files", "--config", file.toString(), "--since", "2999-01-01");
    assertThat(later.out().lines().toList()).last().isEqualTo("0 file(s)");

    CliRunner.Outcome wrong =
        CliRunner.run("files", "--config", file.toString(), "--status", "gone");
    assertThat(wrong.exitCode()).isEqualTo(2);
    assertThat(wrong.err())
        .contains(
            "--status 'gone' is unknown; use one of [discovered, ingested, bad, dismissed,"
                + " retried]");
  }

  /** name|status|batch|rows|discovered_by|bad-file error class, per JSON line. */
  private static List<String> summaries(String jsonLines) throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<String> out = new ArrayList<>();
    for (String line : jsonLines.lines().toList()) {
      JsonNode n = json.readTree(line);
      String path = n.get("path").asText();
      out.add(
          path.substring(path.lastIndexOf('/') + 1)
              + "|"
              + n.get("status").asText()
              + "|"
              + n.get("batch_id").asText()
              + "|"
              + n.get("rows").asText()
              + "|"
              + n.get("discovered_by").asText()
              + "|"
              + (n.get("bad_file").isNull()
                  ? "null"
                  : n.get("bad_file").asText().replaceAll(":.*", "")));
    }
    return out;
  }
}
