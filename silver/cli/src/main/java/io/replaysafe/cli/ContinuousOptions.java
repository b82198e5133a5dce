package io.replaysafe.cli;

import io.replaysafe.common.config.ConfigErrors;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SilverConfig;
import io.replaysafe.common.config.TriggerConfig;
import io.replaysafe.jobs.ContinuousPipeline;
import io.replaysafe.jobs.PipelineRun.Layer;
import java.time.Duration;
import java.util.Set;
import picocli.CommandLine.Option;

/**
 * The options of a long-running job ({@code bronze}, {@code silver}, {@code run}): whether to run
 * continuously and how often, and when to end. The command line wins over the pipeline file's
 * {@code trigger}; this is the one place that decides.
 */
final class ContinuousOptions {
  static final String STOP_TIMEOUT_DEFAULT = "2 minutes";

  @Option(
      names = "--continuous",
      description =
          "Keep running: the queries start a micro-batch every --interval until SIGTERM or SIGINT"
              + " (or --max-batches, --until). Default: the pipeline file's trigger.mode.")
  boolean continuous;

  @Option(
      names = "--available-now",
      description =
          "Run once and stop (availableNow), even when the pipeline file's trigger.mode is"
              + " continuous.")
  boolean availableNow;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      description =
          "How often a continuous query looks for new input, e.g. '10 seconds', '1 minute'."
              + " Default: the pipeline file's trigger.interval, else 1 minute.")
  String interval;

  @Option(
      names = "--stop-timeout",
      paramLabel = "DURATION",
      defaultValue = STOP_TIMEOUT_DEFAULT,
      description =
          "After SIGTERM or SIGINT, how long the batches in flight may take to finish and commit;"
              + " past it the run stops where it is, exit 5. Default: ${DEFAULT-VALUE}.")
  String stopTimeout;

  @Option(
      names = "--max-batches",
      paramLabel = "N",
      description =
          "Stop a continuous run after N micro-batches (that read rows) of its last layer.")
  Long maxBatches;

  @Option(
      names = "--until",
      paramLabel = "DURATION",
      description = "Stop a continuous run this long after it started, e.g. '8 hours'.")
  String until;

  /** The trigger this command runs with: the pipeline file's, overridden by the command line. */
  TriggerConfig trigger(PipelineConfig pipeline) {
    if (continuous && availableNow) {
      throw CliErrors.continuousAndAvailableNow();
    }
    TriggerConfig file = pipeline.trigger();
    TriggerConfig.Mode mode =
        continuous
            ? TriggerConfig.Mode.CONTINUOUS
            : availableNow ? TriggerConfig.Mode.AVAILABLE_NOW : file.mode();
    Duration every =
        interval == null ? file.interval() : TriggerConfig.parseInterval("--interval", interval);
    TriggerConfig chosen = new TriggerConfig(mode, every);
    if (!chosen.continuous() && (maxBatches != null || until != null || interval != null)) {
      throw CliErrors.continuousOptionsWithoutContinuous();
    }
    return chosen;
  }

  /** What a continuous run of {@code layers} runs and when it ends. */
  ContinuousPipeline.Settings settings(Set<Layer> layers) {
    if (maxBatches != null && maxBatches < 1) {
      throw CliErrors.tooFewBatches(maxBatches);
    }
    Duration stop = SilverConfig.parseDuration("--stop-timeout", stopTimeout);
    if (stop.isZero()) {
      throw ConfigErrors.notLongerThanZero("--stop-timeout", "2 minutes");
    }
    Duration end = until == null ? null : SilverConfig.parseDuration("--until", until);
    if (end != null && end.isZero()) {
      throw ConfigErrors.notLongerThanZero("--until", "10 minutes");
    }
    return new ContinuousPipeline.Settings(layers, maxBatches == null ? 0 : maxBatches, end, stop);
  }
}
