package io.replaysafe.rehearsal;

import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.silver.BatchReport;
import java.util.List;

/**
 * The rehearsal's steps in order, each named by what it checks (a retry collapsed, a restart that
 * reads nothing again, an older version ignored, a killed write that leaves no duplicate, ...),
 * with its input lines and the silver and quarantine rows it must leave: written out here rather
 * than computed by the code under test, so a wrong table fails the step.
 */
final class RehearsalSteps {
  private static final String R1 =
      "{\"order_id\":201,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"amount\":10.0}";
  private static final String R2 =
      "{\"order_id\":201,\"source_version\":2,\"status\":\"Paid\",\"op\":\"UPSERT\",\"amount\":10.0}";
  private static final String R3 =
      "{\"order_id\":201,\"source_version\":3,\"status\":\"Shipped\",\"op\":\"UPSERT\",\"amount\":10.0}";
  private static final String R4 =
      "{\"order_id\":201,\"source_version\":4,\"status\":null,\"op\":\"DELETE\",\"amount\":null}";
  private static final String C1 =
      "{\"order_id\":202,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"amount\":5.0}";
  private static final String C1X =
      "{\"order_id\":202,\"source_version\":1,\"status\":\"Cancelled\",\"op\":\"UPSERT\",\"amount\":5.0}";
  private static final String C2 =
      "{\"order_id\":202,\"source_version\":2,\"status\":\"Paid\",\"op\":\"UPSERT\",\"amount\":5.0}";
  private static final String N1 =
      "{\"order_id\":203,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"amount\":7.0}";
  private static final String N2 =
      "{\"order_id\":203,\"source_version\":2,\"status\":\"Shipped\",\"op\":\"UPSERT\",\"amount\":7.0}";

  private static final List<String> FIRST_DELIVERY = List.of(R1, R2, R3, C1, R3);

  private static final String S201 = "201|3|Shipped|10.0";
  private static final String S202 = "202|1|Created|5.0";
  private static final String S202_PAID = "202|2|Paid|5.0";
  private static final String S203 = "203|1|Created|7.0";
  private static final String S203_SHIPPED = "203|2|Shipped|7.0";

  private static final String Q_CANCELLED_4 =
      "{\"order_id\":202}|{\"source_version\":1}|Cancelled|part-0004.json";
  private static final List<String> Q_AFTER_RESET =
      List.of(
          Q_CANCELLED_4,
          Q_CANCELLED_4,
          "{\"order_id\":202}|{\"source_version\":1}|Created|part-0001.json",
          "{\"order_id\":202}|{\"source_version\":1}|Created|part-0002.json");

  private final PipelineConfig pipeline;
  private final RehearsalLake lake;
  private final RehearsalJobs jobs;
  private final StepChecks checks;

  RehearsalSteps(PipelineConfig pipeline, RehearsalLake lake, RehearsalJobs jobs) {
    this.pipeline = pipeline;
    this.lake = lake;
    this.jobs = jobs;
    this.checks = new StepChecks(lake);
  }

  List<Rehearsal.StepSpec> all() {
    return List.of(
        latestVersionKeptAndRetryCollapsed(),
        restartReadsNothingAgain(),
        redeliveryIsAnExactRetry(),
        olderVersionIgnored(),
        conflictingEqualVersionQuarantined(),
        bronzeCheckpointLossReingestsWithoutChangingSilver(),
        killedBronzeWriteLeavesNoDuplicates(),
        killedSilverMergeRolledBackAndReplayed(),
        tombstoneKeepsDeletedKeyDeleted());
  }

