package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Housekeeping a long-running pipeline does for itself ({@code maintenance: {optimizeEvery: 1 day,
 * vacuumRetention: 7 days}}): OPTIMIZE of every Delta table of the pipeline once {@code
 * optimizeEvery} has passed since the last one, and at the same cadence a VACUUM that keeps {@code
 * vacuumRetention}, between batches and under the writer's lease, as {@code replaysafe maintain
 * --optimize --vacuum RETENTION} does. Absent: no housekeeping; {@code replaysafe maintain} is then
 * the way.
 *
 * @param optimizeEvery the cadence of OPTIMIZE (and VACUUM); empty: no housekeeping
 * @param vacuumRetention the VACUUM retention; empty: OPTIMIZE only. Checked against the tables at
 *     each round, not here: Delta's {@code deletedFileRetentionDuration}, silver's lag and {@code
 *     silver.tombstoneRetention} decide, and a refused VACUUM is reported, never fatal
 */
public record MaintenanceConfig(
    Optional<Duration> optimizeEvery, Optional<Duration> vacuumRetention) {
  public static final MaintenanceConfig NONE =
      new MaintenanceConfig(Optional.empty(), Optional.empty());

  @JsonCreator
  public static MaintenanceConfig of(
      @Help(
              value =
                  "How often a running pipeline compacts its Delta tables (OPTIMIZE of bronze, silver and their side tables), between batches, e.g. '1 day'; the time of the last one is kept in silver's table, so a restart does not start over.",
              type = "duration",
              defaultValue = "none")
          @JsonProperty("optimizeEvery")
          String optimizeEvery,
      @Help(
              value =
                  "With optimizeEvery: VACUUM every table at the same cadence keeping this much, e.g. '7 days'; a retention shorter than Delta's deletedFileRetentionDuration, silver's lag or tombstoneRetention is refused, reported once, and the pipeline keeps running.",
              type = "duration",
              defaultValue = "none")
          @JsonProperty("vacuumRetention")
          String vacuumRetention) {
    return new MaintenanceConfig(
        Optional.ofNullable(optimizeEvery)
            .map(
                text ->
                    atLeast("maintenance.optimizeEvery", text, Duration.ofSeconds(1), "'1 day'")),
        Optional.ofNullable(vacuumRetention)
            // VACUUM keeps whole hours (RETAIN n HOURS): less would round down to none at all.
            .map(
                text ->
                    atLeast("maintenance.vacuumRetention", text, Duration.ofHours(1), "'7 days'")));
  }

  public MaintenanceConfig {
    Objects.requireNonNull(optimizeEvery, "optimizeEvery");
    Objects.requireNonNull(vacuumRetention, "vacuumRetention");
    if (vacuumRetention.isPresent() && optimizeEvery.isEmpty()) {
      throw ConfigErrors.rule(
          "maintenance.vacuumRetention is set without maintenance.optimizeEvery",
          "set maintenance.optimizeEvery (e.g. '1 day'): VACUUM runs at its cadence");
    }
  }

  /** True when the pipeline does its own housekeeping. */
  public boolean enabled() {
    return optimizeEvery.isPresent();
  }

  private static Duration atLeast(String key, String text, Duration least, String example) {
    Duration d = SilverConfig.parseDuration(key, text);
    if (d.compareTo(least) < 0) {
      throw ConfigErrors.badValue(
          key,
          text,
          "is shorter than " + (least.toHours() > 0 ? "an hour" : "a second"),
          "write e.g. " + example);
    }
    return d;
  }
}
