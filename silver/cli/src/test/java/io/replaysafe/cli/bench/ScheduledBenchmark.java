package io.replaysafe.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.cli.bench.Measurement.Case;
import io.replaysafe.cli.bench.Measurement.Side;
import io.replaysafe.cli.bench.Measurement.Storage;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.common.testing.FaultyS3Proxy;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/**
 * Issue 28: what a scheduled run costs its users. A scheduler starts a fresh JVM per run; so does
 * this benchmark, for replaysafe ({@code scripts/replaysafe run}) and for the job a user writes
 * instead ({@link HandWrittenJob}), alternated, on local disk and on s3a (the embedded endpoint
 * behind a proxy that counts every request by kind and delays each by {@code --s3-latency}).
 *
 * <p>Per storage: the same generated orders land for both sides and a first, untimed run of each
 * builds a silver table of {@code --rows} rows. Then, per round, runs with 10 new events, 1,000 new
 * events and nothing new, each side in turn (which side goes first alternates by round). Each run
 * prints wall, CPU, peak RSS, the layers' own seconds, the load average and the S3 requests; then
 * the medians, the ratios and a MET / NOT MET line per target. Last, both sides' silver tables are
 * compared. Not a test: {@code scripts/bench-scheduled} builds and starts it.
 *
 * <p>Exit codes: 0 done, 1 the benchmark failed or the sides diverged, 2 usage.
 */
public final class ScheduledBenchmark {
  static final String USAGE =
      "usage: bench-scheduled [--rows N] [--rounds R] [--s3-latency MS] [--local-only | --s3-only]"
          + " [--replaysafe-only] [--no-thousand] [--requests-log DIR] [--keep]";
  private static final int INITIAL_FILES = 20;
  private static final Pattern HAND_WRITTEN_SECONDS =
      Pattern.compile("hand-written: bronze ([0-9.]+) s, silver ([0-9.]+) s");

