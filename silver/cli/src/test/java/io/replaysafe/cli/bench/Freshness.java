package io.replaysafe.cli.bench;

import static org.apache.spark.sql.functions.col;

import io.replaysafe.common.ReservedNames;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Each event's freshness after a run of {@code scripts/bench-freshness}: from its file's landing
 * (the generator's clock once the file was in place) to the moment silver reflected it.
 *
 * <ul>
 *   <li>An event silver applied (inserted, updated, or deleted into the tombstone table) has a row
 *       with its key, version and source file: its freshness ends at that row's {@code
 *       __applied_at} ({@code __deleted_at} for a delete). The rows are read from every data file
 *       the tables ever wrote (nothing is vacuumed during a run), so an update that a later one
 *       replaced still counts with the moment it was applied.
 *   <li>An event silver decided not to write (a version superseded in its own batch, an exact
 *       replay, an older version) has no row of its own: its freshness ends when the silver batch
 *       that read it ended (the run log's {@code started_at + seconds} of the batch whose bronze
 *       versions include the event's bronze commit).
 * </ul>
 *
 * <p>It also compares silver with the generator's oracle ({@link FreshnessEvents#expectedSilver}).
 */
final class Freshness {
  /** Where one pipeline keeps its tables. */
  record Tables(String bronze, String silver) {
    String tombstones() {
      return silver + "_tombstones";
    }

    String runs() {
      return silver + "_runs";
    }
  }

  /**
   * @param seconds each event's freshness, sorted; events without one are left out ({@link
   *     #missing})
   * @param byRow events measured by their own row's time
   * @param byBatch events measured by their silver batch's end
   */
  record Figures(
      double[] seconds,
      long byRow,
      long byBatch,
      long missing,
      long negative,
      long expectedRows,
      long silverRows,
      long missingRows,
      long unexpectedRows,
      List<String> sampleDifferences) {
    boolean silverAgrees() {
      return expectedRows == silverRows && missingRows == 0 && unexpectedRows == 0;
    }

    long events() {
      return byRow + byBatch + missing;
    }

    /** The nearest-rank percentile, {@code p} in (0, 100]. */
    double percentile(double p) {
      if (seconds.length == 0) {
        return Double.NaN;
      }
      int rank = (int) Math.ceil(p / 100.0 * seconds.length);
      return seconds[Math.max(0, Math.min(seconds.length - 1, rank - 1))];
    }

    double max() {
      return seconds.length == 0 ? Double.NaN : seconds[seconds.length - 1];
    }

    String line() {
      return String.format(
          Locale.ROOT,
          "freshness p50 %.1f s, p95 %.1f s, p99 %.1f s, max %.1f s over %,d events"
              + " (%,d by their own row's __applied_at or __deleted_at, %,d by the end of the"
              + " silver batch that read them: superseded in that batch, exact replays, older"
              + " versions)%s",
          percentile(50),
          percentile(95),
          percentile(99),
          max(),
          seconds.length,
          byRow,
          byBatch,
          missing == 0 ? "" : String.format(Locale.ROOT, "; %,d events WITHOUT a figure", missing));
    }

    String silverLine() {
      return String.format(
          Locale.ROOT,
          "silver %,d rows, the generator's oracle %,d; missing %,d, unexpected %,d%s",
          silverRows,
          expectedRows,
          missingRows,
          unexpectedRows,
          silverAgrees() ? ": equal" : ": DIFFERENT, e.g. " + sampleDifferences);
    }
  }

  private Freshness() {}

  static Figures measure(SparkSession spark, Tables tables, FreshnessEvents events) {
    Map<String, Instant> applied = new HashMap<>();
    collectApplied(spark, tables.silver(), ReservedNames.APPLIED_AT, applied);
    collectApplied(spark, tables.tombstones(), ReservedNames.DELETED_AT, applied);
    Map<String, Long> bronzeVersions = bronzeVersions(spark, tables.bronze());
    List<long[]> batches = batches(spark, tables.runs());

    double[] seconds = new double[events.events().size()];
    int n = 0;
    long byRow = 0;
    long byBatch = 0;
    long missing = 0;
    long negative = 0;
    for (FreshnessEvents.Event e : events.events()) {
      String id = id(events.fileNames().get(e.file()), e.key(), e.version());
      Instant landed = events.landedAt(e.file());
      Instant reflected = applied.get(id);
      if (reflected != null) {
        byRow++;
      } else {
        Long version = bronzeVersions.get(id);
        reflected = version == null ? null : batchEnd(batches, version);
        if (reflected == null) {
          missing++;
          continue;
        }
        byBatch++;
      }
      double s = Duration.between(landed, reflected).toMillis() / 1000.0;
      if (s < 0) {
        negative++;
      }
      seconds[n++] = s;
    }
    double[] sorted = Arrays.copyOf(seconds, n);
    Arrays.sort(sorted);

    Set<String> expected = events.expectedSilver();
    Set<String> actual = new HashSet<>();
    long silverRows = 0;
    for (Row r :
        spark
            .read()
            .format("delta")
            .load(tables.silver())
            .select("order_id", "source_version", "customer_id", "status", "amount", "currency")
            .collectAsList()) {
      silverRows++;
      actual.add(
          FreshnessEvents.row(
              r.getLong(0),
              r.getLong(1),
              r.getString(2),
              r.getString(3),
              Math.round(r.getDouble(4) * 100),
              r.getString(5)));
    }
    List<String> differences = new ArrayList<>();
    long missingRows = 0;
    for (String row : expected) {
      if (!actual.contains(row)) {
        missingRows++;
        if (differences.size() < 3) {
          differences.add("missing " + row);
        }
      }
    }
    long unexpected = 0;
    for (String row : actual) {
      if (!expected.contains(row)) {
        unexpected++;
        if (differences.size() < 6) {
          differences.add("unexpected " + row);
        }
      }
    }
    return new Figures(
        sorted,
        byRow,
        byBatch,
        missing,
        negative,
        expected.size(),
        silverRows,
        missingRows,
        unexpected,
        differences);
  }

  private static String id(String fileName, long key, long version) {
    return fileName + "|" + key + "|" + version;
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /**
   * The earliest time each (source file, key, version) was written into {@code table}, from every
   * Parquet data file under it: the files of replaced or deleted rows too, which a Delta read no
   * longer returns. Silver's tables use no column mapping: the files hold the logical names.
   */
  private static void collectApplied(
      SparkSession spark, String table, String timeColumn, Map<String, Instant> applied) {
    Dataset<Row> rows =
        spark
            .read()
            .schema(
                "order_id BIGINT, source_version BIGINT, "
                    + ReservedNames.STORED_SOURCE_FILE
                    + " STRING, "
                    + timeColumn
                    + " TIMESTAMP")
            .option("pathGlobFilter", "*.parquet")
            .parquet(table);
    for (Row r : rows.collectAsList()) {
      if (r.isNullAt(2) || r.isNullAt(3)) {
        continue;
      }
      Instant at = r.getTimestamp(3).toInstant();
      applied.merge(
          id(name(r.getString(2)), r.getLong(0), r.getLong(1)),
          at,
          (a, b) -> a.isBefore(b) ? a : b);
    }
  }

  /** Each bronze row's commit version, by (source file, key, version), from the change feed. */
  private static Map<String, Long> bronzeVersions(SparkSession spark, String bronze) {
    Map<String, Long> versions = new HashMap<>();
    for (Row r :
        spark
            .read()
            .format("delta")
            .option("readChangeFeed", "true")
            .option("startingVersion", 0)
            .load(bronze)
            .where(col(ReservedNames.CHANGE_TYPE).equalTo("insert"))
            .select(
                col("order_id"),
                col("source_version"),
                col(ReservedNames.SOURCE_FILE),
                col(ReservedNames.COMMIT_VERSION))
            .collectAsList()) {
      versions.merge(id(name(r.getString(2)), r.getLong(0), r.getLong(1)), r.getLong(3), Math::min);
    }
    return versions;
  }

  /** The applied silver batches: {bronze_version_min, bronze_version_max, end epoch millis}. */
  private static List<long[]> batches(SparkSession spark, String runs) {
    List<long[]> batches = new ArrayList<>();
    for (Row r :
        spark
            .read()
            .format("delta")
            .load(runs)
            .where(col("status").equalTo("APPLIED"))
            .where(col("bronze_version_min").isNotNull())
            .select("bronze_version_min", "bronze_version_max", "started_at", "seconds")
            .collectAsList()) {
      long end = r.getTimestamp(2).toInstant().toEpochMilli() + Math.round(r.getDouble(3) * 1000);
      batches.add(new long[] {r.getLong(0), r.getLong(1), end});
    }
    return batches;
  }

  /** The end of the earliest applied batch that read bronze commit {@code version}. */
  private static Instant batchEnd(List<long[]> batches, long version) {
    long best = Long.MAX_VALUE;
    for (long[] b : batches) {
      if (b[0] <= version && version <= b[1]) {
        best = Math.min(best, b[2]);
      }
    }
    return best == Long.MAX_VALUE ? null : Instant.ofEpochMilli(best);
  }
}
