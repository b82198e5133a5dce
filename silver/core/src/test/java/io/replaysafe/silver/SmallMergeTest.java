package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.delete;
import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SmallMerge} against Delta's own MERGE, the oracle: the same generated deliveries (updates,
 * older replays, exact retries, conflicts, deletes, deletes of unknown keys, revivals) go through
 * two pipelines, one merging small batches itself, the other with {@value
 * SmallMerge#MAX_ROWS_PROPERTY}=0 (Delta's MERGE for every batch). After every run both silver
 * tables, both tombstone tables and the runs' counts must be equal, and the merges must have taken
 * the path each pipeline is meant to take.
 */
class SmallMergeTest extends SparkTestBase {
  @TempDir Path dir;

  private static final String QUARANTINE = "onConflict: quarantine\n";

  private long ownRunsMergeJobs;
  private long deltaRunsMergeJobs;

  private final List<String> jobs = new CopyOnWriteArrayList<>();
  private final SparkListener listener =
      new SparkListener() {
        @Override
        public void onJobStart(SparkListenerJobStart start) {
          String d = start.properties().getProperty("spark.job.description");
          jobs.add(d == null ? "" : d);
        }
      };

  @BeforeEach
  void listen() {
    spark.sparkContext().addSparkListener(listener);
  }

  @AfterEach
  void stopListening() {
    spark.sparkContext().removeSparkListener(listener);
    System.clearProperty(SmallMerge.MAX_ROWS_PROPERTY);
  }

  @Test
  void generatedDeliveriesLeaveTheTablesDeltasMergeLeaves() {
    SilverHarness own = SilverHarness.orders(spark, dir.resolve("own"), QUARANTINE);
    SilverHarness delta = SilverHarness.orders(spark, dir.resolve("delta"), QUARANTINE);
    Random random = new Random(2026_12_06L);
    // The first delivery (3,000 keys, more than a batch lists) is merged by Delta's MERGE on both:
    // silver files of several Parquet pages (KeyPages), so the rows replaced later are found by
    // their position in files whose other pages the key filter skips.
    List<String> first = new ArrayList<>();
    Map<Long, Long> version = new HashMap<>();
    for (long k = 1; k <= 3_000; k++) {
      first.add(order(k, 1, "s" + k));
      version.put(k, 1L);
    }
    deliverAndRun(own, delta, first.toArray(String[]::new));
    ownRunsMergeJobs = 0;
    deltaRunsMergeJobs = 0;
    for (int round = 0; round < 12; round++) {
      List<String> lines = new ArrayList<>();
      Set<Long> keys = new LinkedHashSet<>();
      // Mostly a few keys, listed in the batch's predicate; one round in four 12-25 keys, which
      // only the range of the batch's keys bounds.
      int wanted = random.nextInt(4) == 0 ? 12 + random.nextInt(14) : 1 + random.nextInt(8);
      while (keys.size() < wanted) {
        // Hot keys 1-6, whose small files get every row replaced; any key up to 3,005 (the
        // last five never held at first).
        keys.add(random.nextBoolean() ? 1 + random.nextInt(6) : 1 + (long) random.nextInt(3_005));
      }
      for (long k : keys) {
        long v = version.getOrDefault(k, 0L);
        switch (random.nextInt(7)) {
          case 0 -> lines.add(delete(k, v + 1));
          case 1 -> lines.add(order(k, Math.max(0, v - 1), "older")); // replay of an older one
          case 2 -> {
            lines.add(order(k, v + 1, "r" + round));
            lines.add(order(k, v + 1, "r" + round)); // exact retry in the same delivery
          }
          case 3 -> {
            lines.add(order(k, v + 1, "a" + round));
            lines.add(order(k, v + 1, "b" + round)); // conflict: quarantined
          }
          default -> lines.add(order(k, v + 1, "u" + round));
        }
        version.put(k, v + 1);
      }
      compareAfter(own, delta, round, lines);
    }
    // Key 1 alone twice: the first run's new file holds its one row, which the second replaces, so
    // that file goes whole.
    for (int last = 0; last < 2; last++) {
      long v = version.get(1L) + 1;
      version.put(1L, v);
      compareAfter(own, delta, 100 + last, List.of(order(1, v, "last" + last)));
    }
    // Every small batch was merged here without Delta's MERGE; the oracle ran Delta's.
    assertThat(ownRunsMergeJobs).isZero();
    assertThat(deltaRunsMergeJobs).isPositive();
    // Both ways of marking rows deleted ran: a file whose every row was replaced removed, a
    // deletion vector that had rows already extended.
    assertThat(mergeMetricTotal(own, "numTargetFilesRemoved")).isPositive();
    assertThat(mergeMetricTotal(own, "numTargetDeletionVectorsUpdated")).isPositive();
  }

  @Test
  void aSmallBatchRunsNoneOfDeltasMergeJobsAndCommitsAMergeWithItsCounts() {
    SilverHarness own = SilverHarness.orders(spark, dir.resolve("own"), "");
    own.deliver(order(1, 1, "a"), order(2, 1, "b"), order(3, 1, "c"));
    own.run();
    own.deliver(order(1, 2, "a2"), delete(2, 2), order(4, 1, "d"));
    jobs.clear();
    SilverResult result = own.run();

    assertThat(jobs).noneMatch(SmallMergeTest::deltaMergeOfTheBatch);
    assertThat(result.total(BatchReport::inserted)).isEqualTo(1);
    assertThat(result.total(BatchReport::updated)).isEqualTo(1);
    assertThat(result.total(BatchReport::deleted)).isEqualTo(1);
    assertThat(own.silverRows()).containsExactly("1|2|a2", "3|1|c", "4|1|d");
    assertThat(rowsOf(own.tombstones().select("order_id", "source_version")))
        .containsExactly("2|2");
    Row merge =
        own.silver()
            .sparkSession()
            .sql("DESCRIBE HISTORY delta.`" + own.config.requireSilver().path() + "` LIMIT 1")
            .first();
    assertThat(merge.getString(merge.fieldIndex("operation"))).isEqualTo("MERGE");
    Row m = metrics(own);
    assertThat(metric(m, "numTargetRowsInserted")).isEqualTo("1");
    assertThat(metric(m, "numTargetRowsUpdated")).isEqualTo("1");
    assertThat(metric(m, "numTargetRowsDeleted")).isEqualTo("1");
    assertThat(metric(m, "numTargetRowsCopied")).isEqualTo("0");
    assertThat(metric(m, "numTargetFilesAdded")).isEqualTo("1");
    // Keys 1 and 2 were in the first run's files: each file of theirs got a deletion vector, or
    // went whole when every row of it was replaced.
    assertThat(
            Long.parseLong(metric(m, "numTargetDeletionVectorsAdded"))
                + Long.parseLong(metric(m, "numTargetFilesRemoved")))
        .isBetween(1L, 2L);
  }

  @Test
  void withTheLimitAtZeroDeltasMergeRuns() {
    System.setProperty(SmallMerge.MAX_ROWS_PROPERTY, "0");
    SilverHarness delta = SilverHarness.orders(spark, dir.resolve("delta"), "");
    delta.deliver(order(1, 1, "a"));
    delta.run();
    delta.deliver(order(1, 2, "b"));
    jobs.clear();
    delta.run();
    assertThat(jobs).anyMatch(SmallMergeTest::deltaMergeOfTheBatch);
    assertThat(delta.silverRows()).containsExactly("1|2|b");
  }

  @Test
  void aTableWithTheChangeFeedOnIsLeftToDeltasMerge() {
    SilverHarness own = SilverHarness.orders(spark, dir.resolve("cdf"), "");
    own.deliver(order(1, 1, "a"));
    own.run();
    spark.sql(
        "ALTER TABLE delta.`"
            + own.config.requireSilver().path()
            + "` SET TBLPROPERTIES (delta.enableChangeDataFeed = true)");
    long enabled =
        io.replaysafe.common.spark.DeltaTables.latestVersion(
            spark, own.config.requireSilver().path());
    own.deliver(order(1, 2, "b"));
    jobs.clear();
    own.run();
    assertThat(jobs).anyMatch(SmallMergeTest::deltaMergeOfTheBatch);
    assertThat(own.silverRows()).containsExactly("1|2|b");
    // Delta's MERGE wrote the change feed of the update.
    assertThat(
            rowsOf(
                spark
                    .read()
                    .format("delta")
                    .option("readChangeFeed", "true")
                    .option("startingVersion", enabled + 1)
                    .load(own.config.requireSilver().path())
                    .where("_change_type = 'update_postimage'")
                    .select("order_id", "source_version")))
        .containsExactly("1|2");
  }

  @Test
  void filesAreChosenByTheStatisticsOfAnIntegralKeyAndLeftToDeltaOtherwise() {
    List<org.apache.spark.sql.delta.actions.AddFile> files =
        List.of(file("a", "1", "10"), file("b", "11", "20"), file("c", "21", "30"));
    org.apache.spark.sql.types.StructType longKey =
        new org.apache.spark.sql.types.StructType().add("k", "bigint");
    // Listed keys 5 and 25: the files that hold 1-10 and 21-30.
    assertThat(
            SmallMerge.holdingKeys(
                    files,
                    new StoredState.KeyBounds(
                        List.of("k"), List.of(5L), List.of(25L), List.of(5L, 25L)),
                    longKey)
                .orElseThrow())
        .extracting(org.apache.spark.sql.delta.actions.AddFile::path)
        .containsExactly("a", "c");
    // The range 12-22 of keys not listed: the files of 11-20 and 21-30.
    assertThat(
            SmallMerge.holdingKeys(
                    files,
                    new StoredState.KeyBounds(List.of("k"), List.of(12L), List.of(22L)),
                    longKey)
                .orElseThrow())
        .extracting(org.apache.spark.sql.delta.actions.AddFile::path)
        .containsExactly("b", "c");
    // A string key: every file while they are few, Delta's own choice beyond that.
    org.apache.spark.sql.types.StructType stringKey =
        new org.apache.spark.sql.types.StructType().add("k", "string");
    StoredState.KeyBounds strings =
        new StoredState.KeyBounds(List.of("k"), List.of("x"), List.of("y"), List.of("x", "y"));
    assertThat(SmallMerge.holdingKeys(files, strings, stringKey).orElseThrow()).hasSize(3);
    List<org.apache.spark.sql.delta.actions.AddFile> many = new ArrayList<>();
    for (int i = 0; i <= SmallMerge.MOST_FILES_UNCHOSEN; i++) {
      many.add(file("f" + i, "1", "10"));
    }
    assertThat(SmallMerge.holdingKeys(many, strings, stringKey)).isEmpty();
  }

  /** A data file whose statistics give key {@code k} the range min-max. */
  private static org.apache.spark.sql.delta.actions.AddFile file(
      String path, String min, String max) {
    return new org.apache.spark.sql.delta.actions.AddFile(
        path,
        scala.collection.immutable.Map$.MODULE$.<String, String>empty(),
        100L,
        0L,
        true,
        "{\"numRecords\":10,\"minValues\":{\"k\":" + min + "},\"maxValues\":{\"k\":" + max + "}}",
        null,
        null,
        scala.Option.empty(),
        scala.Option.empty(),
        scala.Option.empty(),
        scala.Option.empty(),
        scala.Option.empty());
  }

  /** Delivers {@code lines} to both pipelines, runs them, and compares what they did and hold. */
  private void compareAfter(SilverHarness own, SilverHarness delta, int round, List<String> lines) {
    SilverResult[] results = deliverAndRun(own, delta, lines.toArray(String[]::new));
    assertThat(counts(results[0])).as("round %d: %s", round, lines).isEqualTo(counts(results[1]));
    assertThat(content(own.silver(), SilverContract.APPLIED_AT))
        .as("silver after round %d: %s", round, lines)
        .isEqualTo(content(delta.silver(), SilverContract.APPLIED_AT));
    assertThat(content(own.tombstones(), ReservedNames.DELETED_AT))
        .as("tombstones after round %d: %s", round, lines)
        .isEqualTo(content(delta.tombstones(), ReservedNames.DELETED_AT));
  }

  /** The sum of a metric over every MERGE commit of the pipeline's silver table. */
  private long mergeMetricTotal(SilverHarness h, String name) {
    long total = 0;
    for (Row r :
        spark
            .sql("DESCRIBE HISTORY delta.`" + h.config.requireSilver().path() + "`")
            .where("operation = 'MERGE'")
            .collectAsList()) {
      total += Long.parseLong(metric(r, name));
    }
    return total;
  }

  /** Lands the lines for both pipelines and runs each; Delta's MERGE for {@code delta}'s. */
  private SilverResult[] deliverAndRun(SilverHarness own, SilverHarness delta, String... lines) {
    own.deliver(lines);
    delta.deliver(lines);
    jobs.clear();
    SilverResult ownResult = own.run();
    ownRunsMergeJobs += jobs.stream().filter(SmallMergeTest::deltaMergeOfTheBatch).count();
    System.setProperty(SmallMerge.MAX_ROWS_PROPERTY, "0");
    try {
      jobs.clear();
      SilverResult deltaResult = delta.run();
      deltaRunsMergeJobs += jobs.stream().filter(SmallMergeTest::deltaMergeOfTheBatch).count();
      return new SilverResult[] {ownResult, deltaResult};
    } finally {
      System.clearProperty(SmallMerge.MAX_ROWS_PROPERTY);
    }
  }

  /**
   * A job of Delta's MERGE in a batch's merge step (into silver or its tombstones), not the
   * quarantine's.
   */
  private static boolean deltaMergeOfTheBatch(String description) {
    return description.contains(": merge") && description.contains("MERGE operation");
  }

  private static List<Long> counts(SilverResult r) {
    return List.of(
        r.total(BatchReport::inserted),
        r.total(BatchReport::updated),
        r.total(BatchReport::deleted),
        r.total(BatchReport::olderIgnored),
        r.total(BatchReport::exactRetries),
        r.total(BatchReport::quarantined));
  }

  /**
   * Every row, the time column dropped and the source file by its name (the directories differ).
   */
  private static List<String> content(Dataset<Row> table, String time) {
    Dataset<Row> t =
        table
            .drop(time)
            .withColumn(
                SilverContract.STORED_SOURCE_FILE,
                org.apache.spark.sql.functions.substring_index(
                    org.apache.spark.sql.functions.col(SilverContract.STORED_SOURCE_FILE),
                    "/",
                    -1));
    return rowsOf(t.orderBy(t.columns()[0], t.columns()[1]));
  }

  private Row metrics(SilverHarness h) {
    return spark
        .sql("DESCRIBE HISTORY delta.`" + h.config.requireSilver().path() + "` LIMIT 1")
        .first();
  }

  private static String metric(Row history, String name) {
    scala.collection.Map<String, String> m = history.getMap(history.fieldIndex("operationMetrics"));
    return m.contains(name) ? m.apply(name) : "0";
  }
}
