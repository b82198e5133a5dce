package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash matrix's representative cases, in the default suite: the window between the silver
 * MERGE and the tombstone MERGE (current state), and the one between the events MERGE and the
 * history MERGE (history). {@link CrashMatrixFullTest} runs every point. Tagged {@code
 * crash-matrix} (run with {@code -Pcrash-matrix}) until it is measured green on a quiet machine:
 * each case takes minutes (a child JVM and two scenario runs), more on a loaded one.
 */
@Tag("crash-matrix")
class CrashMatrixTest extends SparkTestBase {
  @TempDir Path dir;

  /**
   * One line per case in {@code target/crash-matrix-progress.txt} (written as each case ends), so a
   * matrix stopped part-way still says which cases converged.
   */
  static void assertConverges(Path dir, String scenario, String step, String point)
      throws Exception {
    long started = System.nanoTime();
    String outcome = "FAILED";
    try {
      converges(dir, scenario, step, point);
      outcome = "converged";
    } finally {
      String line =
          String.format(
              "%s %s: crash at %s during '%s': %s in %d s%n",
              java.time.Instant.now(),
              scenario,
              point,
              step,
              outcome,
              (System.nanoTime() - started) / 1_000_000_000L);
      Files.writeString(
          Path.of("target", "crash-matrix-progress.txt"),
          line,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    }
  }

  /**
   * As {@link #assertConverges}, with a scheduled run between the crash and the rerun: the tables
   * must equal a fault-free sequence that ran it just before the crashed step.
   */
  static void assertConvergesWithRunBetween(Path dir, String scenario, String step, String point)
      throws Exception {
    Map<String, List<String>> expected =
        CrashScenarios.faultFree(
            spark, dir, scenario, step, true, CrashScenarios.rerunIsASecondCommand(step, point));
    CrashMatrix.Pipeline p =
        CrashMatrix.create(
            spark,
            dir.resolve(scenario + "-" + point + "-between"),
            CrashScenarios.silverYaml(scenario));
    Map<String, List<String>> actual =
        CrashMatrix.crashedWithBetween(
            p,
            CrashScenarios.steps(scenario),
            CrashScenarios.stepIndex(scenario, step),
            point,
            CrashScenarios.RUN_BETWEEN);
    for (String table : expected.keySet()) {
      assertThat(actual.get(table))
          .as(
              "%s after a crash at %s during '%s', a scheduled run, and a rerun",
              table, point, step)
          .containsExactlyElementsOf(expected.get(table));
    }
  }

  private static void converges(Path dir, String scenario, String step, String point)
      throws Exception {
    Map<String, List<String>> expected =
        CrashScenarios.faultFree(
            spark, dir, scenario, step, false, CrashScenarios.rerunIsASecondCommand(step, point));
    CrashMatrix.Pipeline p =
        CrashMatrix.create(
            spark, dir.resolve(scenario + "-" + point), CrashScenarios.silverYaml(scenario));
    Map<String, List<String>> actual =
        CrashMatrix.crashed(
            p, CrashScenarios.steps(scenario), CrashScenarios.stepIndex(scenario, step), point);
    for (String table : expected.keySet()) {
      assertThat(actual.get(table))
          .as("%s after a crash at %s during '%s' and a rerun", table, point, step)
          .containsExactlyElementsOf(expected.get(table));
    }
  }

  @Test
  void currentStateConvergesAfterACrashBetweenTheSilverAndTheTombstoneMerge() throws Exception {
    assertConverges(dir, CrashScenarios.SCD1, "delivery 2", CrashPoints.SILVER_AFTER_MERGE);
  }

  @Test
  void historyConvergesAfterACrashBetweenTheEventsAndTheHistoryMerge() throws Exception {
    assertConverges(dir, CrashScenarios.SCD2, "delivery 2", CrashPoints.SILVER_AFTER_EVENTS_MERGE);
  }
}
