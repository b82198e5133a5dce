package io.replaysafe.cli.bench;

import io.replaysafe.cli.bench.FreshnessRun.Mode;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.config.TriggerConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.common.testing.S3LandingZone;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;

/**
 * Issue 27, item 8: freshness of a continuous pipeline against scheduled runs. Per storage (local
 * disk, and with {@code --storage s3a|both} the embedded S3 endpoint), a generator lands a file
 * every 5 s at {@code --rate} events per second ({@link FreshnessEvents}) while {@code replaysafe
 * run --continuous --interval D} runs in a child JVM started through the launcher; then the same
 * events while a scheduler starts a fresh {@code replaysafe run} every interval ({@link
 * FreshnessRun}). Afterwards it reads the tables in this JVM ({@link Freshness}) and prints each
 * event's freshness as p50, p95, p99 and max, the batches, the continuous driver's heap and RSS,
 * the load average, whether silver equals the generator's oracle, and a MET / NOT MET line per
 * target. Not a test: {@code scripts/bench-freshness} builds and starts it; {@code
 * FreshnessSmokeTest} runs its code path for two minutes.
 *
 * <p>Exit codes: 0 done, 1 a run failed, silver differs from the oracle or an event has no
 * freshness figure, 2 usage.
 */
public final class FreshnessBenchmark {
  static final String USAGE =
      "usage: bench-freshness [--minutes M] [--rate EVENTS_PER_S] [--interval D]"
          + " [--storage local|s3a|both] [--continuous-only | --scheduled-only]";
  static final long SEED = 27;
  static final int TARGET_MINUTES = 30;
  static final int TARGET_RATE = 40;
  static final Duration TARGET_INTERVAL = Duration.ofSeconds(10);
  static final double TARGET_P99_SECONDS = 30;
  static final double TARGET_GROWTH = 1.1;
  static final double TARGET_RATIO = 0.25;

