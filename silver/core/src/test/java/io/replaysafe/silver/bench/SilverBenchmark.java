package io.replaysafe.silver.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.format_string;
import static org.apache.spark.sql.functions.lit;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.Columns;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.BatchReport;
import io.replaysafe.silver.SilverJob;
import io.replaysafe.silver.SilverResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Issues 3 and 14: the cost of a replay into a large silver table, against rebuilding silver from
 * bronze and against the hand-written guarded MERGE a user would write instead ({@link
 * HandWrittenMerge}). Not a unit test: {@code scripts/bench-silver [ROWS...]} runs it.
 *
 * <p>Per size N: a bronze table of N orders (one version each) is written directly with Spark,
 * created as {@code BronzeIngest} creates it (change data feed on); the real {@link SilverJob}
 * builds silver from it on a fresh path and checkpoint (the <b>rebuild</b>, timed). Then a replay
 * of 10,000 events is appended to bronze as one commit: half updates (a newer version), a quarter
 * older versions, a quarter exact retries of the stored version, each on a distinct key spread
 * uniformly over the table (the worst case for file pruning). The real {@link SilverJob} then runs
 * incrementally (the <b>replay</b>, timed) and its evidence is checked, and so does the
 * hand-written MERGE on the same bronze commit and the same silver table (restored from a copy
 * before every run), in alternating rounds so both see the same machine, each with no Delta
 * snapshot cached, as in the fresh JVM of a scheduled run. Then the same with a replay of 10 events
 * on top. Every run prints wall and CPU seconds, Spark jobs, Delta commits, peak heap and the load
 * average; the summary prints medians, ratios and one line per target.
 */
public final class SilverBenchmark {
  static final int EVENTS = 10_000;
  static final int SMALL_EVENTS = 10;
  static final long STORED_VERSION = 10;
  static final long NEWER_VERSION = 11;
  static final long OLDER_VERSION = 5;
  static final double TARGET_REBUILD_RATIO = 0.10;
  static final double TARGET_BASELINE_RATIO = 1.25;
  static final double TARGET_GROWTH = 1.5;
  static final String[] STATUSES = {"PLACED", "PAID", "PACKED", "SHIPPED", "DELIVERED"};

  private final SparkSession spark;
  private final Path base;
  private final JobProfile profile;
  private final RunMeter meter = new RunMeter();

  SilverBenchmark(SparkSession spark, Path base, JobProfile profile) {
    this.spark = spark;
    this.base = base;
    this.profile = profile;
    spark.sparkContext().addSparkListener(meter);
    if (profile != null) {
      spark.sparkContext().addSparkListener(profile);
    }
  }

  /** One timed run and its load-independent figures. */
  record Run(
      double seconds,
      double cpu,
      int jobs,
      int batchJobs,
      long compiles,
      double compileSeconds,
      int batches,
      long commits,
      long peakHeap,
      double load) {
    String describe() {
      return String.format(
          Locale.ROOT,
          "%.2f s, cpu %.1f s, %d job(s)%s, %d class(es) compiled (%.2f s), %d batch(es), %d Delta"
              + " commit(s), peak heap %d MiB, load %.2f",
          seconds,
          cpu,
          jobs,
          batchJobs > 0 ? " (" + batchJobs + " in silver batches)" : "",
          compiles,
          compileSeconds,
          batches,
          commits,
          peakHeap >> 20,
          load);
    }
  }

  /** What one size measured. */
  record Measured(
      long rows,
      List<Run> rebuilds,
      List<Run> replays,
      List<Run> baselines,
      List<Run> smallReplays,
      List<Run> smallBaselines,
      String layoutAfterRebuild,
      String layoutAfterReplay) {
    double rebuild() {
      return medianOf(rebuilds, Run::seconds);
    }

    double replay() {
      return medianOf(replays, Run::seconds);
    }

    double baseline() {
      return medianOf(baselines, Run::seconds);
    }

    double smallReplay() {
      return medianOf(smallReplays, Run::seconds);
    }

    double smallBaseline() {
      return medianOf(smallBaselines, Run::seconds);
    }

    double rebuildRatio() {
      return replay() / rebuild();
    }
  }

  static double medianOf(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
    return median(runs.stream().map(r -> f.applyAsDouble(r)).toList());
  }

