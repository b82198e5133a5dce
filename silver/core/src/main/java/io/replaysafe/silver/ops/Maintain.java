package io.replaysafe.silver.ops;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.ConfigException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.silver.ContractHistory;
import io.replaysafe.silver.KeyPages;
import io.replaysafe.silver.SilverCheckpoint;
import io.replaysafe.silver.SilverContract;
import io.replaysafe.silver.SilverErrors;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code replaysafe maintain}: OPTIMIZE (compaction of the small files a year of small batches
 * leaves) and VACUUM (removal of the files no version within the retention needs) on every Delta
 * table of the pipeline: bronze and its side tables, silver and its side tables. A VACUUM retention
 * is refused when it is shorter than any of:
 *
 * <ul>
 *   <li>a table's {@code delta.deletedFileRetentionDuration} (Delta's own safety check, 7 days by
 *       default), which concurrent readers and time travel rely on;
 *   <li>silver's lag: the age of the oldest bronze commit silver has not read yet, whose files its
 *       next run reads through the change feed;
 *   <li>{@code tombstoneRetention}: the rollback of an interrupted batch restores silver's tables
 *       to an earlier version, and a delete is kept that long anyway.
 * </ul>
 */
public final class Maintain {
  /** Delta's default of {@code delta.deletedFileRetentionDuration}. */
  static final Duration DELTA_DEFAULT_RETENTION = Duration.ofDays(7);

  private final PipelineConfig config;
  private final SparkSession spark;

  public Maintain(PipelineConfig config, SparkSession spark) {
    this.config = config;
    this.spark = spark;
  }

  /** What was done to one table. */
  public record TableResult(String table, String path, Long filesCompacted, Long filesVacuumed) {}

  /**
   * @param bronzeSideTables bronze's own side tables by name (bad files, file state), which the
   *     bronze module knows
   * @param vacuum the VACUUM retention, or null for no VACUUM
   */
  public List<TableResult> execute(
      Map<String, String> bronzeSideTables, boolean optimize, Duration vacuum) {
    Map<String, String> tables =
        tables(OpsContext.open(config, spark).recoverInFlight().contract(), bronzeSideTables);
    if (vacuum != null) {
      Optional<ConfigException> refused = refusal(vacuum, tables, VACUUM_OPTION);
      if (refused.isPresent()) {
        throw refused.get();
      }
    }
    return run(tables, optimize, vacuum);
  }

  /**
   * A round of a pipeline's own housekeeping ({@code maintenance:} in the pipeline file).
   *
   * @param vacuumRefused why the VACUUM was not run (the same rules as {@code --vacuum}, the fix
   *     naming {@code maintenance.vacuumRetention}); empty when it ran or none was asked for
   */
  public record Round(List<TableResult> tables, Optional<String> vacuumRefused) {}

  /**
   * OPTIMIZE of every table, then, unless a rule refuses the retention, VACUUM keeping {@code
   * vacuum} (null: none). A refusal is returned, not thrown: the tables are compacted anyway, and a
   * running pipeline goes on. The round's time {@code at} is recorded on silver's table ({@link
   * #lastOptimize}).
   */
  public Round scheduled(Map<String, String> bronzeSideTables, Duration vacuum, Instant at) {
    Map<String, String> tables =
        tables(OpsContext.open(config, spark).recoverInFlight().contract(), bronzeSideTables);
    List<TableResult> optimized = run(tables, true, null);
    recordOptimize(at);
    if (vacuum == null) {
      return new Round(optimized, Optional.empty());
    }
    Optional<ConfigException> refused = refusal(vacuum, tables, SCHEDULED_OPTION);
    if (refused.isPresent()) {
      return new Round(optimized, Optional.of(refused.get().getMessage()));
    }
    List<TableResult> vacuumed = run(tables, false, vacuum);
    List<TableResult> both = new ArrayList<>();
    for (int i = 0; i < optimized.size(); i++) {
      TableResult o = optimized.get(i);
      both.add(
          new TableResult(
              o.table(), o.path(), o.filesCompacted(), vacuumed.get(i).filesVacuumed()));
    }
    return new Round(both, Optional.empty());
  }

