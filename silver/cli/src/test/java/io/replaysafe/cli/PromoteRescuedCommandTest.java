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

  /** The same pipeline with a silver table keyed by id, versions ordered by seq. */
  Path withSilver(String schema) throws Exception {
    Path file = pipeline(schema);
    Files.writeString(
        file,
        Files.readString(file)
            + "silver:\n  path: "
            + dir.resolve("silver")
            + "\n  checkpoint: "
            + dir.resolve("silver-ckpt")
            + "\n  keys: [id]\n  sequenceBy: [seq]\n");
    return file;
  }

  private java.util.List<String> silverRows() {
    return rows(
        spark
            .read()
            .format("delta")
            .load(dir.resolve("silver").toString())
            .selectExpr("id", "seq", "coupon")
            .orderBy("id"));
  }

  /**
   * The backfill is not an event: silver, whether it read bronze before the promotion (its
   * checkpoint then bounds the commits it looks at) or only after it (all of bronze's history),
   * skips the promotion's updates and applies the next delivery.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "silver ran before the promotion: {0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
  void silverSkipsThePromotionAndAppliesTheNextDelivery(boolean silverBefore) throws Exception {
    Files.createDirectories(dir.resolve("landing"));
    Files.writeString(
        dir.resolve("landing/a.json"),
        "{\"id\":1,\"seq\":1,\"coupon\":\"X\"}\n{\"id\":2,\"seq\":1,\"coupon\":7}\n");
    String v1 = withSilver("id INT, seq INT").toString();
    assertThat(CliRunner.run("bronze", "--config", v1).exitCode()).isZero();
    if (silverBefore) {
      CliRunner.Outcome first = CliRunner.run("silver", "--config", v1);
      assertThat(first.exitCode()).as(first.err()).isZero();
    }
    String v2 = withSilver("id INT, seq INT, coupon STRING").toString();
    assertThat(CliRunner.run("bronze", "--config", v2).exitCode()).isZero();
    CliRunner.Outcome promoted = CliRunner.run("bronze", "--config", v2, "--promote-rescued");
    assertThat(promoted.exitCode()).as(promoted.err()).isZero();
    Files.writeString(dir.resolve("landing/b.json"), "{\"id\":3,\"seq\":1,\"coupon\":\"Z\"}\n");
    assertThat(CliRunner.run("bronze", "--config", v2).exitCode()).isZero();

    CliRunner.Outcome silver = CliRunner.run("silver", "--config", v2);

    assertThat(silver.exitCode()).as(silver.err()).isZero();
    // Rows 1 and 2 as their events carried them (the coupon was rescued data then, not a
    // column: the change feed's inserts have it null, and the backfill is not applied), row 3 as
    // delivered after the contract declared it.
    assertThat(silverRows()).containsExactly("1|1|null", "2|1|null", "3|1|Z");
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
