package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code status} after silver rejected a batch and an operation ran since: what silver processed is
 * its stream's checkpoint, so a repair of another key (which logs an applied row at bronze's newest
 * version) hides neither the stuck stream nor the rejection.
 */
class StatusAfterRejectionTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void aRejectedBatchStaysAnAlertAfterARepairOfAnotherKey() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Path file =
        Files.writeString(
            dir.resolve("p.yaml"),
            "name: p\nsource:\n  path: "
                + landing
                + "\n  schema: \"id BIGINT, v BIGINT, status STRING\"\nbronze:\n  path: "
                + dir.resolve("bronze")
                + "\n  checkpoint: "
                + dir.resolve("_ck/bronze")
                + "\nsilver:\n  path: "
                + dir.resolve("silver")
                + "\n  checkpoint: "
                + dir.resolve("_ck/silver")
                + "\n  keys: [id]\n  sequenceBy: [v]\n  onConflict: fail\n");
    String config = file.toString();
    Files.writeString(landing.resolve("1.json"), "{\"id\":1,\"v\":1,\"status\":\"a\"}\n");
    assertThat(CliRunner.run("run", "--config", config).exitCode()).isZero();
    // Key 2 arrives twice at one sequence with two payloads: a conflict, and onConflict: fail.
    Files.writeString(
        landing.resolve("2.json"),
        "{\"id\":2,\"v\":1,\"status\":\"a\"}\n{\"id\":2,\"v\":1,\"status\":\"b\"}\n"
            + "{\"id\":1,\"v\":2,\"status\":\"c\"}\n");
    CliRunner.Outcome rejected = CliRunner.run("run", "--config", config);
    assertThat(rejected.exitCode()).as(rejected.err()).isEqualTo(1);

    CliRunner.Outcome repair = CliRunner.run("repair", "--config", config, "--keys", "1");
    assertThat(repair.exitCode()).as(repair.err()).isZero();

    CliRunner.Outcome status = CliRunner.run("status", "--config", config, "--max-lag", "1 day");
    assertThat(status.exitCode()).as(status.out() + status.err()).isEqualTo(3);
    assertThat(status.out())
        .contains("silver has processed up to bronze version 1 (1 bronze commit(s) pending)")
        .contains("silver REJECTED bronze versions 2-2 at ")
        .contains(
            " and its stream has not applied them since (processed through version 1): see"
                + " 'replaysafe export --layer runs'");
  }
}
