package io.replaysafe.jobs;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.config.ConfigErrors;
import io.replaysafe.common.config.SilverConfig;
import io.replaysafe.common.config.TriggerConfig;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The arguments of the continuous cluster job ({@link PipelineMain}), parsed and validated: the
 * pipeline file and {@code --json} as every cluster job takes them ({@link JobArgs}), and how often
 * and how long a stop may take, as {@code replaysafe run --continuous} takes them.
 *
 * @param interval how often the queries look for new input; empty: the pipeline file's {@code
 *     trigger.interval}
 * @param stopTimeout how long a stop may wait for the batches in flight
 */
public record PipelineArgs(JobArgs job, Optional<Duration> interval, Duration stopTimeout) {
  static final String JOB = "pipeline";
  static final String STOP_TIMEOUT_DEFAULT = "2 minutes";

  /** Parses the job's arguments; a {@link ConfigException} names what is wrong and the usage. */
  public static PipelineArgs parse(String... args) {
    Spec spec = new Spec();
    CommandLine cli = new CommandLine(spec).setCommandName(JOB);
    try {
      cli.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      throw ConfigErrors.jobUsage(JOB, e.getMessage(), usage(), e);
    }
    if (spec.help) {
      return new PipelineArgs(new JobArgs(null, null, spec.json, true), Optional.empty(), null);
    }
    if (spec.config == null) {
      throw ConfigErrors.jobUsage(
          JOB,
          "the pipeline file is missing; give --config PATH or --config-inline YAML",
          usage(),
          null);
    }
    Duration stop = SilverConfig.parseDuration("--stop-timeout", spec.stopTimeout);
    if (stop.isZero()) {
      throw ConfigErrors.notLongerThanZero("--stop-timeout", "2 minutes");
    }
    return new PipelineArgs(
        new JobArgs(spec.config.path, spec.config.inline, spec.json, false),
        Optional.ofNullable(spec.interval)
            .map(text -> TriggerConfig.parseInterval("--interval", text)),
        stop);
  }

  /** One line of usage, for error messages and {@code --help}. */
  public static String usage() {
    return JOB
        + " (--config PATH | --config-inline YAML) [--interval DURATION] [--stop-timeout DURATION]"
        + " [--json]";
  }

  /** {@link JobArgs}'s options and the two of a continuous run. */
  @Command(mixinStandardHelpOptions = false)
  static final class Spec extends JobArgs.Spec {
    @Option(
        names = "--interval",
        paramLabel = "DURATION",
        description =
            "How often the queries look for new input, e.g. '10 seconds'; default: the pipeline"
                + " file's trigger.interval, else 1 minute.")
    String interval;

    @Option(
        names = "--stop-timeout",
        paramLabel = "DURATION",
        defaultValue = STOP_TIMEOUT_DEFAULT,
        description =
            "After SIGTERM or SIGINT, how long the batches in flight may take; past it, exit 5.")
    String stopTimeout;
  }
}