  public static void main(String[] args) throws Exception {
    List<Long> sizes = new ArrayList<>();
    int replays = 3;
    int rebuilds = 1;
    Path dir = null;
    boolean keep = false;
    boolean profile = false;
    long warmup = 20_000;
    boolean idle = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--replays" -> replays = Integer.parseInt(args[++i]);
        case "--rebuilds" -> rebuilds = Integer.parseInt(args[++i]);
        case "--dir" -> dir = Path.of(args[++i]);
        case "--keep" -> keep = true;
        case "--profile" -> profile = true;
        case "--warmup" -> warmup = Long.parseLong(args[++i]);
        case "--no-idle" -> idle = false;
        case "-h", "--help" -> {
          System.out.println(
              "usage: bench-silver [--replays K] [--rebuilds R] [--dir DIR] [--keep] [--profile]"
                  + " [--warmup ROWS] [--no-idle]"
                  + " [ROWS...]\n"
                  + "  ROWS: silver table sizes (default 1000000 5000000); K rounds of replay and"
                  + " hand-written baseline (default 3) and R rebuilds (default 1) per size,"
                  + " medians reported; a warm-up run on ROWS rows (default 20000, 0 for none)"
                  + " first, not reported; then (unless --no-idle) the wall time of"
                  + " 'replaysafe run' with nothing new, JVM start included");
          return;
        }
        default -> sizes.add(Long.parseLong(args[i].replace("_", "").replace(",", "")));
      }
    }
    if (sizes.isEmpty()) {
      sizes = List.of(1_000_000L, 5_000_000L);
    }
    for (long n : sizes) {
      if (n < 2 * EVENTS) {
        throw new IllegalArgumentException(
            "ROWS must be at least " + 2 * EVENTS + " (the replays touch that many distinct keys)");
      }
    }
    if (replays < 1 || rebuilds < 1) {
      throw new IllegalArgumentException("--replays and --rebuilds must be at least 1");
    }
    Path base = dir != null ? dir : Files.createTempDirectory("replaysafe-bench-silver-");
    Files.createDirectories(base);
    SparkSession spark = SparkSessions.getOrCreate("replaysafe-bench-silver");
    System.out.printf(
        Locale.ROOT,
        "bench-silver: sizes %s, replays of %d and %d event(s), %d rebuild(s) and %d round(s) of"
            + " replay and hand-written baseline per size, Spark %s on %s (shuffle partitions"
            + " %s), max heap %d MiB, data under %s, load %.2f%n",
        sizes,
        EVENTS,
        SMALL_EVENTS,
        rebuilds,
        replays,
        spark.version(),
        spark.sparkContext().master(),
        spark.conf().get("spark.sql.shuffle.partitions"),
        Runtime.getRuntime().maxMemory() >> 20,
        base,
        RunMeter.loadAverage());
    List<Measured> results = new ArrayList<>();
    try {
      SilverBenchmark bench = new SilverBenchmark(spark, base, profile ? new JobProfile() : null);
      if (warmup > 0) {
        // JIT, class loading and Spark's code generation warm up here, so neither the rebuild
        // nor the replay of the first size pays for them.
        System.out.printf(Locale.ROOT, "%n== warm-up (not reported)");
        bench.run(Math.max(warmup, 2 * EVENTS), 1, 1);
      }
      for (long n : sizes) {
        results.add(bench.run(n, rebuilds, replays));
      }
    } finally {
      if (!keep && dir == null) {
        deleteRecursively(base);
      }
    }
    boolean allMet = printSummary(results);
    String launcher = System.getProperty("bench.launcher");
    if (idle && launcher != null) {
      try {
        allMet &= idleRun(Path.of(launcher), base);
      } finally {
        if (!keep && dir == null) {
          deleteRecursively(base); // made again by the idle run, after the sizes' cleanup
        }
      }
    }
    System.out.println(
        allMet ? "bench-silver: every target MET" : "bench-silver: some target NOT MET");
  }

  Measured run(long n, int rebuilds, int replays) throws Exception {
    Path root = base.resolve("n" + n);
    deleteRecursively(root);
    System.out.printf(Locale.ROOT, "%n== %,d rows%n", n);
    long t0 = System.nanoTime();
    PipelineConfig first = config(root, "rebuild-1");
    writeBronze(first, n);
    System.out.printf(
        Locale.ROOT, "bronze: %,d rows written in %.1f s (not timed)%n", n, seconds(t0));

    // The rebuild: fresh silver tables and checkpoint over the whole bronze table.
    List<Run> rebuildRuns = new ArrayList<>();
    for (int r = 1; r <= rebuilds; r++) {
      PipelineConfig config = config(root, "rebuild-" + r);
      SilverResult[] result = new SilverResult[1];
      Run run = measure("rebuild " + r, config, false, () -> result[0] = silver(config));
      expect(result[0].total(BatchReport::inserted) == n, "rebuild inserted " + n, result[0]);
      expect(silverCount(config) == n, "silver holds " + n + " rows after the rebuild", result[0]);
      rebuildRuns.add(run);
      System.out.printf(Locale.ROOT, "rebuild %d: %s%n", r, run.describe());
      if (r > 1) {
        deleteRecursively(stateDir(config));
      }
    }
    PipelineConfig config = config(root, "rebuild-1");
    String layoutAfterRebuild = layout(config);
    System.out.println("silver layout after the rebuild: " + layoutAfterRebuild);

    // The replays: one new bronze commit each, applied incrementally to a copy of the same state
    // by replaysafe and by the hand-written MERGE, alternating which goes first.
    Path rebuilt = root.resolve("state-rebuilt");
    copyRecursively(stateDir(config), rebuilt);
    Set<Long> bigKeys = appendReplay(config, n, EVENTS, 13, Set.of());
    Path replayed = root.resolve("state-replayed");
    List<List<Run>> big =
        replayRounds(config, n, EVENTS, EVENTS / 2, rebuilt, replayed, replays, "10,000");
    String layoutAfterReplay = layout(config);
    System.out.println("silver layout after the replay: " + layoutAfterReplay);

    appendReplay(config, n, SMALL_EVENTS, 17, bigKeys);
    List<List<Run>> small =
        replayRounds(
            config,
            n,
            SMALL_EVENTS,
            EVENTS / 2 + SMALL_EVENTS / 2,
            replayed,
            root.resolve("state-unused"),
            replays,
            "10");
    Measured m =
        new Measured(
            n,
            rebuildRuns,
            big.get(0),
            big.get(1),
            small.get(0),
            small.get(1),
            layoutAfterRebuild,
            layoutAfterReplay);
    System.out.printf(
        Locale.ROOT,
        "%,d rows: rebuild %.2f s; replay of %d: %.2f s (hand-written %.2f s);"
            + " replay of %d: %.2f s (hand-written %.2f s)%n",
        n,
        m.rebuild(),
        EVENTS,
        m.replay(),
        m.baseline(),
        SMALL_EVENTS,
        m.smallReplay(),
        m.smallBaseline());
    return m;
  }

  /**
   * K rounds over the newest bronze commit, each from a copy of {@code from}: replaysafe and the
   * hand-written MERGE, alternating which runs first. The state after replaysafe's last run is kept
   * in {@code keepAs} for the next replay. Returns replaysafe's runs, then the baseline's.
   */
  private List<List<Run>> replayRounds(
      PipelineConfig config,
      long n,
      int events,
      long newerAfter,
      Path from,
      Path keepAs,
      int rounds,
      String label)
      throws Exception {
    long bronzeVersion = version(config.bronze().path());
    List<Run> ours = new ArrayList<>();
    List<Run> theirs = new ArrayList<>();
    for (int r = 1; r <= rounds; r++) {
      for (int turn = 0; turn < 2; turn++) {
        boolean replaysafe = (turn == 0) == (r % 2 == 1);
        deleteRecursively(stateDir(config));
        copyRecursively(from, stateDir(config));
        if (replaysafe) {
          SilverResult[] result = new SilverResult[1];
          Run run =
              measure(
                  "replay of " + label + " " + r, config, false, () -> result[0] = silver(config));
          verifyReplay(config, n, events, newerAfter, result[0]);
          ours.add(run);
          System.out.printf(
              Locale.ROOT, "replay of %s, round %d, replaysafe:   %s%n", label, r, run.describe());
          if (r == rounds) {
            deleteRecursively(keepAs);
            copyRecursively(stateDir(config), keepAs);
          }
        } else {
          Path checkpoint = Path.of(stateDir(config) + "-handwritten-checkpoint");
          deleteRecursively(checkpoint);
          Run run =
              measure(
                  "hand-written " + label + " " + r,
                  config,
                  true,
                  () -> {
                    HandWrittenMerge.run(
                        spark,
                        config.bronze().path(),
                        bronzeVersion,
                        config.requireSilver().path(),
                        checkpoint.toString());
                    return null;
                  });
          verifySilver(config, n, newerAfter, "the hand-written MERGE");
          theirs.add(run);
          System.out.printf(
              Locale.ROOT, "replay of %s, round %d, hand-written: %s%n", label, r, run.describe());
        }
      }
    }
    return List.of(ours, theirs);
  }

  private SilverResult silver(PipelineConfig config) {
    return SilverJob.from(config, spark).execute();
  }

  /**
   * One run, timed (wall clock and JVM CPU), with its Spark jobs, peak heap and load average, and
   * the Delta commits it made to silver's tables (all four for replaysafe; with {@code silverOnly},
   * the silver table only: the hand-written MERGE's one table).
   */
  private Run measure(
      String what, PipelineConfig config, boolean silverOnly, Callable<SilverResult> body)
      throws Exception {
    List<String> tables = new ArrayList<>();
    tables.add(config.requireSilver().path());
    if (!silverOnly) {
      tables.add(config.requireSilver().path() + "_tombstones");
      tables.add(config.requireSilver().quarantinePath());
      tables.add(config.requireSilver().runsPath());
    }
    long versionsBefore = 0;
    for (String t : tables) {
      versionsBefore += version(t);
    }
    // Every timed run starts with no Delta snapshot cached, as a scheduled run's fresh JVM does.
    // Without this a run found the snapshot of the state it was restored to still cached when the
    // previous run had left exactly that state (replaysafe in odd rounds, never the baseline), and
    // skipped the reconstruction of silver's state the other side paid: 0.6-0.9 s at 1M rows.
    DeltaLog.clearCache();
    if (profile != null) {
      profile.reset();
    }
    StackSampler sampler = profile == null ? null : new StackSampler();
    System.gc();
    meter.reset();
    double load = RunMeter.loadAverage();
    long cpuStarted = processCpuNanos();
    long started = System.nanoTime();
    SilverResult result;
    try {
      result = body.call();
    } finally {
      if (sampler != null) {
        sampler.close();
      }
    }
    double s = seconds(started);
    double cpu = (processCpuNanos() - cpuStarted) / 1e9;
    int jobs = meter.jobs();
    int batchJobs = meter.batchJobs();
    long compiles = meter.compiles();
    double compileSeconds = meter.compileSeconds();
    long peak = RunMeter.peakHeapBytes();
    load = Math.max(load, RunMeter.loadAverage());
    long versionsAfter = 0;
    for (String t : tables) {
      versionsAfter += version(t);
    }
    if (profile != null) {
      System.out.print(profile.report(what, s));
      System.out.print(profile.sqlReport(0.3));
      System.out.print(sampler.report(what));
    }
    return new Run(
        s,
        cpu,
        jobs,
        batchJobs,
        compiles,
        compileSeconds,
        result == null ? 1 : result.batches().size(),
        versionsAfter - versionsBefore,
        peak,
        load);
  }

  /** The table's current version; -1 where there is none yet. */
  long version(String path) {
    if (!DeltaTable.isDeltaTable(spark, path)) {
      return -1;
    }
    return DeltaTable.forPath(spark, path).history(1).head().getLong(0);
  }

  /** An order event as a producer would send it: several payload columns, all hashed. */
  static final String SCHEMA =
      "order_id BIGINT, source_version BIGINT, customer_id BIGINT, status STRING,"
          + " amount DECIMAL(12,2), currency STRING, updated_at TIMESTAMP, op STRING";

  /**
   * The orders contract of bronze/README.md's pipeline file (key order_id, sequence source_version,
   * deletes by op) on a wider order row; the payload is every business column but key and sequence,
   * so each stored row has its own hash. Silver's four tables and its checkpoint live under one
   * directory per rebuild so a state can be copied and restored as a whole.
   */
  static PipelineConfig config(Path root, String state) {
    Path s = root.resolve(state);
    return ConfigLoader.parse(
        "bench-silver",
        String.join(
            "\n",
            "name: orders",
            "source:",
            "  path: " + root.resolve("landing"),
            "  schema: \"" + SCHEMA + "\"",
            "bronze:",
            "  path: " + root.resolve("bronze"),
            "  checkpoint: " + root.resolve("checkpoints/bronze"),
            "silver:",
            "  path: " + s.resolve("silver"),
            "  checkpoint: " + s.resolve("checkpoint"),
            "  keys: [order_id]",
            "  sequenceBy: [source_version]",
            "  applyAsDeletes: \"op = 'DELETE'\"",
            "  exceptColumnList: [op]",
            "  onConflict: fail",
            "  onInvalid: fail",
            ""));
  }

  static Path stateDir(PipelineConfig config) {
    return Path.of(config.requireSilver().path()).getParent();
  }

  /** The bronze table's columns, as {@code BronzeIngest} writes them. */
  static StructType bronzeSchema(PipelineConfig config) {
    StructType result = new StructType();
    for (StructField f : config.source().schema().fields()) {
      result = result.add(f.name(), f.dataType(), true);
    }
    return result
        .add(config.source().rescuedDataColumn(), DataTypes.StringType, true)
        .add(Columns.CORRUPT_RECORD, DataTypes.StringType, true)
        .add(Columns.SOURCE_FILE, DataTypes.StringType, true)
        .add(Columns.SOURCE_FILE_NAME, DataTypes.StringType, true)
        .add(Columns.SOURCE_FILE_SIZE, DataTypes.LongType, true)
        .add(Columns.SOURCE_FILE_MTIME, DataTypes.TimestampType, true)
        .add(Columns.INGESTED_AT, DataTypes.TimestampType, true);
  }

  /**
   * N orders at version 10, written straight to a bronze table created exactly as {@code
   * BronzeIngest.ensureTable} creates it (all columns nullable, change data feed on, statistics on
   * the schema's columns only): running the JSON ingestion on millions of lines would only slow the
   * benchmark down. Rows come from simulated landed files of 100,000 lines each.
   */
  void writeBronze(PipelineConfig config, long n) {
    DeltaTable.createIfNotExists(spark)
        .location(config.bronze().path())
        .addColumns(bronzeSchema(config))
        .property("delta.enableChangeDataFeed", "true")
        .property(
            io.replaysafe.bronze.BronzeTable.STATS_COLUMNS_PROPERTY,
            String.join(",", config.source().schema().fieldNames()))
        .comment("replaysafe bronze table of pipeline " + config.name())
        .execute();
    String landing = "file:" + config.source().path() + "/initial/";
    Column fileName = format_string("orders-%05d.json", col("id").divide(100_000).cast("long"));
    Dataset<Row> ids = spark.range(0, n, 1, (int) Math.max(2, n / 500_000)).toDF();
    Dataset<Row> rows =
        orders(ids, config)
            .withColumn(Columns.SOURCE_FILE, concat(lit(landing), fileName))
            .withColumn(Columns.SOURCE_FILE_NAME, fileName)
            .withColumn(Columns.SOURCE_FILE_SIZE, lit(9_000_000L));
    append(rows, config);
  }

  /**
   * The stored version of each order {@code id}, as bronze rows (provenance to be overridden). The
   * replay builds its exact retries with the same expressions, so they hash identically.
   */
  static Dataset<Row> orders(Dataset<Row> ids, PipelineConfig config) {
    Column statuses =
        functions.array(Arrays.stream(STATUSES).map(functions::lit).toArray(Column[]::new));
    Column currencies = functions.array(lit("EUR"), lit("USD"), lit("GBP"));
    Column id = col("id");
    return ids.withColumn("order_id", id)
        .withColumn("source_version", lit(STORED_VERSION))
        .withColumn("customer_id", id.multiply(7919).mod(100_003))
        .withColumn("status", element_at(statuses, id.mod(STATUSES.length).plus(1).cast("int")))
        .withColumn("amount", id.mod(100_000).plus(100).divide(100).cast("decimal(12,2)"))
        .withColumn("currency", element_at(currencies, id.mod(3).plus(1).cast("int")))
        .withColumn(
            "updated_at", functions.timestamp_seconds(id.mod(31_536_000).plus(lit(1_735_689_600L))))
        .withColumn("op", lit("UPSERT"))
        .withColumn(config.source().rescuedDataColumn(), lit(null).cast("string"))
        .withColumn(Columns.CORRUPT_RECORD, lit(null).cast("string"))
        .withColumn(Columns.SOURCE_FILE_MTIME, lit(Timestamp.valueOf("2025-01-01 00:00:00")))
        .withColumn(Columns.INGESTED_AT, functions.current_timestamp());
  }

  private void append(Dataset<Row> rows, PipelineConfig config) {
    StructType schema = bronzeSchema(config);
    rows.select(
            Arrays.stream(schema.fields())
                .map(f -> col(f.name()).cast(f.dataType()).as(f.name()))
                .toArray(Column[]::new))
        .write()
        .format("delta")
        .mode("append")
        .save(config.bronze().path());
  }

  /**
   * A replay delivery as one bronze commit (one landed file): {@code events} distinct keys drawn
   * uniformly over the table (so every silver file holds some; no layout can skip files) and not in
   * {@code exclude}, the first half newer versions with a changed payload, then a quarter older
   * versions, then a quarter exact copies of the stored version. Returns the keys.
   */
  Set<Long> appendReplay(PipelineConfig config, long n, int events, long seed, Set<Long> exclude) {
    Random random = new Random(seed);
    Set<Long> keys = new LinkedHashSet<>();
    while (keys.size() < events) {
      long key = Math.floorMod(random.nextLong(), n);
      if (!exclude.contains(key)) {
        keys.add(key);
      }
    }
    List<Row> ids = new ArrayList<>();
    int i = 0;
    for (long key : keys) {
      ids.add(RowFactory.create(key, i < events / 2 ? 0 : i < events * 3 / 4 ? 1 : 2));
      i++;
    }
    StructType idSchema =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("kind", DataTypes.IntegerType, false);
    Column update = col("kind").equalTo(0);
    Column older = col("kind").equalTo(1);
    String file = "file:" + config.source().path() + "/replay/orders-replay-" + events + ".json";
    Dataset<Row> rows =
        orders(spark.createDataFrame(ids, idSchema).coalesce(1), config)
            .withColumn(
                "source_version",
                functions
                    .when(update, lit(NEWER_VERSION))
                    .when(older, lit(OLDER_VERSION))
                    .otherwise(col("source_version")))
            .withColumn(
                "status",
                functions
                    .when(update, lit("REPLAYED_UPDATE"))
                    .when(older, lit("STALE"))
                    .otherwise(col("status")))
            .withColumn(
                "amount",
                functions
                    .when(update, col("amount").plus(1))
                    .when(older, col("amount").minus(1))
                    .otherwise(col("amount")))
            .withColumn(Columns.SOURCE_FILE, lit(file))
            .withColumn(Columns.SOURCE_FILE_NAME, lit("orders-replay-" + events + ".json"))
            .withColumn(Columns.SOURCE_FILE_SIZE, lit(300L * events))
            .withColumn(Columns.SOURCE_FILE_MTIME, functions.current_timestamp());
    append(rows, config);
    return keys;
  }

  /** replaysafe's evidence of a replay of {@code events}, then silver's content. */
  void verifyReplay(PipelineConfig config, long n, int events, long newer, SilverResult result) {
    long updates = events / 2;
    long older = events * 3 / 4 - events / 2;
    long retries = events - events * 3 / 4;
    expect(result.total(BatchReport::updated) == updates, "updated == " + updates, result);
    expect(result.total(BatchReport::olderIgnored) == older, "olderIgnored == " + older, result);
    expect(
        result.total(BatchReport::exactRetries) == retries, "exactRetries == " + retries, result);
    expect(result.total(BatchReport::inserted) == 0, "inserted == 0", result);
    expect(result.total(BatchReport::deleted) == 0, "deleted == 0", result);
    expect(result.total(BatchReport::quarantined) == 0, "quarantined == 0", result);
    expect(
        result.total(BatchReport::conflictsInBatch) + result.total(BatchReport::conflictsWithTarget)
            == 0,
        "no conflicts",
        result);
    verifySilver(config, n, newer, "replaysafe " + result.summary());
  }

  /** Silver holds N rows, {@code newer} of them at the newer version, none at an older one. */
  void verifySilver(PipelineConfig config, long n, long newer, String who) {
    Row versions =
        silverTable(config)
            .agg(
                functions.count(lit(1)),
                functions.count(functions.when(col("source_version").equalTo(NEWER_VERSION), 1)),
                functions.count(functions.when(col("status").equalTo("STALE"), 1)))
            .first();
    if (versions.getLong(0) != n || versions.getLong(1) != newer || versions.getLong(2) != 0) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "bench-silver: correctness check failed after %s: expected %d rows, %d at version"
                  + " %d and none older; found %d, %d and %d",
              who,
              n,
              newer,
              NEWER_VERSION,
              versions.getLong(0),
              versions.getLong(1),
              versions.getLong(2)));
    }
  }

  private static void expect(boolean ok, String what, SilverResult result) {
    if (!ok) {
      throw new IllegalStateException(
          "bench-silver: correctness check failed: expected " + what + "; " + result.summary());
    }
  }

  Dataset<Row> silverTable(PipelineConfig config) {
    return spark.read().format("delta").load(config.requireSilver().path());
  }

  long silverCount(PipelineConfig config) {
    return silverTable(config).count();
  }

  /** Files, bytes, deletion vectors and the layout settings of the silver table. */
  String layout(PipelineConfig config) {
    DeltaTable table = DeltaTable.forPath(spark, config.requireSilver().path());
    Row d = table.detail().first();
    long files = d.getLong(d.fieldIndex("numFiles"));
    long bytes = d.getLong(d.fieldIndex("sizeInBytes"));
    List<String> clustering = d.getList(d.fieldIndex("clusteringColumns"));
    List<String> partitions = d.getList(d.fieldIndex("partitionColumns"));
    Map<String, String> properties = d.getJavaMap(d.fieldIndex("properties"));
    long liveFiles =
        spark
            .read()
            .format("delta")
            .load(config.requireSilver().path())
            .select(col("_metadata.file_path"))
            .distinct()
            .count();
    return String.format(
        Locale.ROOT,
        "%d file(s), %.1f MiB (%.1f MiB/file avg), %d file(s) with live rows;"
            + " partitioned by %s, clustered by %s; properties %s",
        files,
        bytes / 1048576.0,
        files == 0 ? 0.0 : bytes / 1048576.0 / files,
        liveFiles,
        partitions,
        clustering,
        new java.util.TreeMap<>(properties));
  }

  static final double TARGET_IDLE_SECONDS = 15;

  /**
   * Issue 14, item 4: {@code replaysafe run} on a pipeline with nothing new, as a scheduler starts
   * it (a fresh JVM through the launcher), timed from outside. A first run ingests one small file;
   * the second, timed, finds nothing new. Bronze's and silver's own seconds come from its JSON
   * line; the rest is the JVM, class loading and the Spark session.
   */
  static boolean idleRun(Path launcher, Path base) throws Exception {
    Path dir = Files.createTempDirectory(Files.createDirectories(base), "idle-");
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Files.writeString(
        landing.resolve("orders-1.json"),
        "{\"order_id\":1,\"source_version\":1,\"status\":\"PLACED\",\"op\":\"UPSERT\"}\n");
    Path pipeline = dir.resolve("pipeline.yaml");
    Files.writeString(
        pipeline,
        String.join(
            "\n",
            "name: idle",
            "source:",
            "  path: " + landing,
            "  schema: \"order_id BIGINT, source_version BIGINT, status STRING, op STRING\"",
            "bronze:",
            "  path: " + dir.resolve("bronze"),
            "  checkpoint: " + dir.resolve("checkpoints/bronze"),
            "silver:",
            "  path: " + dir.resolve("silver"),
            "  checkpoint: " + dir.resolve("checkpoints/silver"),
            "  keys: [order_id]",
            "  sequenceBy: [source_version]",
            "  applyAsDeletes: \"op = 'DELETE'\"",
            "  exceptColumnList: [op]",
            ""));
    System.out.printf(Locale.ROOT, "%n== replaysafe run with nothing new (%s)%n", launcher);
    launch(launcher, pipeline, dir.resolve("first.err"));
    double load = RunMeter.loadAverage();
    long started = System.nanoTime();
    String json = launch(launcher, pipeline, dir.resolve("idle.err"));
    double wall = seconds(started);
    load = Math.max(load, RunMeter.loadAverage());
    com.fasterxml.jackson.databind.JsonNode report =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
    double bronze = report.path("bronze").path("seconds").asDouble();
    double silver = report.path("silver").path("seconds").asDouble();
    boolean met = wall <= TARGET_IDLE_SECONDS;
    System.out.printf(
        Locale.ROOT,
        "idle run: %.1f s wall (bronze %.1f s, silver %.1f s, the rest %.1f s: JVM start, class"
            + " loading, Spark session), %d silver batch(es), load %.2f%n",
        wall,
        bronze,
        silver,
        wall - bronze - silver,
        report.path("silver").path("batches").asInt(-1),
        load);
    System.out.printf(
        Locale.ROOT,
        "target: idle 'replaysafe run' wall time incl. JVM start: %.1f s <= %.0f s %s%n",
        wall,
        TARGET_IDLE_SECONDS,
        met ? "MET" : "NOT MET");
    return met;
  }

  /** One {@code replaysafe run --json}: its JSON line; stderr kept in {@code err}. */
  private static String launch(Path launcher, Path pipeline, Path err) throws Exception {
    Process p =
        new ProcessBuilder(launcher.toString(), "run", "--config", pipeline.toString(), "--json")
            .redirectError(err.toFile())
            .start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    int exit = p.waitFor();
    if (exit != 0) {
      throw new IllegalStateException(
          "bench-silver: 'replaysafe run' exited "
              + exit
              + ": "
              + out
              + " (stderr in "
              + err
              + ")");
    }
    String[] lines = out.strip().split("\n");
    return lines[lines.length - 1];
  }

  /** The medians, ratios and one line per target; true when every target is met. */
  static boolean printSummary(List<Measured> results) {
    System.out.printf(
        Locale.ROOT, "%n== bench-silver summary (medians; seconds; load = highest seen)%n");
    System.out.printf(
        Locale.ROOT,
        "%11s %8s %9s %9s %6s %8s %8s %6s %8s %10s %10s %9s %6s%n",
        "rows",
        "rebuild",
        "replay10k",
        "hand10k",
        "ratio",
        "replay10",
        "hand10",
        "ratio",
        "/rebuild",
        "jobs/batch",
        "commits/b",
        "heap_MiB",
        "load");
    boolean allMet = true;
    List<String> targets = new ArrayList<>();
    for (Measured m : results) {
      double ratioBig = m.replay() / m.baseline();
      double ratioSmall = m.smallReplay() / m.smallBaseline();
      List<Run> all = new ArrayList<>(m.replays());
      all.addAll(m.smallReplays());
      double jobsPerBatch = medianOf(all, r -> (double) r.batchJobs() / Math.max(1, r.batches()));
      double commitsPerBatch = medianOf(all, r -> (double) r.commits() / Math.max(1, r.batches()));
      List<Run> every = new ArrayList<>(all);
      every.addAll(m.rebuilds());
      every.addAll(m.baselines());
      every.addAll(m.smallBaselines());
      double heap = every.stream().mapToLong(Run::peakHeap).max().orElse(0) / 1048576.0;
      double load = every.stream().mapToDouble(Run::load).max().orElse(0);
      System.out.printf(
          Locale.ROOT,
          "%,11d %8.2f %9.2f %9.2f %6.2f %8.2f %8.2f %6.2f %8.3f %10.1f %10.1f %9.0f %6.2f%n",
          m.rows(),
          m.rebuild(),
          m.replay(),
          m.baseline(),
          ratioBig,
          m.smallReplay(),
          m.smallBaseline(),
          ratioSmall,
          m.rebuildRatio(),
          jobsPerBatch,
          commitsPerBatch,
          heap,
          load);
      System.out.printf(
          Locale.ROOT,
          "%,11d jobs per run: replaysafe %s (10k) %s (10); hand-written %s (10k) %s (10)%n",
          m.rows(),
          m.replays().stream().map(Run::jobs).toList(),
          m.smallReplays().stream().map(Run::jobs).toList(),
          m.baselines().stream().map(Run::jobs).toList(),
          m.smallBaselines().stream().map(Run::jobs).toList());
      System.out.printf(
          Locale.ROOT,
          "%,11d classes compiled per run: replaysafe %s (10k) %s (10); hand-written %s (10k) %s"
              + " (10)%n",
          m.rows(),
          m.replays().stream().map(Run::compiles).toList(),
          m.smallReplays().stream().map(Run::compiles).toList(),
          m.baselines().stream().map(Run::compiles).toList(),
          m.smallBaselines().stream().map(Run::compiles).toList());
      allMet &=
          target(
              targets, "replay / hand-written, 10,000 events", m, ratioBig, TARGET_BASELINE_RATIO);
      allMet &=
          target(targets, "replay / hand-written, 10 events", m, ratioSmall, TARGET_BASELINE_RATIO);
      allMet &=
          target(
              targets,
              "replay / rebuild, 10,000 events",
              m,
              m.rebuildRatio(),
              TARGET_REBUILD_RATIO);
    }
    if (results.size() > 1) {
      Measured first = results.get(0);
      for (Measured m : results.subList(1, results.size())) {
        double growth = m.replay() / first.replay();
        String line =
            String.format(
                Locale.ROOT,
                "target: replay growth %,d -> %,d rows (x%.1f rows): x%.2f <= x%.2f %s"
                    + " (rebuild x%.2f)",
                first.rows(),
                m.rows(),
                (double) m.rows() / first.rows(),
                growth,
                TARGET_GROWTH,
                growth <= TARGET_GROWTH ? "MET" : "NOT MET",
                m.rebuild() / first.rebuild());
        targets.add(line);
        allMet &= growth <= TARGET_GROWTH;
      }
    }
    for (Measured m : results) {
      System.out.printf(Locale.ROOT, "layout at %,d rows: %s%n", m.rows(), m.layoutAfterRebuild());
    }
    targets.forEach(System.out::println);
    return allMet;
  }

  private static boolean target(
      List<String> lines, String what, Measured m, double value, double limit) {
    boolean met = value <= limit;
    lines.add(
        String.format(
            Locale.ROOT,
            "target: %s at %,d rows: %.3f <= %.2f %s",
            what,
            m.rows(),
            value,
            limit,
            met ? "MET" : "NOT MET"));
    return met;
  }

  /** CPU time of the whole JVM (all threads): less sensitive than wall clock to other load. */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int mid = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2;
  }

  static double seconds(long started) {
    return (System.nanoTime() - started) / 1e9;
  }

  static void copyRecursively(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  static void deleteRecursively(Path path) {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(path)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
