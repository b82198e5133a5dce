package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every crash point of the crash matrix, each killing a child JVM at that point during the step
 * that reaches it, then rerunning: the tables must equal the fault-free run's. Slow (one child JVM
 * per case), so it runs only with {@code -Pcrash-matrix}.
 */
@Tag("crash-matrix")
class CrashMatrixFullTest extends SparkTestBase {
  @TempDir Path dir;

  static Stream<Arguments> cases() {
    String scd1 = CrashScenarios.SCD1;
    String scd2 = CrashScenarios.SCD2;
    String delivery = "delivery 2";
    Stream<Arguments> currentState =
        Stream.of(
                CrashPoints.BRONZE_AFTER_FILE_STATE_PLAN,
                CrashPoints.BRONZE_MID_WRITE,
                CrashPoints.BRONZE_BEFORE_CHECKPOINT_COMMIT,
                CrashPoints.BRONZE_AFTER_FILE_STATE_COMMIT,
                CrashPoints.BRONZE_AFTER_CHECKPOINT_COMMIT,
                CrashPoints.SILVER_AFTER_QUARANTINE,
                CrashPoints.SILVER_AFTER_TRUNCATE_WATERMARK,
                CrashPoints.SILVER_AFTER_MERGE,
                CrashPoints.SILVER_AFTER_TOMBSTONE_MERGE,
                CrashPoints.SILVER_AFTER_RUN_LOG,
                CrashPoints.SILVER_BEFORE_CHECKPOINT_COMMIT)
            .map(point -> Arguments.of(scd1, delivery, point));
    Stream<Arguments> history =
        Stream.of(
                CrashPoints.SILVER_AFTER_QUARANTINE,
                CrashPoints.SILVER_AFTER_EVENTS_MERGE,
                CrashPoints.SILVER_AFTER_MERGE,
                CrashPoints.SILVER_AFTER_RUN_LOG,
                CrashPoints.SILVER_BEFORE_CHECKPOINT_COMMIT)
            .map(point -> Arguments.of(scd2, delivery, point));
    // The listing's ranges (issue 26): the children list with one file a range, so the third
    // delivery's run is the first to record them, and the fourth's plans its new file into a range
    // the record does not hold while every other range is passed over.
    Stream<Arguments> listedRanges =
        Stream.of(
            Arguments.of(scd1, "delivery 3", CrashPoints.BRONZE_AFTER_LISTED_RANGES),
            Arguments.of(scd1, "delivery 4", CrashPoints.BRONZE_AFTER_FILE_STATE_PLAN),
            Arguments.of(scd1, "delivery 4", CrashPoints.BRONZE_AFTER_LISTED_RANGES));
    Stream<Arguments> operations =
        Stream.of(
            Arguments.of(scd1, "release", CrashPoints.SILVER_AFTER_MERGE),
            Arguments.of(scd1, "release", CrashPoints.SILVER_AFTER_RUN_LOG),
            Arguments.of(scd1, "release", CrashPoints.QUARANTINE_BEFORE_DECISION),
            Arguments.of(scd1, "release", CrashPoints.QUARANTINE_AFTER_DECISION),
            Arguments.of(scd1, "discard", CrashPoints.QUARANTINE_AFTER_DECISION),
            Arguments.of(scd1, "reconcile", CrashPoints.SILVER_AFTER_MERGE),
            Arguments.of(scd1, "reconcile", CrashPoints.SILVER_AFTER_TOMBSTONE_MERGE),
            Arguments.of(scd1, "repair", CrashPoints.SILVER_AFTER_RUN_LOG),
            Arguments.of(scd2, "discard", CrashPoints.QUARANTINE_AFTER_DECISION),
            Arguments.of(scd1, "erase", CrashPoints.ERASE_AFTER_ERASURES),
            Arguments.of(scd1, "erase", CrashPoints.ERASE_AFTER_SILVER),
            Arguments.of(scd1, "erase", CrashPoints.ERASE_AFTER_BRONZE),
            Arguments.of(scd2, "erase", CrashPoints.ERASE_AFTER_SILVER));
    // -Dreplaysafe.crashMatrix.only=REGEX keeps the cases whose name (scenario, step, point) it
    // finds, e.g. 'quarantine-after-decision|bronze-' to rerun the cases that failed.
    java.util.regex.Pattern only =
        java.util.regex.Pattern.compile(System.getProperty("replaysafe.crashMatrix.only", ""));
    return Stream.of(listedRanges, currentState, history, operations)
        .flatMap(s -> s)
        .filter(a -> only.matcher(java.util.Arrays.toString(a.get())).find());
  }

  /**
   * Each operation killed at each of its silver write boundaries, then a scheduled run (which
   * writes silver), then the operation's rerun: the run must undo what the operation left part-way
   * across all of its tables before it writes (issue 24's atomic operations).
   */
  static Stream<Arguments> casesWithARunBetween() {
    String scd1 = CrashScenarios.SCD1;
    java.util.regex.Pattern only =
        java.util.regex.Pattern.compile(System.getProperty("replaysafe.crashMatrix.only", ""));
    return Stream.of(
            Arguments.of(scd1, "release", CrashPoints.SILVER_AFTER_MERGE),
            Arguments.of(scd1, "release", CrashPoints.SILVER_AFTER_RUN_LOG),
            Arguments.of(scd1, "reconcile", CrashPoints.SILVER_AFTER_MERGE),
            Arguments.of(scd1, "reconcile", CrashPoints.SILVER_AFTER_TOMBSTONE_MERGE),
            Arguments.of(scd1, "repair", CrashPoints.SILVER_AFTER_MERGE),
            Arguments.of(scd1, "repair", CrashPoints.SILVER_AFTER_RUN_LOG),
            Arguments.of(scd1, "erase", CrashPoints.ERASE_AFTER_SILVER),
            Arguments.of(CrashScenarios.SCD2, "erase", CrashPoints.ERASE_AFTER_SILVER))
        .filter(a -> only.matcher("between " + java.util.Arrays.toString(a.get())).find());
  }

