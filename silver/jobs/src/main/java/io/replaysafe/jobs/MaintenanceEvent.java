package io.replaysafe.jobs;

import io.replaysafe.silver.ops.Maintain;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One round of a pipeline's housekeeping ({@link Housekeeping}), as its line on stderr and its JSON
 * line with {@code --json}: files compacted per table, the VACUUM's files removed or why it was
 * refused, seconds.
 *
 * @param compacted files OPTIMIZE compacted, per table name, in {@code maintain}'s order
 * @param vacuumed files VACUUM removed, per table; null when no VACUUM ran
 * @param retention the VACUUM retention asked for; null when none
 * @param vacuumRefused why the VACUUM was refused; null when it ran or none was asked for
 * @param refusedAgain true when the same refusal was already reported: the reason is not repeated
 */
public record MaintenanceEvent(
    String pipeline,
    Map<String, Long> compacted,
    Map<String, Long> vacuumed,
    Duration retention,
    String vacuumRefused,
    boolean refusedAgain,
    double seconds,
    Instant at) {

  static MaintenanceEvent of(
      String pipeline,
      Maintain.Round round,
      Duration retention,
      boolean refusedAgain,
      double seconds,
      Instant at) {
    Map<String, Long> compacted = new LinkedHashMap<>();
    Map<String, Long> vacuumed = new LinkedHashMap<>();
    for (Maintain.TableResult t : round.tables()) {
      compacted.put(t.table(), t.filesCompacted());
      if (t.filesVacuumed() != null) {
        vacuumed.put(t.table(), t.filesVacuumed());
      }
    }
    boolean vacuumRan = retention != null && round.vacuumRefused().isEmpty();
    return new MaintenanceEvent(
        pipeline,
        compacted,
        vacuumRan ? vacuumed : null,
        retention,
        round.vacuumRefused().orElse(null),
        refusedAgain,
        seconds,
        at);
  }

  /**
   * {@code maintenance orders: OPTIMIZE 9 table(s), 12 file(s) compacted; VACUUM refused: Cannot
   * VACUUM ...; 4.2 s}.
   */
  public String line() {
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "maintenance %s: OPTIMIZE %d table(s), %d file(s) compacted",
                pipeline,
                compacted.size(),
                compacted.values().stream().mapToLong(n -> n == null ? 0 : n).sum()));
    if (vacuumed != null) {
      line.append(
          String.format(
              Locale.ROOT,
              "; VACUUM keeping %s: %d file(s) removed",
              Maintain.asOption(retention),
              vacuumed.values().stream().mapToLong(Long::longValue).sum()));
    } else if (vacuumRefused != null) {
      line.append(
          refusedAgain
              ? "; VACUUM refused again (the reason was reported before)"
              : "; VACUUM refused: " + vacuumRefused);
    }
    line.append(String.format(Locale.ROOT, "; %.1f s", seconds));
    return line.toString();
  }

  /** The JSON line's fields, in a stable order. */
  public Map<String, Object> toMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("event", "maintenance");
    map.put("pipeline", pipeline);
    map.put("compacted", compacted);
    map.put("vacuumRetention", retention == null ? null : Maintain.asOption(retention));
    map.put("vacuumed", vacuumed);
    map.put("vacuumRefused", refusedAgain ? "again" : vacuumRefused);
    map.put("seconds", Math.round(seconds * 1000) / 1000.0);
    map.put("at", at.toString());
    return map;
  }
}
