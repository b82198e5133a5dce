package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code replaysafe rehearse} on the embedded endpoint: every step passes and is reported. */
class RehearseCommandTest extends SparkTestBase {
  static final List<String> STEPS =
      List.of(
          "two keys, several versions of one, an exact retry",
          "restart with the same checkpoint",
          "same events in another object",
          "an older version",
          "a conflicting equal version",
          "bronze checkpoint deleted",
          "job killed in the middle of a bronze write, then restarted",
          "job killed in the middle of a silver MERGE, then restarted",
          "an older insert after the delete");

  @TempDir Path dir;

  // Slow (the nine rehearsal steps, two of them killing a job process); runs in .ci/run with
  // -Pslow.
  @Tag("slow")
  @Test
  void rehearsalPassesAndReportsEveryStep() throws Exception {
    CliRunner.Outcome outcome = CliRunner.run("rehearse", "--report", dir.toString());
    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(0);
    assertThat(outcome.err()).contains("rehearse: step 9/9 an older insert after the delete");

    JsonNode report = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
    assertThat(report.get("status").asText()).isEqualTo("PASSED");
    List<String> names = new ArrayList<>();
    for (JsonNode step : report.get("steps")) {
      names.add(step.get("name").asText());
      assertThat(step.get("status").asText()).as(step.toString()).isEqualTo("PASSED");
      assertThat(step.get("assertions")).isNotEmpty();
    }
    assertThat(names).containsExactlyElementsOf(STEPS);

    String markdown = Files.readString(dir.resolve("report.md"));
    for (String step : STEPS) {
      assertThat(markdown).contains(step);
    }
    String json = Files.readString(dir.resolve("report.json"));
    assertThat(json).doesNotContain(System.getProperty("aws.secretAccessKey"));
  }

  /**
   * {@code --endpoint} against {@code replaysafe s3-server} running as a separate process, as a
   * user would start it (its credentials in the shell's environment, buckets of its own): the
   * rehearsal creates its buckets there, passes every step, and a second rehearsal of the same
   * paths is refused before anything is written.
   */
  // Slow (a second JVM); runs in .ci/run with -Pslow.
  @Tag("slow")
  @Test
  void rehearsalAgainstAnEndpointStartedAsASeparateProcess() throws Exception {
    EmbeddedS3Server.S3Credentials credentials =
        EmbeddedS3Server.S3Credentials.random(new SecureRandom());
    ProcessBuilder builder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                "io.replaysafe.cli.Main",
                "s3-server",
                "--port",
                "0",
                "--bucket",
                "unrelated")
            .redirectErrorStream(true);
    builder.environment().put("AWS_ACCESS_KEY_ID", credentials.accessKeyId());
    builder.environment().put("AWS_SECRET_ACCESS_KEY", credentials.secretAccessKey());
    Process server = builder.start();
    try {
      String endpoint = awaitEndpoint(server);
      // The default chain of this JVM: system properties, as a user's shell would export them.
      credentials.installAsSystemProperties();

      CliRunner.Outcome outcome =
          CliRunner.run(
              "rehearse",
              "--endpoint",
              endpoint,
              "--landing-bucket",
              "my-landing",
              "--lake-bucket",
              "my-lake",
              "--report",
              dir.toString());
      assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(0);
      assertThat(outcome.err())
          .contains("rehearse: S3 endpoint " + endpoint + " (credentials from the default chain)")
          .contains("rehearse:   bucket my-landing created")
          .contains("rehearse:   bucket my-lake created")
          .contains("rehearse: step 9/9 an older insert after the delete");
      JsonNode report = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
      assertThat(report.get("status").asText()).isEqualTo("PASSED");
      assertThat(report.get("backend").asText()).isEqualTo("endpoint " + endpoint);
      for (JsonNode step : report.get("steps")) {
        assertThat(step.get("status").asText()).as(step.toString()).isEqualTo("PASSED");
      }
      assertThat(Files.readString(dir.resolve("report.json")))
          .doesNotContain(credentials.secretAccessKey());

      // The same paths again: refused, because the expected rows assume a first run.
      Path used = dir.resolve("work/rehearsal-pipeline.yaml");
      CliRunner.Outcome again =
          CliRunner.run(
              "rehearse",
              "--endpoint",
              endpoint,
              "--config",
              used.toString(),
              "--report",
              dir.resolve("again").toString());
      assertThat(again.exitCode()).as(again.err()).isEqualTo(2);
      assertThat(again.err())
          .contains("Cannot rehearse against " + endpoint + ": s3a://my-landing/rehearsal-")
          .contains(
              " already hold objects (an earlier rehearsal?), and the rehearsal's expected rows"
                  + " assume a first run.");
    } finally {
      server.destroy();
      server.waitFor();
    }
  }

  @Test
  void endpointAndBackendTogetherAreAUsageError() {
    CliRunner.Outcome outcome =
        CliRunner.run("rehearse", "--endpoint", "http://127.0.0.1:1", "--backend", "embedded");
    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err())
        .contains("Give either --endpoint URL (an endpoint you started) or --backend, not both");
  }

  /** The URL from the server's first line: "Embedded S3 endpoint listening on URL (...)". */
  static String awaitEndpoint(Process server) throws IOException {
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    String prefix = "Embedded S3 endpoint listening on ";
    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
      if (line.startsWith(prefix)) {
        // Keep draining its output so that it never blocks on a full pipe.
        Thread drain =
            new Thread(
                () -> {
                  try {
                    while (lines.readLine() != null) {
                      // discard
                    }
                  } catch (IOException e) {
                    // the server stopped
                  }
                });
        drain.setDaemon(true);
        drain.start();
        return line.substring(prefix.length(), line.indexOf(' ', prefix.length()));
      }
    }
    throw new IllegalStateException("replaysafe s3-server ended without an endpoint");
  }

  @Test
  void localstackBackendIsRefusedClearly() {
    CliRunner.Outcome outcome =
        CliRunner.run("rehearse", "--backend", "localstack", "--report", dir.toString());
    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err())
        .contains(
            "The LocalStack backend needs a Docker engine, and none answers here. Start LocalStack"
                + " yourself and rehearse against it with --endpoint: scripts/localstack-run"
                + " --rehearse");
  }
}
