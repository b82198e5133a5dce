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
import java.util.stream.Stream;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Issue 3, item 13: the cost of a replay into a large silver table against rebuilding silver from
 * bronze. Not a unit test: {@code scripts/bench-silver [ROWS...]} runs it.
 *
 * <p>Per size N: a bronze table of N orders (one version each) is written directly with Spark,
 * created as {@code BronzeIngest} creates it (change data feed on); the real {@link SilverJob}
 * builds silver from it on a fresh path and checkpoint (the <b>rebuild</b>, timed). Then 10,000
 * replay events are appended to bronze as one commit: half updates (a newer version), a quarter
 * older versions, a quarter exact retries of the stored version, each on a distinct key spread
 * uniformly over the table (the worst case for file pruning). The real {@link SilverJob} then runs
 * incrementally (the <b>replay</b>, timed) and its evidence is checked: 5,000 updated, 2,500 older
 * ignored, 2,500 exact retries, nothing inserted, deleted or quarantined, and silver still holds N
 * rows. The replay is repeated on copies of the post-rebuild state (tables and checkpoint) so one
 * rebuild serves several replay measurements; the median is reported.
 */
public final class SilverBenchmark {
  static final int EVENTS = 10_000;
  static final List<String> VARIANTS =
      List.of(System.getProperty("bench.variants", "default").split(","));
  static final long STORED_VERSION = 10;
  static final long NEWER_VERSION = 11;
  static final long OLDER_VERSION = 5;
  static final double TARGET_RATIO = 0.10;
  static final String[] STATUSES = {"PLACED", "PAID", "PACKED", "SHIPPED", "DELIVERED"};

  private final SparkSession spark;
  private final Path base;
  private final JobProfile profile;

  SilverBenchmark(SparkSession spark, Path base, JobProfile profile) {
    this.spark = spark;
    this.base = base;
    this.profile = profile;
    if (profile != null) {
      spark.sparkContext().addSparkListener(profile);
    }
  }

  /** What one size measured. */
  record Measured(
      long rows,
      List<Double> rebuildSeconds,
      List<Double> rebuildCpu,
      List<Double> replaySeconds,
      List<Double> replayCpu,
      List<Double> replayBatchSeconds,
      String layoutAfterRebuild,
      String layoutAfterReplay) {
    double rebuild() {
      return median(rebuildSeconds);
    }

    double replay() {
      return median(replaySeconds);
    }

    double ratio() {
      return replay() / rebuild();
    }

    double cpuRatio() {
      return median(replayCpu) / median(rebuildCpu);
    }
  }

