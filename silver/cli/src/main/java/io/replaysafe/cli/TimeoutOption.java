package io.replaysafe.cli;

import io.replaysafe.common.config.ConfigErrors;
import io.replaysafe.common.config.SilverConfig;
import io.replaysafe.common.spark.RunDeadline;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;

/** The {@code --timeout DURATION} option of the commands that run jobs; one deadline per call. */
final class TimeoutOption {
  static final String DEFAULT = "4 hours";

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = DEFAULT,
      description =
          "Stop the run when it takes longer, e.g. '30 minutes', '2 hours'; exit code 5."
              + " Default: ${DEFAULT-VALUE}.")
  String timeout;

  private RunDeadline deadline;

  /** Runs {@code body} under the deadline, which starts at the first call. */
  <T> T bound(SparkSession spark, Supplier<T> body) {
    if (deadline == null) {
      Duration limit = SilverConfig.parseDuration("--timeout", timeout);
      if (limit.isZero()) {
        throw ConfigErrors.notLongerThanZero("--timeout", "30 minutes");
      }
      deadline = RunDeadline.after(limit);
    }
    return deadline.bound(spark, "The run", body);
  }
}
