package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --timeout}: a run that takes longer is stopped with exit code 5, and a rerun finishes. */
class RunTimeoutTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void aRunPastItsTimeoutStopsWithExitCode5AndARerunCompletesIt() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Files.writeString(landing.resolve("a.json"), "{\"id\":1,\"v\":1}\n{\"id\":2,\"v\":1}\n");
    Path file = dir.resolve("p.yaml");
    Files.writeString(
        file,
        "name: slow\nsource:\n  path: "
            + landing
            + "\n  schema: \"id BIGINT, v BIGINT\"\nbronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("ck/bronze")
            + "\nsilver:\n  path: "
            + dir.resolve("silver")
            + "\n  checkpoint: "
            + dir.resolve("ck/silver")
            + "\n  keys: [id]\n  sequenceBy: [v]\n");

    // One second is far less than starting two streaming queries takes.
    CliRunner.Outcome slow =
        CliRunner.run("run", "--config", file.toString(), "--timeout", "1 second");
    assertThat(slow.exitCode()).as(slow.err()).isEqualTo(5);
    // Where the second runs out depends on the machine's load: before bronze starts (taking the
    // lease, starting the session) or inside it. Either way the run names the stage and stops.
    assertThat(slow.out())
        .containsPattern(
            "^run slow: FAILED in (run|bronze): The run did not finish within 1 second\\(s\\)"
                + " \\(--timeout\\) and was stopped\\.");
    assertThat(slow.err()).contains("replaysafe: The run did not finish within 1 second(s)");

    CliRunner.Outcome bad =
        CliRunner.run("run", "--config", file.toString(), "--timeout", "0 seconds");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("--timeout must be longer than 0");

    CliRunner.Outcome rerun = CliRunner.run("run", "--config", file.toString());
    assertThat(rerun.exitCode()).as(rerun.err()).isEqualTo(0);
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(dir.resolve("silver").toString())
                    .select("id", "v")
                    .orderBy("id")))
        .containsExactly("1|1", "2|1");
  }
}
