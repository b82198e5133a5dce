package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.cli.CliRunner;
import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.silver.ops.QuarantineOps;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quarantined row is found in bronze by its identity (file and the values it was quarantined
 * with), whatever the schema became: after a column was added and after {@code --promote-rescued}
 * moved a value out of the rescued data, the release still applies it.
 */
class ReleaseByIdentityTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void aReleaseFindsItsRowAfterAColumnWasAddedAndRescuedValuesWerePromoted() throws Exception {
    String silver =
        "keys: [order_id]\nsequenceBy: [source_version]\nexceptColumnList: [op]\n"
            + "onConflict: quarantine\n";
    SilverHarness before = new SilverHarness(spark, dir, SilverHarness.ORDERS_SCHEMA, silver);
    before.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    before.run();
    // Both conflict with the stored version; key 1's coupon is not declared yet: rescued.
    before.deliver(
        "{\"order_id\":1,\"source_version\":1,\"status\":\"Other\",\"op\":\"UPSERT\","
            + "\"coupon\":\"C1\"}",
        order(2, 1, "Other2"));
    before.run();
    List<String> ids =
        before
            .quarantine()
            .orderBy("key")
            .select("quarantine_id")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
    assertThat(ids).hasSize(2);

    SilverHarness after = before.evolved(SilverHarness.ORDERS_SCHEMA + ", coupon STRING", silver);
    after.run();
    CliRunner.Outcome promoted =
        CliRunner.run(
            "bronze", "--config", after.writePipelineFile("").toString(), "--promote-rescued");
    assertThat(promoted.exitCode()).as(promoted.err()).isZero();

    QuarantineOps.Released released =
        new QuarantineOps(after.config, spark).release(ids, "ana@example.com", "decided");

    assertThat(released.released()).isEqualTo(2);
    assertThat(released.leftOpen()).isEmpty();
    assertThat(after.silverRows()).containsExactly("1|1|Other|C1", "2|1|Other2|null");
    assertThat(rows(after.quarantine().select("status").distinct())).containsExactly("RELEASED");
  }
}