  private List<TableResult> run(Map<String, String> tables, boolean optimize, Duration vacuum) {
    // OPTIMIZE rewrites silver's files: in the small pages its runs write (bronze's tables
    // compacted here get them too; only the page size differs).
    try (KeyPages pages = KeyPages.apply(spark)) {
      return runEach(tables, optimize, vacuum);
    }
  }

  private List<TableResult> runEach(Map<String, String> tables, boolean optimize, Duration vacuum) {
    List<TableResult> results = new ArrayList<>();
    for (Map.Entry<String, String> t : tables.entrySet()) {
      String path = t.getValue();
      Long compacted = null;
      Long vacuumed = null;
      if (optimize) {
        Row metrics = spark.sql("OPTIMIZE " + DeltaTables.tableName(path)).first();
        Row m = metrics.getStruct(metrics.fieldIndex("metrics"));
        compacted = m.getLong(m.fieldIndex("numFilesRemoved"));
      }
      if (vacuum != null) {
        spark.sql(
            "VACUUM " + DeltaTables.tableName(path) + " RETAIN " + vacuum.toHours() + " HOURS");
        vacuumed = lastVacuumedFiles(path);
      }
      results.add(new TableResult(t.getKey(), path, compacted, vacuumed));
    }
    return results;
  }

  /**
   * The table property of silver's table (the current state or the history) that records when the
   * last scheduled OPTIMIZE ran: kept with the tables, so a restarted or rescheduled pipeline waits
   * for the rest of its cadence instead of compacting again at once.
   */
  public static final String LAST_OPTIMIZE = "replaysafe.lastOptimizeAt";

  /** When the last scheduled OPTIMIZE ran, if one did and silver's table exists. */
  public Optional<Instant> lastOptimize() {
    String silver = config.requireSilver().path();
    if (!DeltaTables.exists(spark, silver)) {
      return Optional.empty();
    }
    return Optional.ofNullable(DeltaTables.property(spark, silver, LAST_OPTIMIZE))
        .map(Instant::parse);
  }

  private void recordOptimize(Instant at) {
    String silver = config.requireSilver().path();
    // Before silver's first batch there is no table to record it on: the cadence then starts
    // over after a restart, with nothing much to compact.
    if (DeltaTables.exists(spark, silver)) {
      spark.sql(
          "ALTER TABLE "
              + DeltaTables.tableName(silver)
              + " SET TBLPROPERTIES ('"
              + LAST_OPTIMIZE
              + "' = '"
              + at
              + "')");
    }
  }

  /** Every Delta table of the pipeline that exists, by the name reports give it. */
  private Map<String, String> tables(SilverContract contract, Map<String, String> bronzeSide) {
    Map<String, String> candidates = new LinkedHashMap<>();
    candidates.put("bronze", config.bronze().path());
    candidates.putAll(bronzeSide);
    candidates.put("erasures", contract.erasuresPath());
    candidates.put("erase log", contract.eraseLogPath());
    candidates.put(contract.shape().tableName(), contract.silver().path());
    candidates.put(contract.shape().stateTableName(), contract.statePath());
    // Only current state has truncate events; a table that does not exist is left out below.
    candidates.put("truncates", contract.silver().path() + "_truncates");
    candidates.put("quarantine", contract.silver().quarantinePath());
    candidates.put("runs", contract.silver().runsPath());
    candidates.put("contract", ContractHistory.path(contract.silver()));
    Map<String, String> present = new LinkedHashMap<>();
    candidates.forEach(
        (name, path) -> {
          if (DeltaTables.exists(spark, path)) {
            present.put(name, path);
          }
        });
    return present;
  }

  /** Where a retention comes from, for the fix a refusal names. */
  private static final String VACUUM_OPTION = "--vacuum";

  private static final String SCHEDULED_OPTION = "maintenance.vacuumRetention";

