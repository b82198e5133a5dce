package io.replaysafe.bronze.bench;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;

/**
 * Bronze throughput against plain Spark (issue "Foundation and bronze", item 7). Generates N
 * synthetic JSON-lines events in 20 files on local disk and ingests them with replaysafe bronze and
 * with a plain Spark streaming JSON read of the same schema appended to Delta (no rescue, no
 * provenance), and with the same plain read writing bronze's provenance columns, each into a fresh
 * table and checkpoint with {@code Trigger.AvailableNow} (with {@code --append}, into a table and
 * checkpoint that already hold an earlier run). Prints events/s and CPU seconds for all three, the
 * ratios (wall clock and CPU) and peak heap; the target is ratio >= 0.9 against the plain read.
 *
 * <p>{@code --format json|parquet|avro|all} (default all): the same events as JSON lines, or
 * converted by Spark's writer into {@link #FILES} Parquet or Avro files (with the undeclared field
 * as a column, null where an event lacks it); the plain paths then read that format with Spark's
 * own reader on the declared schema. With {@code all} the three formats run one after the other and
 * a last table gives each one's ratios.
 *
 * <p>A benchmark, not a test: it lives in test sources so it is not shipped, and {@code
 * scripts/bench-bronze} runs it. It fails (exit 1) when either table does not hold exactly N rows.
 */
public final class BronzeBenchmark {
  static final String SCHEMA =
      "order_id BIGINT, source_version BIGINT, status STRING, op STRING, amount DOUBLE,"
          + " customer STRING";
  static final long DEFAULT_EVENTS = 1_000_000L;

  /** Measured rounds per path; the best is reported, since other load only ever adds time. */
  static final int DEFAULT_ROUNDS = 3;

  static final int FILES = 20;
  static final double TARGET_RATIO = 0.9;

  /** One event in this many carries a field the schema does not declare (0.1 %). */
  static final int UNKNOWN_FIELD_EVERY = 1000;

  static final String UNKNOWN_FIELD = "coupon";

  /** Small enough to be quick, large enough for the JIT to compile both hot paths. */
  static final long WARM_UP_EVENTS = 50_000L;