  record Options(
      int minutes,
      int rate,
      String intervalText,
      Duration interval,
      List<String> storages,
      boolean continuousOnly,
      boolean scheduledOnly) {
    static Options parse(String[] args) {
      int minutes = TARGET_MINUTES;
      int rate = TARGET_RATE;
      String interval = "10 seconds";
      String storage = "local";
      boolean continuousOnly = false;
      boolean scheduledOnly = false;
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--minutes" -> minutes = positive(args, ++i);
          case "--rate" -> rate = positive(args, ++i);
          case "--interval" -> interval = value(args, ++i);
          case "--storage" -> storage = value(args, ++i);
          case "--continuous-only" -> continuousOnly = true;
          case "--scheduled-only" -> scheduledOnly = true;
          default -> throw new ScheduledBenchmark.UsageException("unknown argument " + args[i]);
        }
      }
      List<String> storages =
          switch (storage) {
            case "local" -> List.of("local");
            case "s3a" -> List.of("s3a");
            case "both" -> List.of("local", "s3a");
            default ->
                throw new ScheduledBenchmark.UsageException(
                    "--storage is local, s3a or both, not " + storage);
          };
      Duration every;
      try {
        every = TriggerConfig.parseInterval("--interval", interval);
      } catch (RuntimeException e) {
        throw new ScheduledBenchmark.UsageException(e.getMessage());
      }
      if (continuousOnly && scheduledOnly) {
        throw new ScheduledBenchmark.UsageException(
            "--continuous-only and --scheduled-only exclude each other");
      }
      return new Options(minutes, rate, interval, every, storages, continuousOnly, scheduledOnly);
    }

    private static String value(String[] args, int i) {
      if (i >= args.length) {
        throw new ScheduledBenchmark.UsageException(args[i - 1] + " needs a value");
      }
      return args[i];
    }

    private static int positive(String[] args, int i) {
      String text = value(args, i);
      try {
        int n = Integer.parseInt(text);
        if (n < 1) {
          throw new NumberFormatException();
        }
        return n;
      } catch (NumberFormatException e) {
        throw new ScheduledBenchmark.UsageException(
            args[i - 1] + " needs a positive number, not " + text);
      }
    }

    /** Whether this run is the one the targets are defined for. */
    boolean targetRun() {
      return minutes >= TARGET_MINUTES && rate == TARGET_RATE && interval.equals(TARGET_INTERVAL);
    }
  }

  /** One measured case: what ran, and the figures read from its tables. */
  record Measured(FreshnessRun.Result result, Freshness.Figures figures) {}

  /** The exit code and every case's figures. */
  record Outcome(int exitCode, List<Measured> measured) {}

  public static void main(String[] args) {
    int exit;
    try {
      Options options = Options.parse(args);
      exit = run(options, benchLauncher(), System.out).exitCode();
    } catch (ScheduledBenchmark.UsageException e) {
      System.err.println("bench-freshness: " + e.getMessage());
      System.err.println(USAGE);
      exit = 2;
    } catch (Exception e) {
      System.err.println("bench-freshness: FAILED: " + e.getMessage());
      e.printStackTrace();
      exit = 1;
    }
    System.exit(exit);
  }

  /**
   * Through the launcher, as a scheduler starts replaysafe: {@code scripts/replaysafe} with its own
   * heap for the kind of run, or {@code bench.heap} in {@code REPLAYSAFE_JAVA_OPTS}, plus {@code
   * environment} (credentials on s3a).
   */
  private static FreshnessRun.Launcher benchLauncher() {
    Path root = Path.of(required("bench.root"));
    // Empty: the launcher's own heap for each kind of run, as users get it.
    String heap = System.getProperty("bench.heap", "");
    return args -> {
      List<String> command = new ArrayList<>();
      command.add(root.resolve("scripts/replaysafe").toString());
      command.addAll(args);
      ProcessBuilder builder = new ProcessBuilder(command);
      if (heap.isEmpty()) {
        builder.environment().remove("REPLAYSAFE_JAVA_OPTS");
      } else {
        builder.environment().put("REPLAYSAFE_JAVA_OPTS", heap);
      }
      builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
      // A SPARK_HOME would make Spark look for a cluster's installation; the runs are local[2].
      builder.environment().remove("SPARK_HOME");
      return builder;
    };
  }

  private static String required(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "System property " + property + " is not set: start it with scripts/bench-freshness");
    }
    return value;
  }

  /**
   * Every case, then the figures and targets. The tables are read in this JVM's session: the
   * existing one (a test's), or one of its own, stopped at the end.
   */
  static Outcome run(Options options, FreshnessRun.Launcher launcher, PrintStream out)
      throws Exception {
    Path work = Files.createTempDirectory("bench-freshness");
    Path logs = Files.createDirectories(work.resolve("logs"));
    out.printf(
        Locale.ROOT,
        "bench-freshness: %d min at %d events/s (%d events per file, a file every %d s; keys"
            + " from %,d), interval %s, %s, %s; commit %s; load average %.2f at start; logs in"
            + " %s%n",
        options.minutes(),
        options.rate(),
        options.rate() * FreshnessRun.DELIVERY_EVERY.toSeconds(),
        FreshnessRun.DELIVERY_EVERY.toSeconds(),
        FreshnessEvents.KEY_SPACE,
        options.intervalText(),
        String.join(" and ", options.storages()),
        options.continuousOnly()
            ? "continuous only"
            : options.scheduledOnly() ? "scheduled only" : "continuous, then scheduled",
        System.getProperty("bench.commit", "unknown"),
        FreshnessRun.loadAverage(),
        logs);
    out.flush();
    List<FreshnessRun.Result> results = new ArrayList<>();
    Map<FreshnessRun.Result, Freshness.Tables> tables = new HashMap<>();
    Optional<StorageConfig> direct = Optional.empty();
    EmbeddedS3Server server = null;
    try {
      for (String storage : options.storages()) {
        Map<String, String> environment = Map.of();
        if (storage.equals("s3a") && server == null) {
          server = EmbeddedS3Server.start(0, List.of("landing", "lake"));
          // This JVM lands the files and reads the tables back with these credentials; the runs
          // get them in their environment, never on a command line.
          server.credentials().installAsSystemProperties();
          direct = Optional.of(StorageConfig.of(server.endpoint().toString(), "us-east-1", true));
        }
        if (storage.equals("s3a")) {
          environment =
              Map.of(
                  "AWS_ACCESS_KEY_ID",
                  server.credentials().accessKeyId(),
                  "AWS_SECRET_ACCESS_KEY",
                  server.credentials().secretAccessKey());
        }
        Map<String, String> env = environment;
        FreshnessRun.Launcher withEnv =
            args -> {
              ProcessBuilder b = launcher.builder(args);
              b.environment().putAll(env);
              return b;
            };
        FreshnessRun runner = new FreshnessRun(withEnv, out);
        List<Mode> modes =
            options.continuousOnly()
                ? List.of(Mode.CONTINUOUS)
                : options.scheduledOnly()
                    ? List.of(Mode.SCHEDULED)
                    : List.of(Mode.CONTINUOUS, Mode.SCHEDULED);
        for (Mode mode : modes) {
          FreshnessRun.Lake lake = lake(work, logs, storage, mode, direct, server);
          out.printf(Locale.ROOT, "%n%s, %s: started%n", mode.label, storage);
          out.flush();
          FreshnessRun.Result result =
              runner.run(
                  mode,
                  lake,
                  SEED,
                  Duration.ofMinutes(options.minutes()),
                  options.rate(),
                  options.intervalText(),
                  options.interval());
          results.add(result);
          tables.put(result, lake.tables());
          printRun(out, result);
        }
      }
      boolean ownSession = SparkSession.getDefaultSession().isEmpty();
      SparkSession spark = SparkSessions.getOrCreate("bench-freshness");
      SparkSessions.applyStorage(spark, direct);
      List<Measured> measured = new ArrayList<>();
      boolean complete = true;
      out.println();
      for (FreshnessRun.Result result : results) {
        Freshness.Figures figures = Freshness.measure(spark, tables.get(result), result.events());
        measured.add(new Measured(result, figures));
        out.printf(
            Locale.ROOT,
            "%s, %s: %s%n  %s%n",
            result.mode().label,
            result.storage(),
            figures.line(),
            figures.silverLine());
        complete &= figures.silverAgrees() && figures.missing() == 0;
      }
      if (ownSession) {
        spark.stop();
      }
      printTargets(out, options, measured);
      if (!complete) {
        out.println(
            "bench-freshness: silver differs from the oracle or events lack a figure; logs in "
                + logs);
        return new Outcome(1, measured);
      }
      deleteTree(work);
      return new Outcome(0, measured);
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  private static void deleteTree(Path root) throws java.io.IOException {
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  static FreshnessRun.Lake lake(
      Path work,
      Path logs,
      String storage,
      Mode mode,
      Optional<StorageConfig> direct,
      EmbeddedS3Server server)
      throws Exception {
    String dir = mode.label;
    Path local = Files.createDirectories(work.resolve(storage).resolve(dir));
    if (storage.equals("local")) {
      Path landing = local.resolve("landing");
      return new FreshnessRun.Lake(
          storage,
          FreshnessRun.localLanding(landing),
          FreshnessRun.pipelineFile(
              local.resolve("pipeline.yaml"),
              landing.toString(),
              local.toString(),
              Optional.empty(),
              Map.of()),
          new Freshness.Tables(
              local.resolve("bronze").toString(), local.resolve("silver").toString()),
          logs);
    }
    S3LandingZone zone = new S3LandingZone(direct.orElseThrow(), "landing", dir);
    String root = "s3a://lake/" + dir;
    return new FreshnessRun.Lake(
        storage,
        zone::put,
        FreshnessRun.pipelineFile(
            local.resolve("pipeline.yaml"),
            zone.root(),
            root,
            Optional.of(server.endpoint().toString()),
            Map.of()),
        new Freshness.Tables(root + "/bronze", root + "/silver"),
        logs);
  }

  static void printRun(PrintStream out, FreshnessRun.Result r) {
    FreshnessEvents events = r.events();
    String kinds =
        events.kinds().entrySet().stream()
            .map(
                e ->
                    String.format(
                        Locale.ROOT,
                        "%s %,d",
                        e.getKey().name().toLowerCase(Locale.ROOT),
                        e.getValue()))
            .collect(Collectors.joining(", "));
    out.printf(
        Locale.ROOT,
        "%s, %s: %,d events in %,d files over %s (%s); %s%n",
        r.mode().label,
        r.storage(),
        events.events().size(),
        events.files(),
        FreshnessRun.minutes(r.generated()),
        kinds,
        r.mode() == Mode.CONTINUOUS
            ? String.format(Locale.ROOT, "%,d silver batches in one JVM", r.batches())
            : String.format(
                Locale.ROOT,
                "%,d runs (a fresh JVM each, the last after the last delivery), %,d silver"
                    + " batches, %,d ticks skipped while a run was still going",
                r.runs(),
                r.batches(),
                r.skippedTicks()));
    for (FreshnessRun.MemorySample s : r.memory()) {
      out.println("  driver " + s.line());
    }
    out.printf(
        Locale.ROOT,
        "  load average %.2f at start, %.2f at end, at most %.2f (sampled each minute)%n",
        r.loadAtStart(),
        r.loadAtEnd(),
        r.loadMax());
    out.flush();
  }

  static void printTargets(PrintStream out, Options options, List<Measured> measured) {
    boolean judged = options.targetRun();
    out.printf(
        Locale.ROOT,
        "%ntargets (issue 27: continuous, interval 10 s, 40 events/s for 30 minutes on 2 cores)%s%n",
        judged
            ? ""
            : String.format(
                Locale.ROOT,
                ": NOT JUDGED, this run is %d min at %d events/s, interval %s; the targets apply"
                    + " to the 30-minute run (the verdicts below say what this run would give)",
                options.minutes(),
                options.rate(),
                options.intervalText()));
    for (String storage : options.storages()) {
      Measured continuous = find(measured, Mode.CONTINUOUS, storage);
      Measured scheduled = find(measured, Mode.SCHEDULED, storage);
      if (continuous == null) {
        continue;
      }
      double p99 = continuous.figures().percentile(99);
      target(
          out,
          judged,
          String.format(
              Locale.ROOT,
              "%s: continuous p99 freshness <= %.0f s: %.1f s",
              storage,
              TARGET_P99_SECONDS,
              p99),
          p99 <= TARGET_P99_SECONDS);
      List<FreshnessRun.MemorySample> memory = continuous.result().memory();
      FreshnessRun.MemorySample reference = memory.get(memory.size() - 2);
      FreshnessRun.MemorySample end = memory.get(memory.size() - 1);
      double heap = (double) end.heapKiB() / reference.heapKiB();
      double rss = (double) end.rssKiB() / reference.rssKiB();
      target(
          out,
          judged,
          String.format(
              Locale.ROOT,
              "%s: heap after the run <= %.1fx the heap at %s (after a full GC): %.0f / %.0f MiB ="
                  + " %.2fx",
              storage,
              TARGET_GROWTH,
              FreshnessRun.minutes(reference.at()),
              end.heapKiB() / 1024.0,
              reference.heapKiB() / 1024.0,
              heap),
          heap <= TARGET_GROWTH);
      target(
          out,
          judged,
          String.format(
              Locale.ROOT,
              "%s: RSS after the run <= %.1fx the RSS at %s: %.0f / %.0f MiB = %.2fx",
              storage,
              TARGET_GROWTH,
              FreshnessRun.minutes(reference.at()),
              end.rssKiB() / 1024.0,
              reference.rssKiB() / 1024.0,
              rss),
          rss <= TARGET_GROWTH);
      if (scheduled != null) {
        double ratio = p99 / scheduled.figures().percentile(99);
        target(
            out,
            judged,
            String.format(
                Locale.ROOT,
                "%s: continuous p99 <= %.2fx scheduled p99 at the same interval: %.1f / %.1f s ="
                    + " %.2fx",
                storage,
                TARGET_RATIO,
                p99,
                scheduled.figures().percentile(99),
                ratio),
            ratio <= TARGET_RATIO);
      }
    }
    out.flush();
  }

  private static void target(PrintStream out, boolean judged, String text, boolean met) {
    out.println(
        "  "
            + text
            + ": "
            + (judged ? (met ? "MET" : "NOT MET") : (met ? "would be met" : "would not be met"))
            + (judged ? "" : " (not judged)"));
  }

  private static Measured find(List<Measured> measured, Mode mode, String storage) {
    return measured.stream()
        .filter(m -> m.result().mode() == mode && m.result().storage().equals(storage))
        .findFirst()
        .orElse(null);
  }
}