  private Optional<ConfigException> refusal(
      Duration retention, Map<String, String> tables, String option) {
    for (Map.Entry<String, String> t : tables.entrySet()) {
      Duration delta = deltaRetention(t.getValue());
      if (retention.compareTo(delta) < 0) {
        return Optional.of(
            SilverErrors.vacuumRefused(
                describe(retention),
                "the "
                    + t.getKey()
                    + " table keeps removed files for "
                    + describe(delta)
                    + " (delta.deletedFileRetentionDuration), which readers of older versions rely"
                    + " on",
                longer(option, delta)));
      }
    }
    Duration lag = silverLag();
    if (retention.compareTo(lag) < 0) {
      return Optional.of(
          SilverErrors.vacuumRefused(
              describe(retention),
              "silver has not read bronze's commits of the last "
                  + describe(lag)
                  + ", and its next run reads their files",
              option.equals(VACUUM_OPTION)
                  ? "Run silver first ('replaysafe run'), or pass a longer retention"
                  : "The next round runs it once silver has caught up, or set a longer " + option));
    }
    Duration tombstones = config.requireSilver().tombstoneRetention();
    if (retention.compareTo(tombstones) < 0) {
      return Optional.of(
          SilverErrors.vacuumRefused(
              describe(retention),
              "silver.tombstoneRetention is "
                  + describe(tombstones)
                  + ", and a delete is kept, and restorable, that long",
              longer(option, tombstones)));
    }
    return Optional.empty();
  }

  /**
   * "Pass --vacuum '7 days' or longer", or "Set maintenance.vacuumRetention: '7 days' or longer".
   */
  private static String longer(String option, Duration least) {
    return option.equals(VACUUM_OPTION)
        ? "Pass --vacuum '" + asOption(least) + "' or longer"
        : "Set " + option + ": '" + asOption(least) + "' or longer";
  }

  /**
   * The age of the oldest bronze commit silver's checkpoint has not processed (zero when it has
   * processed them all).
   */
  private Duration silverLag() {
    String bronze = config.bronze().path();
    long latest = DeltaTables.latestVersion(spark, bronze);
    OptionalLong processed =
        new SilverCheckpoint(
                config.requireSilver().checkpoint(), spark.sparkContext().hadoopConfiguration())
            .read()
            .processedThrough();
    long oldestUnread = processed.isPresent() ? processed.getAsLong() + 1 : 0;
    if (oldestUnread > latest) {
      return Duration.ZERO;
    }
    // Only the commits since the oldest unread one: history() without a limit reads every
    // commit the log keeps (a month of them by default).
    List<Row> commit =
        DeltaTable.forPath(spark, bronze)
            .history((int) Math.min(Integer.MAX_VALUE, latest - oldestUnread + 1))
            .where("version = " + oldestUnread)
            .select("timestamp")
            .collectAsList();
    if (commit.isEmpty()) {
      return Duration.ZERO; // gone from the log already: silver's own check says so
    }
    Instant at = commit.get(0).getTimestamp(0).toInstant();
    return Duration.between(at, Instant.now());
  }

  private Duration deltaRetention(String path) {
    String value = DeltaTables.property(spark, path, "delta.deletedFileRetentionDuration");
    if (value == null) {
      return DELTA_DEFAULT_RETENTION;
    }
    // Delta writes it as a calendar interval: "interval 7 days", "interval 168 hours".
    return io.replaysafe.common.config.SilverConfig.parseDuration(
        "delta.deletedFileRetentionDuration of " + path,
        value.replaceFirst("(?i)^interval\\s+", ""));
  }

  private Long lastVacuumedFiles(String path) {
    // Delta records a VACUUM as two commits (START, END) when vacuum logging is on, its default.
    List<Row> end =
        DeltaTable.forPath(spark, path)
            .history(2)
            .where("operation = 'VACUUM END'")
            .select("operationMetrics")
            .collectAsList();
    if (end.isEmpty()) {
      return null;
    }
    Map<String, String> metrics = end.get(0).getJavaMap(0);
    return Long.parseLong(metrics.getOrDefault("numDeletedFiles", "0"));
  }

  /** As --vacuum takes it: "7 days", "2 hours". */
  public static String asOption(Duration d) {
    if (d.toDays() > 0 && d.equals(Duration.ofDays(d.toDays()))) {
      return d.toDays() + " days";
    }
    if (d.toHours() > 0 && d.equals(Duration.ofHours(d.toHours()))) {
      return d.toHours() + " hours";
    }
    return Math.max(1, d.toMinutes()) + " minutes";
  }

  static String describe(Duration d) {
    if (d.toDays() > 0 && d.equals(Duration.ofDays(d.toDays()))) {
      return d.toDays() + " day(s)";
    }
    if (d.toHours() > 0 && d.equals(Duration.ofHours(d.toHours()))) {
      return d.toHours() + " hour(s)";
    }
    return d.toMinutes() + " minute(s)";
  }
}
