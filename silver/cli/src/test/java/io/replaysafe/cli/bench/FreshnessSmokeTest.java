package io.replaysafe.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code scripts/bench-freshness}'s code path for two minutes, local disk, continuous mode only
 * (issue 27, item 8): the generator lands a file every 5 s while {@code replaysafe run --continuous
 * --interval '10 seconds'} runs in a child JVM, which is stopped with SIGTERM once silver read
 * every event. It asserts outcomes, never timings: the run stopped cleanly, silver equals the
 * generator's oracle (each key's latest version, deletes honoured, older versions and replays
 * ignored), every event has a freshness figure, and the driver's heap and RSS were sampled.
 */
@Tag("slow")
class FreshnessSmokeTest extends SparkTestBase {
  @Test
  void twoMinutesOfDeliveriesEndInTheOraclesStateWithAFigurePerEvent() throws Exception {
    FreshnessBenchmark.Options options =
        FreshnessBenchmark.Options.parse(
            new String[] {"--minutes", "2", "--interval", "10 seconds", "--continuous-only"});

    FreshnessBenchmark.Outcome outcome =
        FreshnessBenchmark.run(options, FreshnessSmokeTest::childJvm, System.out);

    assertThat(outcome.measured()).hasSize(1);
    FreshnessBenchmark.Measured m = outcome.measured().get(0);
    FreshnessEvents events = m.result().events();
    // 2 minutes, a file every 5 s: about 24 files of 200 events, each kind of event among them.
    assertThat(events.files()).isGreaterThanOrEqualTo(20);
    assertThat(events.kinds().values()).allSatisfy(n -> assertThat(n).isPositive());
    assertThat(m.figures().silverAgrees()).as(m.figures().silverLine()).isTrue();
    assertThat(m.figures().expectedRows()).isPositive();
    assertThat(m.figures().missing()).as(m.figures().line()).isZero();
    assertThat(m.figures().seconds()).hasSize(events.events().size());
    assertThat(m.figures().byRow()).isPositive();
    assertThat(m.figures().byBatch()).isPositive();
    assertThat(m.figures().negative()).as("freshness figures below zero").isZero();
    assertThat(m.result().batches()).isPositive();
    assertThat(m.result().memory()).hasSize(3);
    assertThat(m.result().memory())
        .allSatisfy(
            s -> {
              assertThat(s.heapKiB()).isPositive();
              assertThat(s.rssKiB()).isPositive();
            });
    assertThat(outcome.exitCode()).isZero();
  }

  /** {@code replaysafe ARGS} in a child JVM with this JVM's module flags and class path. */
  private static ProcessBuilder childJvm(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.add("-Xmx1g");
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens")
          || arg.startsWith("--add-exports")
          || arg.startsWith("-Djdk.reflect.")
          || arg.startsWith("-Dio.netty.")) {
        command.add(arg);
      }
    }
    command.add("-Dreplaysafe.sparkLogLevel=ERROR");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("io.replaysafe.cli.Main");
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    builder.environment().remove("SPARK_HOME");
    return builder;
  }
}