  /**
   * Notification mode ({@link NotificationCrashScenario}): every bronze write boundary of its
   * backfill run, including the two only notification mode has (the messages deleted, the backfill
   * recorded); the boundaries around the messages of the run that reads only the queue (a crash
   * before the delete redelivers them, duplicates and test event included); the first run's plan
   * and backfill record. Selected by the same filter, under the scenario's name: {@code
   * -Dreplaysafe.crashMatrix.only=notify-}.
   */
  static Stream<Arguments> notificationCases() {
    String notify = NotificationCrashScenario.NAME;
    java.util.regex.Pattern only =
        java.util.regex.Pattern.compile(System.getProperty("replaysafe.crashMatrix.only", ""));
    // The new write boundaries first, so a matrix stopped part-way has covered them.
    Stream<Arguments> backfillRun =
        Stream.of(
                CrashPoints.BRONZE_AFTER_FILE_STATE_PLAN,
                CrashPoints.BRONZE_AFTER_FILE_STATE_COMMIT,
                CrashPoints.BRONZE_AFTER_MESSAGES_DELETED,
                CrashPoints.BRONZE_AFTER_BACKFILL_RECORDED)
            .map(point -> Arguments.of(notify, "delivery 3", point));
    Stream<Arguments> queueOnlyRun =
        Stream.of(
                CrashPoints.BRONZE_AFTER_FILE_STATE_PLAN,
                CrashPoints.BRONZE_AFTER_FILE_STATE_COMMIT,
                CrashPoints.BRONZE_AFTER_MESSAGES_DELETED)
            .map(point -> Arguments.of(notify, "delivery 2", point));
    Stream<Arguments> firstRun =
        Stream.of(
                CrashPoints.BRONZE_AFTER_FILE_STATE_PLAN,
                CrashPoints.BRONZE_AFTER_BACKFILL_RECORDED)
            .map(point -> Arguments.of(notify, "delivery 1", point));
    Stream<Arguments> listingPoints =
        Stream.of(
                CrashPoints.BRONZE_MID_WRITE,
                CrashPoints.BRONZE_BEFORE_CHECKPOINT_COMMIT,
                CrashPoints.BRONZE_AFTER_CHECKPOINT_COMMIT)
            .map(point -> Arguments.of(notify, "delivery 3", point));
    return Stream.of(backfillRun, queueOnlyRun, firstRun, listingPoints)
        .flatMap(s -> s)
        .filter(a -> only.matcher(java.util.Arrays.toString(a.get())).find());
  }

  @AfterAll
  static void stopNotificationEndpoints() {
    NotificationCrashScenario.stopServer();
  }

  // Zero invocations allowed: -Dreplaysafe.crashMatrix.only may select the cases of one method.
  @ParameterizedTest(
      name = "{0}: crash at {2} during ''{1}'', a scheduled run, the rerun",
      allowZeroInvocations = true)
  @MethodSource("casesWithARunBetween")
  void convergesWithARunBetweenTheCrashAndTheRerun(String scenario, String step, String point)
      throws Exception {
    CrashMatrixTest.assertConvergesWithRunBetween(dir, scenario, step, point);
  }

  @ParameterizedTest(name = "{0}: crash at {2} during ''{1}''", allowZeroInvocations = true)
  @MethodSource("cases")
  void convergesToTheFaultFreeTables(String scenario, String step, String point) throws Exception {
    CrashMatrixTest.assertConverges(dir, scenario, step, point);
  }

  /**
   * The crashed run's restart converges: every table and the file state equal the fault-free run's,
   * each file is in bronze once, and the queue ends empty (the messages a crash before their delete
   * left come back, and are deleted). One line in {@code target/crash-matrix-progress.txt}, as the
   * other cases.
   */
  @ParameterizedTest(name = "{0}: crash at {2} during ''{1}''", allowZeroInvocations = true)
  @MethodSource("notificationCases")
  void notificationModeConvergesToTheFaultFreeTables(String scenario, String step, String point)
      throws Exception {
    long started = System.nanoTime();
    String outcome = "FAILED";
    try {
      Map<String, List<String>> expected = NotificationCrashScenario.faultFree(spark, dir);
      CrashMatrix.Pipeline p =
          NotificationCrashScenario.create(
              spark, dir.resolve(scenario + "-" + step.replace(' ', '-') + "-" + point));
      try {
        Map<String, List<String>> actual =
            CrashMatrix.crashed(
                p,
                NotificationCrashScenario.steps(),
                NotificationCrashScenario.stepIndex(step),
                point);
        for (String table : expected.keySet()) {
          assertThat(actual.get(table))
              .as("%s after a crash at %s during '%s' and a rerun", table, point, step)
              .containsExactlyElementsOf(expected.get(table));
        }
        NotificationCrashScenario.assertFoundAsDescribed(p);
      } finally {
        NotificationCrashScenario.close(p);
      }
      outcome = "converged";
    } finally {
      Files.writeString(
          Path.of("target", "crash-matrix-progress.txt"),
          String.format(
              "%s %s: crash at %s during '%s': %s in %d s%n",
              java.time.Instant.now(),
              scenario,
              point,
              step,
              outcome,
              (System.nanoTime() - started) / 1_000_000_000L),
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    }
  }
}
