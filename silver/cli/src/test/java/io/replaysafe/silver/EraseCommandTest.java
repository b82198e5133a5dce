package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.cli.CliRunner;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code replaysafe erase} as typed: what it prints, in words and as JSON, and what it keeps. */
class EraseCommandTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void eraseNamesTheRequestAndTheCountsButNeitherTheErasedKeysNorTheirValues() throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 1, "Alice"), order(3, 1, "Bob"));
    p.run();
    Path config = p.writePipelineFile("");
    Path keys = Files.writeString(dir.resolve("erase.txt"), "2\n9\n");

    CliRunner.Outcome erased =
        CliRunner.run(
            "erase",
            "--config",
            config.toString(),
            "--keys-file",
            keys.toString(),
            "--reason",
            "ticket 42",
            "--by",
            "dpo");

    assertThat(erased.exitCode()).as(erased.err()).isZero();
    String silverPath = p.config.requireSilver().path();
    assertThat(erased.out())
        .matches(
            "erase orders erase-[0-9a-f]{16}-[0-9]+: 1 of 2 key\\(s\\) erased, 2 row\\(s\\) removed"
                + " \\(silver 1, tombstones 0, quarantine 0, bronze 1\\)\n"
                + "  1 key\\(s\\) not found in any layer, nothing recorded for them: 9\n"
                + "  rewritten: "
                + java.util.regex.Pattern.quote(silverPath)
                + " \\(VACUUM it to remove the old files\\)\n"
                + "  rewritten: .*/bronze \\(VACUUM it to remove the old files\\)\n"
                + "  landing file held erased rows \\(the producer's copy\\): file:.*/delivery-001.json\n");
    assertThat(erased.out() + erased.err()).doesNotContain("Alice").doesNotContain(" 2,");
    assertThat(p.silverRows()).containsExactly("1|1|Created", "3|1|Bob");

    CliRunner.Outcome json =
        CliRunner.run("erase", "--config", config.toString(), "--keys", "3", "--json");
    assertThat(json.exitCode()).as(json.err()).isZero();
    assertThat(json.out())
        .contains("\"keysRequested\":1,\"keysErased\":1,\"keysNotFound\":0")
        .contains("\"rowsRemoved\":{\"silver\":1,\"tombstones\":0,\"quarantine\":0,\"bronze\":1}")
        .doesNotContain("Bob");
    assertThat(p.silverRows()).containsExactly("1|1|Created");

    // The next scheduled run reads past the erase's commits to bronze.
    p.run();
    assertThat(p.silverRows()).containsExactly("1|1|Created");
  }
}
