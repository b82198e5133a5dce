package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.cli.CliRunner;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The on-call commands through the CLI: repair, reconcile, check, status, quarantine. */
// Slow (every operation after full runs); runs in .ci/run with -Pslow.
@Tag("slow")
class OperationsTest extends SparkTestBase {
  @TempDir Path dir;

  static CliRunner.Outcome cli(String... args) {
    return CliRunner.run(args);
  }

  Path pipelineFile(SilverHarness p, String extraSilver) throws Exception {
    return p.writePipelineFile(extraSilver);
  }

  @Test
  void repairRestoresOnlyTheNamedStaleKeys() throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"));
    p.run();
    p.deliver(order(1, 2, "Shipped"), order(2, 2, "Shipped"));
    p.run();
    // A bad manual retry left both orders stale: older than what bronze holds.
    spark.sql(
        "UPDATE delta.`"
            + dir.resolve("silver")
            + "` SET source_version = 1, status = 'Created',"
            + " __payload_hash = sha2(to_json(named_struct('status', 'Created', 'op', 'UPSERT')), 256)");

    CliRunner.Outcome repair =
        cli("repair", "--config", pipelineFile(p, "").toString(), "--keys", "1");

    assertThat(repair.exitCode()).as(repair.err()).isZero();
    assertThat(repair.out())
        .contains(
            "before:\n  {\"order_id\":1,\"source_version\":1,\"status\":\"Created\"}\nafter:\n"
                + "  {\"order_id\":1,\"source_version\":2,\"status\":\"Shipped\"}\n");
    assertThat(p.silverRows()).containsExactly("1|2|Shipped", "2|1|Created");
  }

  @Test
  void reconcileReportsThenDeletesKeysMissingAtTheSourceForGood() throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 3, "Created"), order(3, 1, "Created"));
    p.run();
    Path keys = Files.writeString(dir.resolve("source-keys.txt"), "1\n3\n");
    Path config = pipelineFile(p, "");

    CliRunner.Outcome report =
        cli("reconcile", "--config", config.toString(), "--source-keys", keys.toString());
    assertThat(report.exitCode()).as(report.err()).isZero();
    assertThat(report.out())
        .isEqualTo(
            "reconcile orders: silver holds 3 key(s), the source 2; 1 key(s) in silver are missing"
                + " at the source (report only; --apply deletes them)\n  missing at source: 2\n");
    assertThat(p.silverRows()).hasSize(3);

    CliRunner.Outcome applied =
        cli(
            "reconcile",
            "--config",
            config.toString(),
            "--source-keys",
            keys.toString(),
            "--apply");
    assertThat(applied.out()).contains("were deleted (tombstones kept)");
    assertThat(p.silverRows()).containsExactly("1|1|Created", "3|1|Created");
    assertThat(rows(p.tombstones().select("order_id", "source_version", "__source_file")))
        .containsExactly("2|3|reconcile: missing from source-of-truth " + keys);

    p.deliver(order(2, 2, "Paid")); // an older event for the hard-deleted order
    p.run();
    assertThat(p.silverRows()).containsExactly("1|1|Created", "3|1|Created");
  }

  @Test
  void checkCountsViolationsAndRefusesToAddAViolatedConstraint() throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 1, "Bad"), order(3, 1, "Created"));
    p.run();
    Path config = pipelineFile(p, "");

    CliRunner.Outcome refused =
        cli(
            "check",
            "--config",
            config.toString(),
            "--constraint",
            "known_status=status <> 'Bad'",
            "--add");
    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.out())
        .isEqualTo(
            "check orders: 3 row(s); 0 key(s) held more than once\n"
                + "constraint known_status (status <> 'Bad'): 1 violating row(s); refused: 1 existing row(s) violate it\n"
                + "  {\"order_id\":2,\"source_version\":1,\"status\":\"Bad\"}\n");

    CliRunner.Outcome added =
        cli(
            "check",
            "--config",
            config.toString(),
            "--constraint",
            "positive_version=source_version > 0",
            "--add");
    assertThat(added.exitCode()).as(added.out()).isZero();
    assertThat(added.out())
        .contains("constraint positive_version (source_version > 0): 0 violating row(s); added");
    CliRunner.Outcome onTable = cli("check", "--config", config.toString());
    assertThat(onTable.out())
        .contains("constraint positive_version (source_version > 0): 0 violating row(s); on table");
  }

  @Test
  void statusExitsThreeWhenInputWaitsLongerThanTheMaximumLag() throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"));
    p.run();
    Path config = pipelineFile(p, "");

    CliRunner.Outcome fresh = cli("status", "--config", config.toString(), "--max-lag", "1 hour");
    assertThat(fresh.exitCode()).as(fresh.out()).isZero();
    assertThat(fresh.out())
        .contains("source: 1 file(s)")
        .contains(", 0 not ingested yet")
        .contains("oldest input not yet in silver: none");

    String landed = p.deliver(order(2, 1, "Created")); // landed, not ingested
    Instant landedAt =
        Files.getLastModifiedTime(dir.resolve("landing").resolve(landed))
            .toInstant()
            .truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    Clock twoHoursLater = Clock.fixed(landedAt.plus(Duration.ofHours(2)), ZoneOffset.UTC);
    CliRunner.Outcome late =
        CliRunner.runAt(
            twoHoursLater, "status", "--config", config.toString(), "--max-lag", "1 hour");
    assertThat(late.exitCode()).isEqualTo(3);
    assertThat(late.out())
        .contains(", 1 not ingested yet")
        .contains("ALERT: input waiting since " + landedAt + " is older than --max-lag PT1H\n")
        .contains("ALERT: no new source file within --max-lag PT1H (newest: " + landedAt + ")\n");
  }

  @Test
  void aReleasedConflictChangesSilverExactlyAsDecidedAndDiscardIsRecorded() throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "onConflict: quarantine\n");
    p.deliver(order(101, 2, "Shipped"), order(102, 1, "Created"));
    p.run();
    p.deliver(order(101, 2, "Returned"), order(102, 1, "Cancelled"));
    p.run();
    Path config = pipelineFile(p, "");
    String returned =
        p.quarantine()
            .where("raw_payload LIKE '%Returned%'")
            .select("quarantine_id")
            .first()
            .getString(0);
    String cancelled =
        p.quarantine()
            .where("raw_payload LIKE '%Cancelled%'")
            .select("quarantine_id")
            .first()
            .getString(0);

    CliRunner.Outcome release =
        cli(
            "quarantine",
            "release",
            "--config",
            config.toString(),
            "--ids",
            returned,
            "--by",
            "ana@example.com",
            "--reason",
            "producer confirmed v2 is Returned");
    CliRunner.Outcome discard =
        cli(
            "quarantine",
            "discard",
            "--config",
            config.toString(),
            "--ids",
            cancelled,
            "--by",
            "ana@example.com",
            "--reason",
            "duplicate test event");

    assertThat(release.exitCode()).as(release.err()).isZero();
    assertThat(release.out()).isEqualTo("released 1 row(s); 1 silver row(s) changed\n");
    assertThat(discard.exitCode()).as(discard.err()).isZero();
    assertThat(p.silverRows()).containsExactly("101|2|Returned", "102|1|Created");
    assertThat(
            rows(
                p.quarantine()
                    .selectExpr(
                        "get_json_object(raw_payload, '$.status')",
                        "status",
                        "decided_by",
                        "decision")
                    .orderBy("status")))
        .containsExactly(
            "Cancelled|DISCARDED|ana@example.com|duplicate test event",
            "Returned|RELEASED|ana@example.com|producer confirmed v2 is Returned");
    assertThat(cli("quarantine", "list", "--config", config.toString()).out()).isEmpty();
  }
}
