package io.replaysafe.rehearsal;

import java.util.ArrayList;
import java.util.List;

/** The assertions a step records: the tables against the rows written out for it, and counts. */
final class StepChecks {
  private final RehearsalLake lake;

  StepChecks(RehearsalLake lake) {
    this.lake = lake;
  }

  /** Silver against the step's expected rows, then the quarantine against {@code quarantine}. */
  void tables(RehearsalReport.Step step, List<String> quarantine) {
    silver(step);
    quarantine(step, quarantine);
  }

  void silver(RehearsalReport.Step step) {
    List<String> actual = lake.silverRows();
    step.actualSilverRows = actual;
    List<String> expected = step.expectedSilverRows.stream().sorted().toList();
    step.check("silver rows", expected.equals(actual), difference(expected, actual, "silver"));
  }

  void quarantine(RehearsalReport.Step step, List<String> expectedRows) {
    List<String> actual = lake.quarantineRows();
    step.quarantineRows = actual;
    List<String> expected = expectedRows.stream().sorted().toList();
    step.check(
        "quarantine rows", expected.equals(actual), difference(expected, actual, "quarantine"));
  }

  static void count(RehearsalReport.Step step, String what, long expected, long actual) {
    step.check(
        what,
        expected == actual,
        expected == actual
            ? "expected " + expected + ", was " + actual
            : "expected " + expected + " but was " + actual);
  }

  static String difference(List<String> expected, List<String> actual, String table) {
    if (expected.equals(actual)) {
      return table + " holds exactly the " + expected.size() + " expected row(s)";
    }
    List<String> missing = new ArrayList<>(expected);
    actual.forEach(missing::remove);
    List<String> unexpected = new ArrayList<>(actual);
    expected.forEach(unexpected::remove);
    return table
        + " differs from the expected rows: missing "
        + missing
        + ", unexpected "
        + unexpected;
  }
}