  private static final String[] STATUSES = {"CREATED", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"};

  /** Debezium-style operation codes: create, update, delete. */
  private static final String[] OPS = {"c", "u", "d"};

  /** The two ingestion paths compared. */
  enum Side {
    BASELINE("baseline"),
    PROVENANCE("provenance"),
    REPLAYSAFE("replaysafe");

    final String label;

    Side(String label) {
      this.label = label;
    }
  }

  /**
   * One timed ingestion: wall-clock seconds (the figure compared), CPU seconds of the whole JVM
   * (less sensitive to other processes on the machine), the share of the machine's CPU that other
   * processes used meanwhile, and peak heap.
   */
  record Run(
      Side side,
      int round,
      double seconds,
      double cpuSeconds,
      double othersCpuShare,
      long peakHeapBytes) {

    /** Other processes took enough CPU to distort the wall-clock comparison. */
    boolean disturbed() {
      return othersCpuShare > DISTURBED_SHARE;
    }
  }

  /** Above this share of the machine's CPU used by other processes, a round is flagged. */
  static final double DISTURBED_SHARE = 0.10;

  /** The generated input. */
  record Input(Path dir, long events, long bytes, long withUnknownField) {}

  private final SparkSession spark;
  private final StructType schema = StructType.fromDDL(SCHEMA);
  private final Path work;
  private final boolean append;
  private final String format;

  /** With {@code --append}: the input of every path's earlier, untimed run (the warm-up's). */
  private Input seed;

  private int tables;

  BronzeBenchmark(SparkSession spark, Path work, boolean append, String format) {
    this.spark = spark;
    this.work = work;
    this.append = append;
    this.format = format;
  }

  static final List<String> FORMATS = List.of("json", "parquet", "avro");

  /** One format's compared figures, for the last table of {@code --format all}. */
  record Ratios(String format, double baseline, double provenance, double cpuProvenance) {}

  public static void main(String[] args) throws Exception {
    boolean append = List.of(args).contains("--append");
    String formatArg =
        Stream.of(args)
            .filter(a -> a.startsWith("--format="))
            .map(a -> a.substring("--format=".length()))
            .findFirst()
            .orElse("all");
    List<String> formats = formatArg.equals("all") ? FORMATS : List.of(formatArg);
    String[] positional =
        Stream.of(args)
            .filter(a -> !a.equals("--append") && !a.startsWith("--format="))
            .toArray(String[]::new);
    long events;
    int rounds;
    try {
      events =
          positional.length > 0 ? Long.parseLong(positional[0].replace("_", "")) : DEFAULT_EVENTS;
      rounds = positional.length > 1 ? Integer.parseInt(positional[1]) : DEFAULT_ROUNDS;
    } catch (NumberFormatException e) {
      events = -1;
      rounds = -1;
    }
    if (events < FILES || rounds < 1 || positional.length > 2 || !FORMATS.containsAll(formats)) {
      System.err.printf(
          Locale.ROOT,
          "usage: bench-bronze [--append] [--format=json|parquet|avro|all] [EVENTS] [ROUNDS]%n"
              + "  --format: the files' format, default all (one after the other)%n"
              + "  EVENTS >= %d, default %,d; ROUNDS"
              + " >= 1, default %d%n  --append: every timed run appends to a table and"
              + " checkpoint that already hold an earlier run of the same path (production's"
              + " steady state) instead of writing a new table%n",
          FILES,
          DEFAULT_EVENTS,
          DEFAULT_ROUNDS);
      System.exit(2);
    }
    Path work = Files.createTempDirectory("replaysafe-bench-");
    // Ctrl-C must not leave 100+ MB behind in the temp directory.
    Thread cleanup = new Thread(() -> deleteTree(work), "bench-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    SparkSession spark = null;
    int exit = 0;
    try {
      spark = SparkSessions.getOrCreate("replaysafe-bench-bronze");
      List<Ratios> ratios = new ArrayList<>();
      for (String format : formats) {
        ratios.add(
            new BronzeBenchmark(spark, work.resolve(format), append, format).run(events, rounds));
      }
      if (ratios.size() > 1) {
        System.out.println();
        System.out.println(
            "by format (replaysafe / plain Spark reader of the same files, events/s; target >= "
                + TARGET_RATIO
                + " against the same provenance columns)");
        System.out.printf(
            Locale.ROOT,
            "%-8s %18s %22s %10s%n",
            "format",
            "vs plain schema",
            "vs plain+provenance",
            "CPU ratio");
        for (Ratios r : ratios) {
          System.out.printf(
              Locale.ROOT,
              "%-8s %18.3f %22.3f %10.3f%n",
              r.format(),
              r.baseline(),
              r.provenance(),
              r.cpuProvenance());
        }
      }
    } catch (BenchmarkFailure e) {
      System.out.println();
      System.out.println("BENCHMARK FAILED: " + e.getMessage());
      exit = 1;
    } finally {
      if (spark != null) {
        spark.stop();
      }
      deleteTree(work);
    }
    System.exit(exit);
  }

  Ratios run(long events, int rounds) throws Exception {
    Files.createDirectories(work);
    long started = System.nanoTime();
    Input warmUp = generate(work.resolve("warm-up"), Math.min(WARM_UP_EVENTS, events));
    Input input = generate(work.resolve("landing"), events);
    printHeader(input, rounds);

    // Both paths once on a small input first, so JIT compilation and Spark's first-query costs
    // (class loading, codegen, Delta log setup) are not billed to whichever path runs first.
    if (append) {
      seed = warmUp;
    }
    for (Side side : Side.values()) {
      measure(side, warmUp, 0);
    }
    System.out.printf(
        Locale.ROOT,
        "warm-up: both paths once on %,d events (%d files), not measured%n%n",
        warmUp.events(),
        FILES);

    List<Run> runs = new ArrayList<>();
    System.out.printf(
        Locale.ROOT,
        "%-11s %5s %9s %12s %8s %8s %15s%n",
        "path",
        "round",
        "seconds",
        "events/s",
        "cpu s",
        "others",
        "peak heap MiB");
    for (int round = 1; round <= rounds; round++) {
      // Alternate which path goes first, so neither always runs on the warmer (or more
      // fragmented) heap.
      Side[] order =
          round % 2 == 1
              ? new Side[] {Side.BASELINE, Side.PROVENANCE, Side.REPLAYSAFE}
              : new Side[] {Side.REPLAYSAFE, Side.PROVENANCE, Side.BASELINE};
      for (Side side : order) {
        Run run = measure(side, input, round);
        runs.add(run);
        System.out.printf(
            Locale.ROOT,
            "%-11s %5d %9.2f %,12.0f %8.2f %7.0f%% %15.0f%s%n",
            side.label,
            round,
            run.seconds(),
            events / run.seconds(),
            run.cpuSeconds(),
            100 * run.othersCpuShare(),
            mib(run.peakHeapBytes()),
            run.disturbed() ? "  (disturbed)" : "");
      }
    }
    return printSummary(input, rounds, runs, (System.nanoTime() - started) / 1e9);
  }

  // ---------------------------------------------------------------------------------------------
  // The three paths

  /**
   * Where one timed run reads and writes. With {@code --append}, the table and checkpoint already
   * hold an earlier run of the same path (the warm-up input's files, linked under other names):
   * production's steady state, where every run but the first appends to an existing table and the
   * append checks its idempotence against that table's log.
   */
  private record Target(Path source, String table, String checkpoint) {}

  private Target target(Side side, Input input) throws Exception {
    String table = newDir(side.label + "-table");
    String checkpoint = newDir(side.label + "-checkpoint");
    if (seed == null) {
      return new Target(input.dir(), table, checkpoint);
    }
    Path source = Path.of(newDir(side.label + "-source"));
    link(seed, source, "seed-");
    ingest(side, source, table, checkpoint); // the earlier run, not timed
    link(input, source, "");
    return new Target(source, table, checkpoint);
  }

  /** Hard links to {@code input}'s files in {@code dir}: new paths to the file source, no copy. */
  private static void link(Input input, Path dir, String prefix) throws IOException {
    Files.createDirectories(dir);
    try (Stream<Path> files = Files.list(input.dir())) {
      for (Path f : files.toList()) {
        Files.createLink(dir.resolve(prefix + f.getFileName()), f);
      }
    }
  }

  /** One timed run of {@code side} on {@code input}, then its checks. */
  Run measure(Side side, Input input, int round) throws Exception {
    Target target = target(side, input);
    Meter meter = Meter.start();
    BronzeResult result = ingest(side, target.source(), target.table(), target.checkpoint());
    Run run = meter.stop(side, round);
    if (result != null) {
      checkReplaysafe(result, input, target.table());
    }
    verifyTable(side, target.table(), input);
    deleteTree(Path.of(target.table()));
    deleteTree(Path.of(target.checkpoint()));
    if (!target.source().equals(input.dir())) {
      deleteTree(target.source());
    }
    return run;
  }

  /** Runs {@code side} over the files in {@code source}; replaysafe's result, else null. */
  private BronzeResult ingest(Side side, Path source, String table, String checkpoint)
      throws TimeoutException, StreamingQueryException {
    switch (side) {
      case BASELINE -> ingestBaseline(source, table, checkpoint);
      case PROVENANCE -> ingestWithProvenance(source, table, checkpoint);
      case REPLAYSAFE -> {
        return ingestReplaysafe(source, table, checkpoint);
      }
    }
    return null;
  }

  /** Plain Spark: the JSON file source with the same schema, straight into Delta. */
  void ingestBaseline(Path source, String table, String checkpoint)
      throws TimeoutException, StreamingQueryException {
    StreamingQuery query =
        spark
            .readStream()
            .format(format)
            .schema(schema)
            .load(source.toString())
            .writeStream()
            .format("delta")
            .queryName("bench_baseline")
            .outputMode("append")
            .option("checkpointLocation", checkpoint)
            .trigger(Trigger.AvailableNow())
            .start(table);
    query.awaitTermination();
  }

  /**
   * Plain Spark writing what bronze writes besides rescue: Spark's own {@code _corrupt_record} and
   * the same provenance columns from {@code _metadata}, with Delta's default statistics. The ratio
   * against it is the cost of rescue alone.
   */
  void ingestWithProvenance(Path source, String table, String checkpoint)
      throws TimeoutException, StreamingQueryException {
    StreamingQuery query =
        spark
            .readStream()
            .format(format)
            // JSON lines only: Spark's Parquet and Avro readers have no corrupt-record column.
            .schema(format.equals("json") ? schema.add("_corrupt_record", "string") : schema)
            .load(source.toString())
            .selectExpr(
                "*",
                "_metadata.file_path AS source_file",
                "_metadata.file_name AS source_file_name",
                "_metadata.file_size AS source_file_size",
                "_metadata.file_modification_time AS source_file_mtime",
                "current_timestamp() AS ingested_at")
            .writeStream()
            .format("delta")
            .queryName("bench_provenance")
            .outputMode("append")
            .option("checkpointLocation", checkpoint)
            .trigger(Trigger.AvailableNow())
            .start(table);
    query.awaitTermination();
  }

  /**
   * replaysafe bronze exactly as the CLI runs it: a parsed pipeline file and {@code execute()}. The
   * time is the whole call, including the checkpoint's source binding and the table-version lookup
   * for the summary, since both are part of every bronze run.
   */
  BronzeResult ingestReplaysafe(Path source, String table, String checkpoint) {
    PipelineConfig config =
        ConfigLoader.parse(
            "bench",
            "name: bench\n"
                + "source:\n"
                + "  path: "
                + source
                + "\n"
                + "  format: "
                + format
                + "\n"
                + "  schema: \""
                + SCHEMA
                + "\"\n"
                + "bronze:\n"
                + "  path: "
                + table
                + "\n"
                + "  checkpoint: "
                + checkpoint
                + "\n");
    return BronzeIngest.from(config, spark).execute();
  }

  /** What the timed run reported, and the rescued rows in its table (the earlier run's too). */
  private void checkReplaysafe(BronzeResult result, Input input, String table) {
    check(
        result.rows() == input.events(),
        "replaysafe reported %d rows, expected %d",
        result.rows(),
        input.events());
    check(
        result.files() == FILES,
        "replaysafe reported %d files, expected %d",
        result.files(),
        FILES);
    check(
        result.rescuedRows() == input.withUnknownField(),
        "replaysafe reported %d rows with rescued data, expected %d",
        result.rescuedRows(),
        input.withUnknownField());
    check(result.corruptRows() == 0, "replaysafe reported %d corrupt rows", result.corruptRows());
    long expected = input.withUnknownField() + (seed == null ? 0 : seed.withUnknownField());
    long rescuedInTable =
        spark
            .read()
            .format("delta")
            .load(table)
            .where("_rescued_data LIKE '%\"" + UNKNOWN_FIELD + "\"%'")
            .count();
    check(
        rescuedInTable == expected,
        "replaysafe table has %d rows with \"%s\" in _rescued_data, expected %d",
        rescuedInTable,
        UNKNOWN_FIELD,
        expected);
  }

  /**
   * Exactly N rows, every one with its typed key: a fast run that lost or nulled rows is no win.
   */
  private void verifyTable(Side side, String table, Input input) {
    Row counts =
        spark
            .read()
            .format("delta")
            .load(table)
            .selectExpr("count(*)", "count(order_id)", "count(amount)", "count(DISTINCT order_id)")
            .head();
    // The earlier run of --append adds the warm-up's rows, whose order ids the input repeats.
    long rows = input.events() + (seed == null ? 0 : seed.events());
    for (int i = 0; i < 4; i++) {
      long expected = i < 3 ? rows : input.events();
      check(
          counts.getLong(i) == expected,
          "%s table %s: %s is %d, expected exactly %d",
          side.label,
          table,
          List.of("count(*)", "count(order_id)", "count(amount)", "count(DISTINCT order_id)")
              .get(i),
          counts.getLong(i),
          expected);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Input

  /**
   * N events, about 100 bytes each, in {@link #FILES} files of consecutive order ids; every {@link
   * #UNKNOWN_FIELD_EVERY}th event also carries {@link #UNKNOWN_FIELD}. Seeded, so every run reads
   * the same bytes.
   */
  Input generate(Path dir, long events) throws IOException {
    if (format.equals("json")) {
      return generateJson(dir, events);
    }
    Input json = generateJson(work.resolve(dir.getFileName() + "-json"), events);
    // Spark's own writer, one file per JSON file: the undeclared field is a column of its own.
    Path written = work.resolve(dir.getFileName() + "-written");
    spark
        .read()
        .schema(schema.add(UNKNOWN_FIELD, "string"))
        .json(json.dir().toString())
        .repartition(FILES)
        .write()
        .format(format)
        .save(written.toString());
    Files.createDirectories(dir);
    long bytes = 0;
    int n = 0;
    try (Stream<Path> files = Files.list(written)) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith("part-")).toList()) {
        Path to = dir.resolve(String.format(Locale.ROOT, "events-%02d.%s", n++, format));
        Files.move(f, to);
        bytes += Files.size(to);
      }
    }
    deleteTree(written);
    deleteTree(json.dir());
    check(n == FILES, "Spark wrote %d %s files, expected %d", n, format, FILES);
    return new Input(dir, events, bytes, json.withUnknownField());
  }

  static Input generateJson(Path dir, long events) throws IOException {
    Files.createDirectories(dir);
    SplittableRandom random = new SplittableRandom(20260101L);
    long bytes = 0;
    long unknown = 0;
    StringBuilder line = new StringBuilder(160);
    for (int file = 0; file < FILES; file++) {
      long from = events * file / FILES;
      long to = events * (file + 1) / FILES;
      Path path = dir.resolve(String.format(Locale.ROOT, "events-%02d.json", file));
      try (BufferedWriter out = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
        for (long i = from; i < to; i++) {
          line.setLength(0);
          long cents = random.nextLong(1, 1_000_000L);
          line.append("{\"order_id\":")
              .append(i + 1)
              .append(",\"source_version\":")
              .append(random.nextInt(1, 10))
              .append(",\"status\":\"")
              .append(STATUSES[random.nextInt(STATUSES.length)])
              .append("\",\"op\":\"")
              .append(OPS[random.nextInt(OPS.length)])
              .append("\",\"amount\":")
              .append(cents / 100)
              .append('.')
              .append(cents % 100 < 10 ? "0" : "")
              .append(cents % 100)
              .append(",\"customer\":\"c-");
          String customer = Integer.toString(random.nextInt(100_000));
          line.append("00000", customer.length(), 5).append(customer).append('"');
          if (i % UNKNOWN_FIELD_EVERY == UNKNOWN_FIELD_EVERY - 1) {
            line.append(",\"").append(UNKNOWN_FIELD).append("\":\"SPRING10\"");
            unknown++;
          }
          line.append("}\n");
          out.append(line);
          bytes += line.length(); // ASCII only: chars are bytes
        }
      }
    }
    return new Input(dir, events, bytes, unknown);
  }

  // ---------------------------------------------------------------------------------------------
  // Measuring

  /** Wall clock, JVM CPU time, other processes' CPU and heap-pool peaks of one phase. */
  static final class Meter {
    private static final com.sun.management.OperatingSystemMXBean OS =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final long wallStart;
    private final long cpuStart;

    private Meter() {
      OS.getCpuLoad(); // starts the interval the next call averages over
      this.wallStart = System.nanoTime();
      this.cpuStart = OS.getProcessCpuTime();
    }

    /**
     * A full GC first, so each phase starts from the same live set, then every heap pool's peak is
     * reset to its current use.
     */
    static Meter start() {
      System.gc();
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP && pool.isValid()) {
          pool.resetPeakUsage();
        }
      }
      return new Meter();
    }

