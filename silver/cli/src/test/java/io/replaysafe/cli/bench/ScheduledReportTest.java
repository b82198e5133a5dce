package io.replaysafe.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.cli.bench.Measurement.Case;
import io.replaysafe.cli.bench.Measurement.Side;
import io.replaysafe.cli.bench.Measurement.Storage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's summary of the runs it made: with {@code --no-thousand} there is no 1,000-event
 * run to take a median of, and the summary says so instead of failing after every run was made.
 */
class ScheduledReportTest {
  @Test
  void withoutTheThousandEventRunsTheMediansAndTargetsOfTheOthersArePrinted() {
    List<Measurement> runs = new ArrayList<>();
    for (int round = 1; round <= 3; round++) {
      runs.add(run(Side.REPLAYSAFE, Case.TEN, round, 10 + round));
      runs.add(run(Side.HAND_WRITTEN, Case.TEN, round, 28 + round));
      runs.add(run(Side.REPLAYSAFE, Case.NOTHING, round, 3));
      runs.add(run(Side.HAND_WRITTEN, Case.NOTHING, round, 5));
    }
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    ScheduledReport report =
        new ScheduledReport(new PrintStream(printed, true, StandardCharsets.UTF_8));

    report.medians(runs, List.of(Storage.LOCAL));
    report.targets(runs, List.of(Storage.LOCAL), 20);

    String out = printed.toString(StandardCharsets.UTF_8);
    assertThat(out).doesNotContain("1,000 new  ");
    assertThat(out)
        .contains(
            "target local disk, 10 new events: replaysafe 12.0 s wall (target <= 20 s), 0.40x the"
                + " hand-written job's 30.0 s (target <= 0.35x): NOT MET")
        .contains("target local disk, 1,000 new events: not run (--no-thousand)");
  }

  private static Measurement run(Side side, Case c, int round, double wall) {
    return new Measurement(
        side,
        Storage.LOCAL,
        c,
        round,
        new TimedChild.Cost(wall, wall, 1024 * 1024),
        Map.of(),
        Map.of(),
        1.0,
        1.0,
        1.0,
        1.0);
  }
}
