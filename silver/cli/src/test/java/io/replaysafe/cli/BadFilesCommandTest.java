package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file bronze cannot read: skipped and counted, status alerts, bad-files is the exit path. */
class BadFilesCommandTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void anUnreadableFileAlertsUntilSomeoneDecides() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Files.writeString(landing.resolve("a.json"), "{\"id\":1}\n");
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream gzip = new java.util.zip.GZIPOutputStream(bytes)) {
      for (int i = 0; i < 500; i++) {
        gzip.write(("{\"id\":" + i + "}\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    byte[] gz = bytes.toByteArray();
    Files.write(landing.resolve("b.json.gz"), Arrays.copyOf(gz, gz.length / 2)); // truncated
    Path file =
        Files.writeString(
            dir.resolve("p.yaml"),
            "name: p\nsource:\n  path: "
                + landing
                + "\n  schema: \"id INT\"\nbronze:\n  path: "
                + dir.resolve("bronze")
                + "\n  checkpoint: "
                + dir.resolve("ckpt")
                + "\n");
    String badPath = landing.resolve("b.json.gz").toUri().toString();

    CliRunner.Outcome bronze = CliRunner.run("bronze", "--config", file.toString());
    assertThat(bronze.exitCode()).isZero();
    assertThat(bronze.out())
        .contains("1 file could not be read: " + badPath + " (skipped and recorded");

    CliRunner.Outcome status = CliRunner.run("status", "--config", file.toString());
    assertThat(status.exitCode()).isEqualTo(3);
    assertThat(status.out())
        .contains("ALERT: bronze could not read " + badPath + " (java.io.EOFException: ");

    CliRunner.Outcome list = CliRunner.run("bad-files", "list", "--config", file.toString());
    assertThat(list.exitCode()).isZero();
    JsonNode row = new ObjectMapper().readTree(list.out().strip());
    assertThat(row.get("path").asText()).isEqualTo(badPath);
    assertThat(row.get("status").asText()).isEqualTo("open");
    assertThat(row.get("error_class").asText()).isEqualTo("java.io.EOFException");

    CliRunner.Outcome typo =
        CliRunner.run(
            "bad-files",
            "dismiss",
            "--config",
            file.toString(),
            "--paths",
            "nope",
            "--by",
            "ann",
            "--reason",
            "x");
    assertThat(typo.exitCode()).isEqualTo(2);
    assertThat(typo.err()).contains("Not unresolved bad files of pipeline 'p': [nope]");

    CliRunner.Outcome dismiss =
        CliRunner.run(
            "bad-files",
            "dismiss",
            "--config",
            file.toString(),
            "--paths",
            badPath,
            "--by",
            "ann",
            "--reason",
            "sender confirmed it was a test upload");
    assertThat(dismiss.exitCode()).isZero();
    assertThat(dismiss.out()).contains("1 file(s) dismissed");
    assertThat(CliRunner.run("status", "--config", file.toString()).exitCode()).isZero();
  }
}
