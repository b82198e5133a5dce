package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code replaysafe bronze --promote-rescued}: under the writer's lease, idempotent. */
class PromoteRescuedCommandTest extends SparkTestBase {
  @TempDir Path dir;

  Path pipeline(String schema) throws Exception {
    Path file = dir.resolve("p.yaml");
    Files.writeString(
        file,
        "name: promo\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \""
            + schema
            + "\"\nbronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("ckpt")
            + "\n");
    return file;
  }

  @Test
  void promotesOnceThenFindsNothing() throws Exception {
    Files.createDirectories(dir.resolve("landing"));
    Files.writeString(
        dir.resolve("landing/a.json"), "{\"id\":1,\"coupon\":\"X\"}\n{\"id\":2,\"coupon\":7}\n");
    assertThat(CliRunner.run("bronze", "--config", pipeline("id INT").toString()).exitCode())
        .isZero();
    String v2 = pipeline("id INT, coupon STRING").toString();
    assertThat(CliRunner.run("bronze", "--config", v2).exitCode()).isZero();

    CliRunner.Outcome first = CliRunner.run("bronze", "--config", v2, "--promote-rescued");
    CliRunner.Outcome again =
        CliRunner.run("bronze", "--config", v2, "--promote-rescued", "--json");

    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.out().strip())
        .isEqualTo(
            "bronze promo: promoted rescued values into {coupon=2} in 2 row(s); bronze table"
                + " version 3 (the rows before are version 2)");
    assertThat(again.out().strip())
        .isEqualTo(
            "{\"layer\":\"bronze\",\"pipeline\":\"promo\",\"action\":\"promote-rescued\","
                + "\"promoted\":{},\"rowsChanged\":0,\"versionBefore\":3,\"versionAfter\":3}");
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(dir.resolve("bronze").toString())
                    .selectExpr("id", "coupon", "_rescued_data")
                    .orderBy("id")))
        .containsExactly("1|X|null", "2|7|null");
  }
}