  public static void main(String[] args) throws IOException {
    List<Long> sizes = new ArrayList<>();
    int replays = 3;
    int rebuilds = 1;
    Path dir = null;
    boolean keep = false;
    boolean profile = false;
    long warmup = 20_000;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--replays" -> replays = Integer.parseInt(args[++i]);
        case "--rebuilds" -> rebuilds = Integer.parseInt(args[++i]);
        case "--dir" -> dir = Path.of(args[++i]);
        case "--keep" -> keep = true;
        case "--profile" -> profile = true;
        case "--warmup" -> warmup = Long.parseLong(args[++i]);
        case "-h", "--help" -> {
          System.out.println(
              "usage: bench-silver [--replays K] [--rebuilds R] [--dir DIR] [--keep] [--profile]"
                  + " [--warmup ROWS]"
                  + " [ROWS...]\n"
                  + "  ROWS: silver table sizes (default 1000000 5000000); K replays (default 3)"
                  + " and R rebuilds (default 1) per size, medians reported; a warm-up run on"
                  + " ROWS rows (default 20000, 0 for none) first, not reported");
          return;
        }
        default -> sizes.add(Long.parseLong(args[i].replace("_", "").replace(",", "")));
      }
    }
    if (sizes.isEmpty()) {
      sizes = List.of(1_000_000L, 5_000_000L);
    }
    for (long n : sizes) {
      if (n < EVENTS) {
        throw new IllegalArgumentException(
            "ROWS must be at least " + EVENTS + " (the replay touches that many distinct keys)");
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
        "bench-silver: sizes %s, %d replay event(s), %d rebuild(s) and %d replay(s) per size,"
            + " Spark %s on %s (shuffle partitions %s), data under %s%n",
        sizes,
        EVENTS,
        rebuilds,
        replays,
        spark.version(),
        spark.sparkContext().master(),
        spark.conf().get("spark.sql.shuffle.partitions"),
        base);
    List<Measured> results = new ArrayList<>();
    try {
      SilverBenchmark bench = new SilverBenchmark(spark, base, profile ? new JobProfile() : null);
      if (warmup > 0) {
        // JIT, class loading and Spark's code generation warm up here, so neither the rebuild
        // nor the replay of the first size pays for them.
        System.out.printf(Locale.ROOT, "%n== warm-up (not reported)");
        bench.run(Math.max(warmup, EVENTS), 1, 1);
      }
      for (long n : sizes) {
        results.add(bench.run(n, rebuilds, replays));
      }
    } finally {
      if (!keep && dir == null) {
        deleteRecursively(base);
      }
    }
    printSummary(results);
  }

  Measured run(long n, int rebuilds, int replays) throws IOException {
    Path root = base.resolve("n" + n);
    deleteRecursively(root);
    System.out.printf(Locale.ROOT, "%n== %,d rows%n", n);
    long t0 = System.nanoTime();
    PipelineConfig first = config(root, "rebuild-1");
    writeBronze(first, n);
    System.out.printf(
        Locale.ROOT, "bronze: %,d rows written in %.1f s (not timed)%n", n, seconds(t0));

    // The rebuild: fresh silver tables and checkpoint over the whole bronze table.
    List<Double> rebuildSeconds = new ArrayList<>();
    List<Double> rebuildCpu = new ArrayList<>();
    for (int r = 1; r <= rebuilds; r++) {
      PipelineConfig config = config(root, "rebuild-" + r);
      System.setProperty("replaysafe.exp", System.getProperty("bench.rebuildVariant", "default"));
      SilverResult result = timed("rebuild " + r, config, rebuildSeconds, rebuildCpu);
      double s = rebuildSeconds.get(rebuildSeconds.size() - 1);
      expect(result.total(BatchReport::inserted) == n, "rebuild inserted " + n, result);
      expect(silverCount(config) == n, "silver holds " + n + " rows after the rebuild", result);
      System.out.printf(
          Locale.ROOT,
          "rebuild %d: %.2f s, cpu %.1f s (%d batch(es), silver version %s)%n",
          r,
          s,
          rebuildCpu.get(rebuildCpu.size() - 1),
          result.batches().size(),
          result.silverVersion());
      if (r > 1) {
        deleteRecursively(stateDir(config));
      }
    }
    PipelineConfig config = config(root, "rebuild-1");
    String layoutAfterRebuild = layout(config);
    System.out.println("silver layout after the rebuild: " + layoutAfterRebuild);

    // The replay: one new bronze commit, applied incrementally, on a copy of the rebuilt state.
    Path pristine = root.resolve("pristine");
    copyRecursively(stateDir(config), pristine);
    appendReplay(config, n);
    List<Double> replaySeconds = new ArrayList<>();
    List<Double> replayCpu = new ArrayList<>();
    List<Double> batchSeconds = new ArrayList<>();
    String layoutAfterReplay = null;
    for (int r = 1; r <= replays; r++) {
      if (r > 1) {
        deleteRecursively(stateDir(config));
        copyRecursively(pristine, stateDir(config));
      }
      String variant = VARIANTS.get((r - 1) % VARIANTS.size());
      System.setProperty("replaysafe.exp", variant);
      SilverResult result =
          timed("replay " + r + " [" + variant + "]", config, replaySeconds, replayCpu);
      double s = replaySeconds.get(replaySeconds.size() - 1);
      verifyReplay(config, n, result);
      double batch = result.batches().stream().mapToDouble(BatchReport::seconds).sum();
      batchSeconds.add(batch);
      System.out.printf(
          Locale.ROOT,
          "replay %d [%s]: %.2f s, cpu %.1f s (batch %.2f s): updated %d, older ignored %d,"
              + " exact retries %d, inserted %d%n",
          r,
          variant,
          s,
          replayCpu.get(replayCpu.size() - 1),
          batch,
          result.total(BatchReport::updated),
          result.total(BatchReport::olderIgnored),
          result.total(BatchReport::exactRetries),
          result.total(BatchReport::inserted));
      layoutAfterReplay = layout(config);
    }
    System.out.println("silver layout after the replay: " + layoutAfterReplay);
    Measured m =
        new Measured(
            n,
            rebuildSeconds,
            rebuildCpu,
            replaySeconds,
            replayCpu,
            batchSeconds,
            layoutAfterRebuild,
            layoutAfterReplay);
    System.out.printf(
        Locale.ROOT,
        "%,d rows: rebuild %.2f s, replay %.2f s, ratio %.3f: target <= %.2f %s%n",
        n,
        m.rebuild(),
        m.replay(),
        m.ratio(),
        TARGET_RATIO,
        m.ratio() <= TARGET_RATIO ? "met" : "NOT met");
    return m;
  }

  /** One real silver run, timed (wall clock around {@link SilverJob#execute()}). */
  private SilverResult timed(
      String what, PipelineConfig config, List<Double> seconds, List<Double> cpuSeconds) {
    if (profile != null) {
      profile.reset();
    }
    StackSampler sampler = profile == null ? null : new StackSampler();
    long cpuStarted = processCpuNanos();
    long started = System.nanoTime();
    SilverResult result;
    try {
      result = SilverJob.from(config, spark).execute();
    } finally {
      if (sampler != null) {
        sampler.close();
      }
    }
    double s = seconds(started);
    seconds.add(s);
    cpuSeconds.add((processCpuNanos() - cpuStarted) / 1e9);
    if (profile != null) {
      System.out.print(profile.report(what, s));
      System.out.print(profile.sqlReport(0.3));
      System.out.print(sampler.report(what));
    }
    return result;
  }

  /** An order event as a producer would send it: several payload columns, all hashed. */
  static final String SCHEMA =
      "order_id BIGINT, source_version BIGINT, customer_id BIGINT, status STRING,"
          + " amount DECIMAL(12,2), currency STRING, updated_at TIMESTAMP, op STRING";

  /**
   * The orders contract of the README (key order_id, sequence source_version, deletes by op) on a
   * wider order row; the payload is every business column but key and sequence, so each stored row
   * has its own hash. Silver's four tables and its checkpoint live under one directory per rebuild
   * so a state can be copied and restored as a whole.
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
   * BronzeIngest.ensureTable} creates it (all columns nullable, change data feed on): running the
   * JSON ingestion on millions of lines would only slow the benchmark down. Rows come from
   * simulated landed files of 100,000 lines each.
   */
  void writeBronze(PipelineConfig config, long n) {
    DeltaTable.createIfNotExists(spark)
        .location(config.bronze().path())
        .addColumns(bronzeSchema(config))
        .property("delta.enableChangeDataFeed", "true")
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
   * The replay delivery as one bronze commit (one landed file): 10,000 distinct keys drawn
   * uniformly over the table (so every silver file holds some; no layout can skip files), the first
   * half newer versions with a changed payload, then a quarter older versions, then a quarter exact
   * copies of the stored version.
   */
  void appendReplay(PipelineConfig config, long n) {
    Random random = new Random(13);
    Set<Long> keys = new LinkedHashSet<>();
    while (keys.size() < EVENTS) {
      keys.add(Math.floorMod(random.nextLong(), n));
    }
    List<Row> ids = new ArrayList<>();
    int i = 0;
    for (long key : keys) {
      ids.add(RowFactory.create(key, i < EVENTS / 2 ? 0 : i < EVENTS * 3 / 4 ? 1 : 2));
      i++;
    }
    StructType idSchema =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("kind", DataTypes.IntegerType, false);
    Column update = col("kind").equalTo(0);
    Column older = col("kind").equalTo(1);
    String file = "file:" + config.source().path() + "/replay/orders-replay.json";
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
            .withColumn(Columns.SOURCE_FILE_NAME, lit("orders-replay.json"))
            .withColumn(Columns.SOURCE_FILE_SIZE, lit(3_000_000L))
            .withColumn(Columns.SOURCE_FILE_MTIME, functions.current_timestamp());
    append(rows, config);
  }

  void verifyReplay(PipelineConfig config, long n, SilverResult result) {
    expect(result.total(BatchReport::updated) == EVENTS / 2, "updated == " + EVENTS / 2, result);
    expect(
        result.total(BatchReport::olderIgnored) == EVENTS / 4,
        "olderIgnored == " + EVENTS / 4,
        result);
    expect(
        result.total(BatchReport::exactRetries) == EVENTS / 4,
        "exactRetries == " + EVENTS / 4,
        result);
    expect(result.total(BatchReport::inserted) == 0, "inserted == 0", result);
    expect(result.total(BatchReport::deleted) == 0, "deleted == 0", result);
    expect(result.total(BatchReport::quarantined) == 0, "quarantined == 0", result);
    expect(
        result.total(BatchReport::conflictsInBatch) + result.total(BatchReport::conflictsWithTarget)
            == 0,
        "no conflicts",
        result);
    expect(silverCount(config) == n, "silver holds " + n + " rows after the replay", result);
    Row versions =
        silver(config)
            .agg(
                functions.count(functions.when(col("source_version").equalTo(NEWER_VERSION), 1)),
                functions.count(functions.when(col("status").equalTo("STALE"), 1)))
            .first();
    expect(
        versions.getLong(0) == EVENTS / 2 && versions.getLong(1) == 0,
        "silver holds exactly "
            + EVENTS / 2
            + " rows at version "
            + NEWER_VERSION
            + " and no older version (found "
            + versions.getLong(0)
            + " and "
            + versions.getLong(1)
            + ")",
        result);
  }

  private static void expect(boolean ok, String what, SilverResult result) {
    if (!ok) {
      throw new IllegalStateException(
          "bench-silver: correctness check failed: expected " + what + "; " + result.summary());
    }
  }

  Dataset<Row> silver(PipelineConfig config) {
    return spark.read().format("delta").load(config.requireSilver().path());
  }

  long silverCount(PipelineConfig config) {
    return silver(config).count();
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

  static void printSummary(List<Measured> results) {
    System.out.printf(Locale.ROOT, "%n== bench-silver summary (medians)%n");
    System.out.printf(
        Locale.ROOT,
        "%12s %10s %10s %7s %8s %10s %10s %9s   %s%n",
        "rows",
        "rebuild_s",
        "replay_s",
        "ratio",
        "target",
        "rebuild_cpu",
        "replay_cpu",
        "cpu_ratio",
        "replay runs (s)");
    for (Measured m : results) {
      System.out.printf(
          Locale.ROOT,
          "%,12d %10.2f %10.2f %7.3f %8s %10.1f %10.1f %9.3f   %s%n",
          m.rows(),
          m.rebuild(),
          m.replay(),
          m.ratio(),
          m.ratio() <= TARGET_RATIO ? "met" : "NOT met",
          median(m.rebuildCpu()),
          median(m.replayCpu()),
          m.cpuRatio(),
          m.replaySeconds().stream().map(s -> String.format(Locale.ROOT, "%.2f", s)).toList());
    }
    for (Measured m : results) {
      System.out.printf(Locale.ROOT, "layout at %,d rows: %s%n", m.rows(), m.layoutAfterRebuild());
    }
    if (results.size() > 1) {
      Measured first = results.get(0);
      for (Measured m : results.subList(1, results.size())) {
        System.out.printf(
            Locale.ROOT,
            "growth %,d -> %,d rows (x%.1f): replay x%.2f (%.2f -> %.2f s), rebuild x%.2f"
                + " (%.2f -> %.2f s)%n",
            first.rows(),
            m.rows(),
            (double) m.rows() / first.rows(),
            m.replay() / first.replay(),
            first.replay(),
            m.replay(),
            m.rebuild() / first.rebuild(),
            first.rebuild(),
            m.rebuild());
      }
    }
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
