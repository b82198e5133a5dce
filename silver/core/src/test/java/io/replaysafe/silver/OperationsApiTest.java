package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.silver.ops.Check;
import io.replaysafe.silver.ops.KeySelection;
import io.replaysafe.silver.ops.QuarantineOps;
import io.replaysafe.silver.ops.Reconcile;
import io.replaysafe.silver.ops.Repair;
import io.replaysafe.silver.ops.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The on-call operations called as the API the CLI calls (repair, reconcile, check, status,
 * quarantine), on real bronze and silver tables: each case reads like a line of the runbook.
 */
class OperationsApiTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void repairRecomputesOnlyTheNamedKeyFromBronze() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 1, "Created"), order(1, 2, "Shipped"));
    p.run();
    // A bad manual fix left key 1 older than bronze holds, and key 2 with a changed status.
    spark.sql(
        "UPDATE delta.`"
            + dir.resolve("silver")
            + "` SET source_version = 1, status = 'Created', __payload_hash ="
            + " sha2(to_json(named_struct('status', 'Created', 'op', 'UPSERT')), 256)"
            + " WHERE order_id = 1");
    spark.sql(
        "UPDATE delta.`" + dir.resolve("silver") + "` SET status = 'Lost' WHERE order_id = 2");

    Repair.Outcome repaired = new Repair(p.config, spark).execute(new KeySelection(List.of("1")));

    assertThat(repaired.before())
        .containsExactly("{\"order_id\":1,\"source_version\":1,\"status\":\"Created\"}");
    assertThat(repaired.after())
        .containsExactly("{\"order_id\":1,\"source_version\":2,\"status\":\"Shipped\"}");
    assertThat(p.silverRows()).containsExactly("1|2|Shipped", "2|1|Lost");
  }

  @Test
  void reconcileReportsThenDeletesThroughTombstonesSoAnOlderInsertStaysOut() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 3, "Created"), order(3, 1, "Created"));
    p.run();
    KeySelection source = new KeySelection(List.of("1", "3"));

    Reconcile.Outcome report = new Reconcile(p.config, spark).execute(source, "extract", false);
    assertThat(report.silverKeys()).isEqualTo(3);
    assertThat(report.sourceKeys()).isEqualTo(2);
    assertThat(report.missingAtSource()).isEqualTo(1);
    assertThat(report.sample()).containsExactly("2");
    assertThat(report.applied()).isFalse();
    assertThat(p.silverRows()).containsExactly("1|1|Created", "2|3|Created", "3|1|Created");

    Reconcile.Outcome applied = new Reconcile(p.config, spark).execute(source, "extract", true);
    assertThat(applied.applied()).isTrue();
    assertThat(p.silverRows()).containsExactly("1|1|Created", "3|1|Created");

    // The hard delete happened at the stored sequence 3: a late insert at 2 cannot bring it back.
    p.deliver(order(2, 2, "Created"));
    p.run();
    assertThat(p.silverRows()).containsExactly("1|1|Created", "3|1|Created");
  }

  @Test
  void checkCountsViolationsAndRefusesToAddAViolatedConstraint() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 1, null));
    p.run();
    Map<String, String> constraints = new LinkedHashMap<>();
    constraints.put("status_known", "status IS NOT NULL");
    constraints.put("positive_id", "order_id > 0");

    Check.Outcome checked = new Check(p.config, spark).execute(constraints, false);
    assertThat(checked.rows()).isEqualTo(2);
    assertThat(checked.duplicateKeys()).isZero();
    assertThat(checked.constraints())
        .extracting(
            Check.ConstraintResult::name, Check.ConstraintResult::violations, c -> c.state())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("status_known", 1L, "checked"),
            org.assertj.core.groups.Tuple.tuple("positive_id", 0L, "checked"));
    assertThat(checked.clean()).isFalse();
    assertThat(checked.refused()).isFalse();

    Check.Outcome added = new Check(p.config, spark).execute(constraints, true);
    assertThat(added.constraints())
        .extracting(Check.ConstraintResult::name, Check.ConstraintResult::decision)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("status_known", Check.Decision.REFUSED),
            org.assertj.core.groups.Tuple.tuple("positive_id", Check.Decision.ADDED));
    assertThat(added.constraints().get(0).state())
        .isEqualTo("refused: 1 existing row(s) violate it");
    assertThat(added.refused()).isTrue();

    // The added constraint is on the table now: the next check reports it without being asked.
    Check.Outcome again = new Check(p.config, spark).execute(Map.of(), false);
    assertThat(again.constraints())
        .extracting(Check.ConstraintResult::name, Check.ConstraintResult::decision)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("positive_id", Check.Decision.ON_TABLE));
  }

  @Test
  void quarantineDiscardClosesTheRowAndStatusCountsWhatIsOpen() {
    SilverHarness p = SilverHarness.orders(spark, dir, "onConflict: quarantine\n");
    p.deliver(order(5, 1, "Created"));
    p.run();
    p.deliver(order(5, 1, "Cancelled"));
    p.run();
    QuarantineOps quarantine = new QuarantineOps(p.config, spark);
    List<String> open = SparkTestBase.rowsOf(quarantine.open().select(col("quarantine_id")));
    assertThat(open).hasSize(1);
    assertThat(p.silverRows()).containsExactly("5|1|Created");

    Status.Report before = new Status(p.config, spark).execute(Duration.ofDays(1), Instant.now());
    assertThat(before.openQuarantine().values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(1);
    assertThat(before.filesNotIngested()).isZero();
    assertThat(before.bronzeVersionsPending()).isZero();
    assertThat(before.silverProcessedVersion()).isEqualTo(before.bronzeVersion());

    assertThat(quarantine.discard(open, "on-call", "the producer resent a cancelled order"))
        .isEqualTo(1);
    assertThat(quarantine.open().count()).isZero();
    assertThat(
            SparkTestBase.rowsOf(
                p.quarantine().select(col("status"), col("decided_by"), col("decision"))))
        .containsExactly("DISCARDED|on-call|the producer resent a cancelled order");

    p.deliver(order(6, 1, "Created"));
    Status.Report waiting = new Status(p.config, spark).execute(Duration.ofDays(1), Instant.now());
    assertThat(waiting.filesNotIngested()).isEqualTo(1);
    assertThat(waiting.openQuarantine().values().stream().mapToLong(Long::longValue).sum())
        .isZero();
  }
}