  private Rehearsal.StepSpec latestVersionKeptAndRetryCollapsed() {
    return new Rehearsal.StepSpec(
        "two keys, several versions of one, an exact retry",
        "One object with order 201 at versions 1, 2 and 3, order 202 at version 1, and 201 v3"
            + " delivered twice (an exact retry). Bronze keeps all 5 lines; silver keeps the"
            + " latest version of each key and collapses the retry.",
        step -> {
          lake.land(step, "day1/part-0001.json", FIRST_DELIVERY);
          RehearsalJobs.Runs runs = jobs.runInProcess(step);
          step.expectedSilverRows = List.of(S201, S202);
          checks.silver(step);
          StepChecks.count(
              step, "bronze rows from part-0001.json", 5, lake.bronzeRows("part-0001.json"));
          StepChecks.count(
              step,
              "exact retries collapsed by silver",
              1,
              runs.silver().total(BatchReport::exactRetries));
          checks.quarantine(step, List.of());
        });
  }

  private Rehearsal.StepSpec restartReadsNothingAgain() {
    return new Rehearsal.StepSpec(
        "restart with the same checkpoint",
        "No new object; bronze and silver run again on their checkpoints. Nothing is read"
            + " again and nothing changes.",
        step -> {
          RehearsalJobs.Runs runs = jobs.runInProcess(step);
          step.expectedSilverRows = List.of(S201, S202);
          StepChecks.count(step, "files bronze read again", 0, runs.bronze().files());
          StepChecks.count(step, "silver batches", 0, runs.silver().batches().size());
          StepChecks.count(step, "bronze rows in total", 5, lake.bronzeRows(null));
          checks.tables(step, List.of());
        });
  }

  private Rehearsal.StepSpec redeliveryIsAnExactRetry() {
    return new Rehearsal.StepSpec(
        "same events in another object",
        "The first object's 5 lines again, in another object. Bronze keeps what it receives"
            + " (5 more rows); silver sees only exact retries of what it holds.",
        step -> {
          lake.land(step, "day2/part-0002.json", FIRST_DELIVERY);
          jobs.runInProcess(step);
          step.expectedSilverRows = List.of(S201, S202);
          StepChecks.count(
              step, "bronze rows from part-0002.json", 5, lake.bronzeRows("part-0002.json"));
          StepChecks.count(step, "bronze rows in total", 10, lake.bronzeRows(null));
          checks.tables(step, List.of());
        });
  }

  private Rehearsal.StepSpec olderVersionIgnored() {
    return new Rehearsal.StepSpec(
        "an older version",
        "Order 201 at version 1, delivered again after silver holds version 3: ignored as"
            + " older.",
        step -> {
          lake.land(step, "day3/part-0003.json", List.of(R1));
          RehearsalJobs.Runs runs = jobs.runInProcess(step);
          step.expectedSilverRows = List.of(S201, S202);
          StepChecks.count(
              step,
              "older versions ignored by silver",
              1,
              runs.silver().total(BatchReport::olderIgnored));
          checks.tables(step, List.of());
        });
  }

  private Rehearsal.StepSpec conflictingEqualVersionQuarantined() {
    return new Rehearsal.StepSpec(
        "a conflicting equal version",
        "Order 202 at version 1 again but Cancelled instead of Created: the same key and"
            + " sequence with another payload. Quarantined; silver keeps Created.",
        step -> {
          lake.land(step, "day3/part-0004.json", List.of(C1X));
          jobs.runInProcess(step);
          step.expectedSilverRows = List.of(S201, S202);
          checks.tables(step, List.of(Q_CANCELLED_4));
        });
  }

  private Rehearsal.StepSpec bronzeCheckpointLossReingestsWithoutChangingSilver() {
    return new Rehearsal.StepSpec(
        "bronze checkpoint deleted",
        "The bronze checkpoint is deleted and the job runs again: bronze re-ingests all 4"
            + " objects still in the landing path (12 rows appended a second time, by"
            + " design). Silver sees exact retries and older versions, and key 202's"
            + " conflict again in one batch: the 3 re-ingested rows of 202 (two Created, one"
            + " Cancelled) are quarantined as new bronze rows; silver does not change.",
        step -> {
          step.checkpoints.set(
              0, "bronze " + pipeline.bronze().checkpoint() + " (deleted before the run)");
          lake.deleteBronzeCheckpoint(step);
          RehearsalJobs.Runs runs = jobs.runInProcess(step);
          step.expectedSilverRows = List.of(S201, S202);
          StepChecks.count(step, "files bronze re-ingested", 4, runs.bronze().files());
          StepChecks.count(step, "bronze rows in total", 24, lake.bronzeRows(null));
          checks.tables(step, Q_AFTER_RESET);
        });
  }