  /**
   * @param replaysafeOnly runs replaysafe alone: no hand-written runs, ratios or targets, and its
   *     silver table is checked against the events alone (a quick count of its requests)
   * @param cases the timed cases each round runs ({@code --no-thousand} leaves out 1,000 events)
   * @param requestsLog where each s3a run's recorded requests are written, one per line in the
   *     order sent, to a file named after the run
   * @param keep leaves the work directory (both sides' pipelines, lakes and logs) in place at the
   *     end and names it, to run one side again by hand (a profile, an event log)
   */
  record Options(
      int rows,
      int rounds,
      long s3LatencyMillis,
      List<Storage> storages,
      boolean replaysafeOnly,
      List<Case> cases,
      Optional<Path> requestsLog,
      boolean keep) {
    static Options parse(String[] args) {
      int rows = 200_000;
      int rounds = 3;
      long latency = 20;
      boolean localOnly = false;
      boolean s3Only = false;
      boolean replaysafeOnly = false;
      boolean noThousand = false;
      boolean keep = false;
      Optional<Path> requestsLog = Optional.empty();
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--rows" -> rows = positive(args, ++i);
          case "--rounds" -> rounds = positive(args, ++i);
          case "--s3-latency" -> latency = number(args, ++i);
          case "--local-only" -> localOnly = true;
          case "--s3-only" -> s3Only = true;
          case "--replaysafe-only" -> replaysafeOnly = true;
          case "--no-thousand" -> noThousand = true;
          case "--keep" -> keep = true;
          case "--requests-log" -> {
            if (++i >= args.length) {
              throw new UsageException("--requests-log needs a directory");
            }
            requestsLog = Optional.of(Path.of(args[i]));
          }
          default -> throw new UsageException("unknown argument " + args[i]);
        }
      }
      if (localOnly && s3Only) {
        throw new UsageException("--local-only and --s3-only exclude each other");
      }
      List<Storage> storages =
          localOnly
              ? List.of(Storage.LOCAL)
              : s3Only ? List.of(Storage.S3A) : List.of(Storage.LOCAL, Storage.S3A);
      List<Case> cases =
          noThousand ? Case.TIMED.stream().filter(c -> c != Case.THOUSAND).toList() : Case.TIMED;
      return new Options(rows, rounds, latency, storages, replaysafeOnly, cases, requestsLog, keep);
    }

    private static int positive(String[] args, int i) {
      long n = number(args, i);
      if (n < 1 || n > Integer.MAX_VALUE) {
        throw new UsageException(args[i - 1] + " needs a positive number, not " + args[i]);
      }
      return (int) n;
    }

    private static long number(String[] args, int i) {
      if (i >= args.length) {
        throw new UsageException(args[i - 1] + " needs a number");
      }
      try {
        long n = Long.parseLong(args[i].replace("_", "").replace(",", ""));
        if (n < 0) {
          throw new UsageException(args[i - 1] + " cannot be negative: " + args[i]);
        }
        return n;
      } catch (NumberFormatException e) {
        throw new UsageException(args[i - 1] + " needs a number, not " + args[i]);
      }
    }
  }

  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }

  /** One storage's two lakes, and the rows their silver tables must hold after its runs. */
  private record Phase(Storage storage, Lake replaysafe, Lake handWritten, long expectedRows) {}

  /** How a side reaches its storage: S3 endpoint, request counter and credentials, on s3a. */
  private record Access(
      Optional<URI> endpoint, Optional<FaultyS3Proxy> counter, Map<String, String> environment) {
    static Access local() {
      return new Access(Optional.empty(), Optional.empty(), Map.of());
    }
  }

  private final Options options;
  private final SideCommands commands;
  private final ScheduledReport report = new ScheduledReport(System.out);
  private final ObjectMapper json = new ObjectMapper();
  private final List<Measurement> measurements = new ArrayList<>();
  private final Path work;
  private final Path logs;

  private ScheduledBenchmark(Options options, SideCommands commands) throws IOException {
    this.options = options;
    this.commands = commands;
    this.work = Files.createTempDirectory("bench-scheduled");
    this.logs = Files.createDirectories(work.resolve("logs"));
  }

  public static void main(String[] args) {
    int exit;
    try {
      Options options = Options.parse(args);
      exit = new ScheduledBenchmark(options, SideCommands.fromSystemProperties()).run();
    } catch (UsageException e) {
      System.err.println("bench-scheduled: " + e.getMessage());
      System.err.println(USAGE);
      exit = 2;
    } catch (Exception e) {
      System.err.println("bench-scheduled: FAILED: " + e.getMessage());
      e.printStackTrace();
      exit = 1;
    }
    System.exit(exit);
  }

  private int run() throws Exception {
    System.out.printf(
        Locale.ROOT,
        "bench-scheduled: %,d-row silver tables, %d round(s), %s; heap %s; commit %s;"
            + " load average %.2f at start%n",
        options.rows(),
        options.rounds(),
        options.storages().stream()
            .map(
                s ->
                    s == Storage.LOCAL
                        ? "local disk"
                        : "s3a (embedded endpoint, every request counted and delayed "
                            + options.s3LatencyMillis()
                            + " ms)")
            .reduce((a, b) -> a + " and " + b)
            .orElseThrow(),
        commands.heap(),
        System.getProperty("bench.commit", "unknown"),
        loadAverage());
    List<Phase> phases = new ArrayList<>();
    if (options.storages().contains(Storage.LOCAL)) {
      Path lakes = work.resolve("local");
      phases.add(
          phase(
              Storage.LOCAL,
              Lake.local(Side.REPLAYSAFE, lakes),
              Lake.local(Side.HAND_WRITTEN, lakes),
              Access.local()));
    }
    Optional<StorageConfig> direct = Optional.empty();
    EmbeddedS3Server server = null;
    FaultyS3Proxy proxy = null;
    try {
      if (options.storages().contains(Storage.S3A)) {
        server = EmbeddedS3Server.start(0, List.of("landing", "lake"));
        // This JVM lands the files and reads the tables back directly, with these credentials;
        // the runs get them in their environment.
        server.credentials().installAsSystemProperties();
        long latency = options.s3LatencyMillis();
        proxy = new FaultyS3Proxy(server.endpoint(), 0, 0, 0, latency > 0 ? 1.0 : 0, latency);
        proxy.recordTargets(true);
        direct = Optional.of(StorageConfig.of(server.endpoint().toString(), "us-east-1", true));
        Access access =
            new Access(
                Optional.of(proxy.endpoint()),
                Optional.of(proxy),
                Map.of(
                    "AWS_ACCESS_KEY_ID",
                    server.credentials().accessKeyId(),
                    "AWS_SECRET_ACCESS_KEY",
                    server.credentials().secretAccessKey()));
        phases.add(
            phase(
                Storage.S3A,
                Lake.s3(Side.REPLAYSAFE, direct.get(), "landing", "lake"),
                Lake.s3(Side.HAND_WRITTEN, direct.get(), "landing", "lake"),
                access));
      }
      report.areas(measurements);
      if (!options.replaysafeOnly()) {
        report.medians(measurements, options.storages());
        report.targets(measurements, options.storages(), options.s3LatencyMillis());
      }
      boolean agree = check(phases, direct);
      if (!agree) {
        System.out.println("bench-scheduled: the two sides' silver tables differ; logs in " + logs);
        return 1;
      }
    } finally {
      if (proxy != null) {
        proxy.close();
      }
      if (server != null) {
        server.close();
      }
    }
    if (options.keep()) {
      System.out.println("bench-scheduled: the work directory is kept: " + work);
    } else {
      deleteTree(work);
    }
    return 0;
  }

  /** One storage: prepare both silver tables, then the rounds. */
  private Phase phase(Storage storage, Lake replaysafe, Lake handWritten, Access access)
      throws Exception {
    OrderEvents events = new OrderEvents();
    Path pipeline = commands.pipelineFile(replaysafe, access.endpoint(), work);
    Files.deleteIfExists(commands.classDataArchive());
    System.out.printf(
        Locale.ROOT,
        "%n%s: each side's first run builds its %,d-row silver table (untimed; replaysafe's"
            + " records the launcher's class-data sharing archive)%n",
        storage.label,
        options.rows());
    report.runHeader(storage);
    int file = 0;
    for (String content : events.initial(options.rows(), Math.min(INITIAL_FILES, options.rows()))) {
      land(replaysafe, handWritten, file++, content);
    }
    measure(Side.REPLAYSAFE, replaysafe, pipeline, storage, access, Case.PREPARE, 0);
    if (!options.replaysafeOnly()) {
      measure(Side.HAND_WRITTEN, handWritten, pipeline, storage, access, Case.PREPARE, 0);
    }
    for (int round = 1; round <= options.rounds(); round++) {
      boolean replaysafeFirst = round % 2 == 1;
      for (Case c : options.cases()) {
        if (c.events > 0) {
          land(replaysafe, handWritten, file++, events.delivery(c.events));
        }
        Lake first = replaysafeFirst ? replaysafe : handWritten;
        Lake second = replaysafeFirst ? handWritten : replaysafe;
        if (!options.replaysafeOnly() || first.side() == Side.REPLAYSAFE) {
          measure(first.side(), first, pipeline, storage, access, c, round);
        }
        if (!options.replaysafeOnly() || second.side() == Side.REPLAYSAFE) {
          measure(second.side(), second, pipeline, storage, access, c, round);
        }
      }
    }
    return new Phase(storage, replaysafe, handWritten, events.liveKeys());
  }

  /** The same file, under the same name, for both sides. */
  private static void land(Lake replaysafe, Lake handWritten, int file, String content) {
    String name = String.format(Locale.ROOT, "orders-%05d.json", file);
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    replaysafe.landing().put(name, bytes);
    handWritten.landing().put(name, bytes);
  }

  private void measure(
      Side side, Lake lake, Path pipeline, Storage storage, Access access, Case c, int round)
      throws Exception {
    List<String> command =
        side == Side.REPLAYSAFE
            ? commands.replaysafe(pipeline)
            : commands.handWritten(lake, access.endpoint());
    Map<String, String> environment = new HashMap<>(access.environment());
    environment.put("SPARK_LOCAL_IP", "127.0.0.1");
    environment.put("REPLAYSAFE_JAVA_OPTS", commands.heap());
    String name =
        String.format(
            Locale.ROOT,
            "%s-%s-%s-%d",
            storage.label,
            side.label,
            c.name().toLowerCase(Locale.ROOT),
            round);
    double loadAtStart = loadAverage();
    access.counter().ifPresent(FaultyS3Proxy::resetCounts);
    // A SPARK_HOME would make Spark look for a cluster's installation; both sides run local[2].
    TimedChild.Finished finished =
        TimedChild.run(command, environment, List.of("SPARK_HOME"), logs, name);
    Map<String, Long> requests =
        access.counter().map(FaultyS3Proxy::requestsByKind).orElse(Map.of());
    if (options.requestsLog().isPresent() && access.counter().isPresent()) {
      Files.createDirectories(options.requestsLog().get());
      Files.write(
          options.requestsLog().get().resolve(name + ".txt"),
          access.counter().get().recordedTargets());
    }
    Map<String, Map<String, Long>> areas =
        access
            .counter()
            .map(p -> RequestAreas.of(p.recordedTargets(), Lake.directory(side)))
            .orElse(Map.of());
    double loadAtEnd = loadAverage();
    if (finished.exitCode() != 0) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "%s on %s (%s, round %d) exited %d; its logs are in %s; the end of its stderr:%n%s",
              side.label,
              storage.label,
              c.label,
              round,
              finished.exitCode(),
              logs,
              finished.stderrTail(30)));
    }
    double[] layers =
        side == Side.REPLAYSAFE
            ? replaysafeSeconds(finished.stdout(), c == Case.PREPARE ? options.rows() : c.events)
            : handWrittenSeconds(finished.stdout());
    Measurement m =
        new Measurement(
            side,
            storage,
            c,
            round,
            finished.cost(),
            requests,
            areas,
            loadAtStart,
            loadAtEnd,
            layers[0],
            layers[1]);
    report.run(m);
    if (c != Case.PREPARE) {
      measurements.add(m);
    }
  }

  /**
   * The layers' seconds from replaysafe's JSON summary, after checking it ingested what landed: a
   * run that read nothing would be measured as fast.
   */
  private double[] replaysafeSeconds(String stdout, long landedRows) throws IOException {
    String[] lines = stdout.strip().split("\n");
    JsonNode summary = json.readTree(lines[lines.length - 1]);
    long bronzeRows = summary.path("bronze").path("rows").asLong(-1);
    if (!"ok".equals(summary.path("status").asText()) || bronzeRows != landedRows) {
      throw new IllegalStateException(
          "replaysafe's run ingested " + bronzeRows + " rows, not " + landedRows + ": " + summary);
    }
    return new double[] {
      summary.path("bronze").path("seconds").asDouble(),
      summary.path("silver").path("seconds").asDouble()
    };
  }

  private static double[] handWrittenSeconds(String stdout) {
    Matcher m = HAND_WRITTEN_SECONDS.matcher(stdout);
    if (!m.find()) {
      throw new IllegalStateException("The hand-written job printed no timings: " + stdout);
    }
    return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))};
  }

  /** Both sides' silver tables, per storage, read in this JVM. */
  private boolean check(List<Phase> phases, Optional<StorageConfig> direct) {
    SparkSession spark = SparkSessions.getOrCreate("bench-scheduled-check");
    SparkSessions.applyStorage(spark, direct);
    boolean agree = true;
    System.out.println();
    for (Phase phase : phases) {
      SilverCheck.Outcome outcome =
          options.replaysafeOnly()
              ? SilverCheck.alone(spark, phase.replaysafe().silver(), phase.expectedRows())
              : SilverCheck.compare(
                  spark,
                  phase.replaysafe().silver(),
                  phase.handWritten().silver(),
                  phase.expectedRows());
      System.out.println(outcome.line(phase.storage().label));
      agree &= outcome.agrees();
    }
    spark.stop();
    return agree;
  }

  private static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException e) {
      return Double.NaN;
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
