package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.delete;
import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.cli.CliRunner;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quarantine release} goes through the silver batch path: a released delete leaves a
 * tombstone, an older tombstone does not swallow a newer release, {@code ignoreNullUpdates} holds,
 * the run log records the release, and a release that cannot take effect stays OPEN with why.
 */
// Slow (releases through the CLI, several runs); runs in .ci/run with -Pslow.
@Tag("slow")
class QuarantineReleasePathTest extends SparkTestBase {
  @TempDir Path dir;

  private String idOf(SilverHarness p, String rawPayloadPart) {
    return p.quarantine()
        .where("status = 'OPEN' AND raw_payload LIKE '%" + rawPayloadPart + "%'")
        .select("quarantine_id")
        .first()
        .getString(0);
  }

  private static CliRunner.Outcome release(Path config, String id) {
    return CliRunner.run(
        "quarantine",
        "release",
        "--config",
        config.toString(),
        "--ids",
        id,
        "--by",
        "ana@example.com",
        "--reason",
        "decided");
  }

  @Test
  void aReleasedDeleteLeavesATombstoneAndAnOlderTombstoneDoesNotSwallowARelease() throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "onConflict: quarantine\n");
    p.deliver(order(1, 1, "Created"), delete(2, 1));
    p.run();
    // Key 1: a delete and an update at one sequence; key 2 (deleted at 1): two payloads at 2.
    p.deliver(delete(1, 2), order(1, 2, "Shipped"), order(2, 2, "Back"), order(2, 2, "Again"));
    p.run();
    Path config = p.writePipelineFile("");

    CliRunner.Outcome releasedDelete = release(config, idOf(p, "\"op\":\"DELETE\""));
    CliRunner.Outcome releasedRevive = release(config, idOf(p, "Back"));

    assertThat(releasedDelete.exitCode()).as(releasedDelete.err()).isZero();
    assertThat(releasedDelete.out()).isEqualTo("released 1 row(s); 1 silver row(s) changed\n");
    assertThat(releasedRevive.exitCode()).as(releasedRevive.err()).isZero();
    assertThat(p.silverRows()).containsExactly("2|2|Back");
    assertThat(rows(p.tombstones().select("order_id", "source_version", "__source_file")))
        .singleElement()
        .asString()
        .startsWith("1|2|file:");
    // The tombstone keeps the released delete: an older insert does not bring key 1 back.
    p.deliver(order(1, 1, "Created"));
    p.run();
    assertThat(p.silverRows()).containsExactly("2|2|Back");
    assertThat(
            rows(
                p.runs()
                    .where("run_id LIKE 'quarantine-release-%'")
                    .select("deleted", "inserted")
                    .orderBy("deleted")))
        .containsExactly("0|1", "1|0");
  }

  @Test
  void aReleaseANewerVersionBeatsStaysOpenWithTheReasonAndIgnoreNullUpdatesHolds()
      throws Exception {
    SilverHarness p =
        SilverHarness.orders(spark, dir, "onConflict: quarantine\nignoreNullUpdates: true\n");
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    p.run();
    p.deliver(order(1, 1, "Cancelled"), order(2, 2, null), order(2, 2, "Paid"));
    p.run();
    p.deliver(order(1, 3, "Shipped"));
    p.run();
    Path config = p.writePipelineFile("");
    String cancelled = idOf(p, "Cancelled");

    CliRunner.Outcome refused = release(config, cancelled);
    CliRunner.Outcome nullStatus = release(config, idOf(p, "\"status\":null"));

    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.out())
        .isEqualTo(
            "released 0 row(s); 0 silver row(s) changed\n  left OPEN "
                + cancelled
                + ": silver holds key 1 at sequence {\"source_version\":3}, which wins over"
                + " {\"source_version\":1}\n");
    assertThat(
            rows(
                p.quarantine()
                    .where("quarantine_id = '" + cancelled + "'")
                    .select("status", "decision")))
        .containsExactly(
            "OPEN|release refused: silver holds key 1 at sequence {\"source_version\":3}, which"
                + " wins over {\"source_version\":1}");
    assertThat(nullStatus.exitCode()).as(nullStatus.out() + nullStatus.err()).isZero();
    // The released null keeps the stored status, as in any batch with ignoreNullUpdates.
    assertThat(p.silverRows()).containsExactly("1|3|Shipped", "2|2|Created");
  }
}
