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

  @Test
  void localstackBackendIsRefusedClearly() {
    CliRunner.Outcome outcome =
        CliRunner.run("rehearse", "--backend", "localstack", "--report", dir.toString());
    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err())
        .contains("LocalStack backend needs Docker and the testcontainers jars");
  }
}