  private Rehearsal.StepSpec killedBronzeWriteLeavesNoDuplicates() {
    return new Rehearsal.StepSpec(
        "job killed in the middle of a bronze write, then restarted",
        "A new object (202 v2 Paid, new order 203 v1). A child job process ('replaysafe run')"
            + " is halted (exit 137, like kill -9) while bronze maps the batch's rows: after"
            + " the bronze checkpoint recorded the batch's offsets, before the Delta commit"
            + " and the checkpoint commit. The job is restarted on the same checkpoints.",
        step -> {
          lake.land(step, "day4/part-0005.json", List.of(C2, N1));
          RehearsalJobs.Child child = jobs.runChild(step, CrashPoints.BRONZE_MID_WRITE);
          StepChecks.count(step, "child exit code (killed at the crash point)", 137, child.exit());
          StepChecks.count(step, "bronze rows in total after the kill", 24, lake.bronzeRows(null));
          jobs.runInProcess(step);
          step.expectedSilverRows = List.of(S201, S202_PAID, S203);
          StepChecks.count(
              step,
              "bronze rows from part-0005.json after the restart (no duplicates)",
              2,
              lake.bronzeRows("part-0005.json"));
          StepChecks.count(step, "bronze rows in total", 26, lake.bronzeRows(null));
          checks.tables(step, Q_AFTER_RESET);
        });
  }

  private Rehearsal.StepSpec killedSilverMergeRolledBackAndReplayed() {
    return new Rehearsal.StepSpec(
        "job killed in the middle of a silver MERGE, then restarted",
        "A new object (203 v2 Shipped, 201 v4 DELETE). A child job process runs bronze, then"
            + " is halted (exit 137) right after silver's MERGE into the silver table"
            + " committed, before the tombstone MERGE, the run log and the silver checkpoint"
            + " commit. The restart rolls the interrupted batch back and replays it: silver"
            + " ends as before the kill and the delete's tombstone must be written.",
        step -> {
          lake.land(step, "day5/part-0006.json", List.of(N2, R4));
          RehearsalJobs.Child child = jobs.runChild(step, CrashPoints.SILVER_AFTER_MERGE);
          StepChecks.count(step, "child exit code (killed at the crash point)", 137, child.exit());
          StepChecks.count(
              step,
              "bronze rows from part-0006.json after the kill (bronze had committed)",
              2,
              lake.bronzeRows("part-0006.json"));
          step.notes.add("silver right after the kill: " + lake.silverRows());
          jobs.runInProcess(step);
          step.expectedSilverRows = List.of(S202_PAID, S203_SHIPPED);
          StepChecks.count(
              step,
              "bronze rows from part-0006.json after the restart (no duplicates)",
              2,
              lake.bronzeRows("part-0006.json"));
          StepChecks.count(step, "bronze rows in total", 28, lake.bronzeRows(null));
          checks.tables(step, Q_AFTER_RESET);
        });
  }

  private Rehearsal.StepSpec tombstoneKeepsDeletedKeyDeleted() {
    return new Rehearsal.StepSpec(
        "an older insert after the delete",
        "Order 201 v3 Shipped again, older than the delete at version 4 replayed in the"
            + " previous step: the tombstone written by the restart keeps 201 deleted.",
        step -> {
          lake.land(step, "day6/part-0007.json", List.of(R3));
          jobs.runInProcess(step);
          step.expectedSilverRows = List.of(S202_PAID, S203_SHIPPED);
          checks.tables(step, Q_AFTER_RESET);
        });
  }
}