    Run stop(Side side, int round) {
      double machine = OS.getCpuLoad(); // busy share of all cores since the constructor
      double seconds = (System.nanoTime() - wallStart) / 1e9;
      double cpu = (OS.getProcessCpuTime() - cpuStart) / 1e9;
      double ours = cpu / (seconds * Runtime.getRuntime().availableProcessors());
      double others = machine < 0 ? 0 : Math.max(0, machine - ours); // negative: not available
      return new Run(side, round, seconds, cpu, others, peakHeapBytes());
    }

    /**
     * Sum of the heap pools' peak use since {@link #start()}. Pools peak at different moments, so
     * this is an upper bound of the true peak heap use.
     */
    private static long peakHeapBytes() {
      long sum = 0;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP && pool.isValid()) {
          sum += pool.getPeakUsage().getUsed();
        }
      }
      return sum;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Output

  private void printHeader(Input input, int rounds) {
    Runtime rt = Runtime.getRuntime();
    System.out.println("replaysafe bronze benchmark (issue \"Foundation and bronze\", item 7)");
    System.out.printf(
        Locale.ROOT,
        "input:      %,d events in %d %s files on local disk, %,.1f MB (%.1f bytes/event)%n",
        input.events(),
        FILES,
        format.equals("json") ? "JSON-lines" : format + " (written by Spark)",
        input.bytes() / 1e6,
        (double) input.bytes() / input.events());
    System.out.printf(Locale.ROOT, "schema:     %s%n", SCHEMA);
    System.out.printf(
        Locale.ROOT,
        "rescue:     %,d events (%.1f%%) carry the undeclared field \"%s\": replaysafe rescues"
            + " it, the baseline drops it%n",
        input.withUnknownField(),
        100.0 * input.withUnknownField() / input.events(),
        UNKNOWN_FIELD);
    System.out.println(
        "baseline:   spark.readStream.format(\""
            + format
            + "\").schema(schema) -> Delta, AvailableNow (6 columns)");
    System.out.println(
        format.equals("json")
            ? "provenance: the same plus _corrupt_record and the 5 provenance columns from"
                + " _metadata (12 columns, Delta's default statistics)"
            : "provenance: the same plus the 5 provenance columns from _metadata (11 columns,"
                + " Delta's default statistics; Spark's "
                + format
                + " reader has no corrupt"
                + " record)");
    System.out.println(
        "replaysafe: BronzeIngest.execute(): rescue, _corrupt_record, provenance, metrics -> Delta,"
            + " AvailableNow (13 columns)");
    System.out.printf(
        Locale.ROOT,
        "runtime:    Spark %s %s, Java %s, %d cores, max heap %,.0f MiB, load average %.2f%n",
        spark.version(),
        spark.sparkContext().master(),
        System.getProperty("java.version"),
        rt.availableProcessors(),
        mib(rt.maxMemory()),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    System.out.printf(
        Locale.ROOT,
        "method:     warm-up of both paths, then %d round(s) of each on the full input, order"
            + " alternating per round, each into %s; the fastest"
            + " undisturbed round of each path (the fastest round if all are disturbed) is"
            + " compared%n",
        rounds,
        append
            ? "a table + checkpoint that already hold an earlier run of that path on the"
                + " warm-up's files (--append: production's steady state)"
            : "a fresh table + checkpoint");
    System.out.println(
        "seconds:    wall clock of the ingestion only (query start to end; for replaysafe the"
            + " whole execute() call); row checks run after the clock stops");
    System.out.println(
        "cpu s:      CPU time of the whole JVM in that interval (less affected by other"
            + " processes)");
    System.out.printf(
        Locale.ROOT,
        "others:     share of the machine's CPU other processes used in that interval; above"
            + " %.0f%% the round is marked disturbed%n",
        100 * DISTURBED_SHARE);
    System.out.println(
        "peak heap:  sum of the heap pools' peak use in that interval, after a GC (an upper"
            + " bound)");
    System.out.println();
  }

  private Ratios printSummary(Input input, int rounds, List<Run> runs, double total) {
    Run baseline = best(runs, Side.BASELINE);
    Run provenance = best(runs, Side.PROVENANCE);
    Run replaysafe = best(runs, Side.REPLAYSAFE);
    double ratio = baseline.seconds() / replaysafe.seconds(); // = replaysafe / baseline events/s
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "result (per path the fastest undisturbed of %d round(s), else the fastest; peak heap ="
            + " highest of its rounds)%n",
        rounds);
    System.out.printf(
        Locale.ROOT,
        "%-11s %12s %6s %9s %12s %8s %15s%n",
        "path",
        "events",
        "files",
        "seconds",
        "events/s",
        "cpu s",
        "peak heap MiB");
    for (Run run : List.of(baseline, provenance, replaysafe)) {
      System.out.printf(
          Locale.ROOT,
          "%-11s %,12d %6d %9.2f %,12.0f %8.2f %15.0f%n",
          run.side().label,
          input.events(),
          FILES,
          run.seconds(),
          input.events() / run.seconds(),
          run.cpuSeconds(),
          mib(maxPeak(runs, run.side())));
    }
    System.out.printf(
        Locale.ROOT,
        "ratio (replaysafe / baseline events/s, for information): %.3f; CPU ratio (baseline /"
            + " replaysafe CPU s): %.3f%n",
        ratio,
        baseline.cpuSeconds() / replaysafe.cpuSeconds());
    System.out.printf(
        Locale.ROOT,
        "ratio (replaysafe / plain Spark with the same provenance columns, events/s): %.3f;"
            + " CPU ratio: %.3f (the cost of rescue alone)%n",
        provenance.seconds() / replaysafe.seconds(),
        provenance.cpuSeconds() / replaysafe.cpuSeconds());
    // Rounds of one side vary by more than the gap between the sides (2026-12-05: replaysafe 6.85
    // to 9.83 s in one run), so the medians' ratio is printed beside the judged one.
    System.out.printf(
        Locale.ROOT,
        "ratio of the medians of each side's rounds (for information): %.3f%n",
        median(runs, Side.PROVENANCE) / median(runs, Side.REPLAYSAFE));
    // Judged against plain Spark writing the same columns, provenance included: what the mission
    // asks bronze to write (issue 28, decision 2). The 6-column ratio above is for information.
    double sameColumns = provenance.seconds() / replaysafe.seconds();
    System.out.printf(
        Locale.ROOT,
        "target ratio >= %.1f against plain Spark with the same provenance columns: %.3f %s%n",
        TARGET_RATIO,
        sameColumns,
        sameColumns >= TARGET_RATIO ? "MET" : "NOT MET");
    if (provenance.disturbed() || replaysafe.disturbed()) {
      System.out.printf(
          Locale.ROOT,
          "WARNING: other processes used %.0f%% (plain with provenance) and %.0f%% (replaysafe) of"
              + " the CPU during the compared rounds; the ratio is not reliable (the CPU ratio is"
              + " steadier). Rerun on a quiet machine.%n",
          100 * provenance.othersCpuShare(),
          100 * replaysafe.othersCpuShare());
    }
    System.out.printf(
        Locale.ROOT,
        "verified: every table holds exactly %,d rows of this input (replaysafe: %,d rescued, 0"
            + " corrupt);"
            + " load average now %.2f; total %.0f s%n",
        input.events(),
        input.withUnknownField(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
        total);
    return new Ratios(
        format,
        ratio,
        provenance.seconds() / replaysafe.seconds(),
        provenance.cpuSeconds() / replaysafe.cpuSeconds());
  }

  /** The fastest round of the side, among the undisturbed ones when there are any. */
  private static Run best(List<Run> runs, Side side) {
    List<Run> mine = runs.stream().filter(r -> r.side() == side).toList();
    List<Run> quiet = mine.stream().filter(r -> !r.disturbed()).toList();
    return (quiet.isEmpty() ? mine : quiet)
        .stream().min(Comparator.comparingDouble(Run::seconds)).orElseThrow();
  }

  /** The median of the side's rounds' seconds (of the middle two for an even count). */
  private static double median(List<Run> runs, Side side) {
    double[] seconds =
        runs.stream().filter(r -> r.side() == side).mapToDouble(Run::seconds).sorted().toArray();
    int n = seconds.length;
    return n % 2 == 1 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
  }

  private static long maxPeak(List<Run> runs, Side side) {
    return runs.stream()
        .filter(r -> r.side() == side)
        .mapToLong(Run::peakHeapBytes)
        .max()
        .orElseThrow();
  }

  private static double mib(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }

  // ---------------------------------------------------------------------------------------------
  // Plumbing

  private String newDir(String name) {
    return work.resolve(name + "-" + (++tables)).toString();
  }

  private static void check(boolean ok, String format, Object... args) {
    if (!ok) {
      throw new BenchmarkFailure(String.format(Locale.ROOT, format, args));
    }
  }

  static final class BenchmarkFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BenchmarkFailure(String message) {
      super(message);
    }
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete " + root, e);
    }
  }
}
