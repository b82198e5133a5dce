package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.util.Arrays;

/**
 * How the pipeline's jobs are triggered ({@code trigger: {mode: availableNow | continuous,
 * interval: '1 minute'}}): once per command, reading everything new and stopping (a scheduler
 * starts each run), or one long-running process whose queries start a micro-batch every interval.
 * The command line's {@code --continuous}, {@code --available-now} and {@code --interval} win over
 * the file.
 *
 * @param mode availableNow (default) or continuous
 * @param interval how often a continuous query looks for new input; default 1 minute
 */
public record TriggerConfig(Mode mode, Duration interval) {
  public static final Duration INTERVAL_DEFAULT = Duration.ofMinutes(1);
  public static final TriggerConfig DEFAULT =
      new TriggerConfig(Mode.AVAILABLE_NOW, INTERVAL_DEFAULT);

  /** The two ways of running, by the names Auto Loader and the pipeline file use. */
  public enum Mode {
    AVAILABLE_NOW("availableNow"),
    CONTINUOUS("continuous");

    private final String yamlName;

    Mode(String yamlName) {
      this.yamlName = yamlName;
    }

    public String yamlName() {
      return yamlName;
    }

    static Mode parse(String text) {
      return Arrays.stream(values())
          .filter(m -> m.yamlName.equals(text))
          .findFirst()
          .orElseThrow(
              () ->
                  ConfigErrors.unknownValue(
                      "trigger.mode", text, Arrays.stream(values()).map(Mode::yamlName).toList()));
    }
  }

  @JsonCreator
  public static TriggerConfig of(
      @Help(
              value =
                  "availableNow: each bronze, silver or run command reads everything new and stops; continuous: it keeps running, a micro-batch every interval, until SIGTERM or SIGINT.",
              type = "availableNow | continuous",
              defaultValue = "availableNow")
          @JsonProperty("mode")
          String mode,
      @Help(
              value =
                  "How often a continuous query looks for new input, at least 1 second, e.g. '10 seconds'.",
              type = "duration",
              defaultValue = "1 minute")
          @JsonProperty("interval")
          String interval) {
    return new TriggerConfig(
        mode == null ? Mode.AVAILABLE_NOW : Mode.parse(mode),
        interval == null ? INTERVAL_DEFAULT : parseInterval("trigger.interval", interval));
  }

  public TriggerConfig {
    if (mode == null || interval == null) {
      throw new IllegalArgumentException("mode and interval are required");
    }
  }

  public boolean continuous() {
    return mode == Mode.CONTINUOUS;
  }

  /**
   * A trigger interval as written ({@code '10 seconds'}, {@code '1 minute'}): at least a second, so
   * a query that finds nothing new does not list the source many times a second.
   */
  public static Duration parseInterval(String where, String text) {
    Duration interval = SilverConfig.parseDuration(where, text);
    if (interval.toSeconds() < 1) {
      throw ConfigErrors.badValue(
          where, text, "is shorter than a second", "write e.g. '10 seconds' or '1 minute'");
    }
    return interval;
  }

  /** "continuous every 10 second(s)" or "availableNow". */
  public String describe() {
    return continuous()
        ? "continuous every " + interval.toSeconds() + " second(s)"
        : mode.yamlName();
  }
}
