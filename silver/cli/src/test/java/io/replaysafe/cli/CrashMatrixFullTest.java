package io.replaysafe.cli;

import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.stream.Stream;
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
    return Stream.of(currentState, history, operations)
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

  @ParameterizedTest(name = "{0}: crash at {2} during ''{1}'', a scheduled run, the rerun")
  @MethodSource("casesWithARunBetween")
  void convergesWithARunBetweenTheCrashAndTheRerun(String scenario, String step, String point)
      throws Exception {
    CrashMatrixTest.assertConvergesWithRunBetween(dir, scenario, step, point);
  }

  @ParameterizedTest(name = "{0}: crash at {2} during ''{1}''")
  @MethodSource("cases")
  void convergesToTheFaultFreeTables(String scenario, String step, String point) throws Exception {
    CrashMatrixTest.assertConverges(dir, scenario, step, point);
  }
}
