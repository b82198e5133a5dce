package io.replaysafe.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One case of {@code scripts/bench-freshness}: a generator lands a file every 5 s into a landing
 * zone while the pipeline runs in child JVMs, either one {@code replaysafe run --continuous
 * --interval D} for the whole case ({@link Mode#CONTINUOUS}), or a fresh {@code replaysafe run}
 * every interval as a scheduler with one run at a time starts it: a tick that finds the previous
 * run still going is skipped ({@link Mode#SCHEDULED}). After the case's minutes the generator
 * stops; the continuous run is stopped with SIGTERM once silver read every landed event, the
 * scheduled mode ends with one more run after the last delivery.
 *
 * <p>For the continuous run it samples the driver's heap (after a full collection: {@code jcmd
 * GC.run}, then {@code GC.heap_info}) and RSS ({@code /proc/PID/status}) after its first silver
 * batch, at the reference point (10 minutes, or a third of a shorter case) and at the end.
 */
final class FreshnessRun {
  static final Duration DELIVERY_EVERY = Duration.ofSeconds(5);
  static final Duration REFERENCE_POINT = Duration.ofMinutes(10);
  private static final Duration DRAIN_LIMIT = Duration.ofMinutes(10);
  private static final Duration STOP_LIMIT = Duration.ofMinutes(5);
  private static final Pattern HEAP_USED = Pattern.compile("total \\d+K, used (\\d+)K");
  private static final Pattern RSS = Pattern.compile("VmRSS:\\s+(\\d+) kB");

  enum Mode {
    CONTINUOUS("continuous"),
    SCHEDULED("scheduled");

    final String label;

    Mode(String label) {
      this.label = label;
    }
  }

  /** How a child {@code replaysafe} is started: the launcher, or a test's java command. */
  interface Launcher {
    ProcessBuilder builder(List<String> replaysafeArgs);
  }

  /** Where a case's files land and its pipeline file, tables and logs live. */
  record Lake(
      String label,
      BiConsumer<String, byte[]> landing,
      Path pipelineFile,
      Freshness.Tables tables,
      Path logs) {}

  /** What the case did; {@code memory} is empty in scheduled mode (a fresh JVM per run). */
  record Result(
      Mode mode,
      String storage,
      FreshnessEvents events,
      long batches,
      long runs,
      long skippedTicks,
      List<MemorySample> memory,
      double loadAtStart,
      double loadAtEnd,
      double loadMax,
      Duration generated) {}

  /** The driver's heap after a full collection and its RSS, at one moment. */
  record MemorySample(String label, Duration at, long heapKiB, long rssKiB) {
    String line() {
      return String.format(
          Locale.ROOT,
          "%s (%s): heap %.0f MiB after a full GC, RSS %.0f MiB",
          label,
          minutes(at),
          heapKiB / 1024.0,
          rssKiB / 1024.0);
    }
  }

  private final Launcher launcher;
  private final PrintStream out;
  private final ObjectMapper json = new ObjectMapper();

  FreshnessRun(Launcher launcher, PrintStream out) {
    this.launcher = launcher;
    this.out = out;
  }

  /**
   * @param seed the generator's seed: both modes of one storage deliver the same events
   */
  Result run(
      Mode mode,
      Lake lake,
      long seed,
      Duration duration,
      int rate,
      String intervalText,
      Duration interval)
      throws Exception {
    FreshnessEvents events = new FreshnessEvents(seed);
    int perFile = (int) Math.max(1, rate * DELIVERY_EVERY.toSeconds());
    Generator generator = new Generator(events, lake, perFile);
    return mode == Mode.CONTINUOUS
        ? continuous(lake, generator, duration, intervalText)
        : scheduled(lake, generator, duration, interval);
  }

  /** Lands a file every 5 s from a thread of its own, recording each file's landing time. */
  private static final class Generator implements AutoCloseable {
    private final FreshnessEvents events;
    private final Lake lake;
    private final int perFile;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicLong landedEvents = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private Instant started;

    Generator(FreshnessEvents events, Lake lake, int perFile) {
      this.events = events;
      this.lake = lake;
      this.perFile = perFile;
    }

    void start() {
      started = Instant.now();
      timer.scheduleAtFixedRate(this::landOne, 0, DELIVERY_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void landOne() {
      try {
        FreshnessEvents.File file;
        synchronized (events) {
          file = events.nextFile(perFile);
        }
        lake.landing().accept(file.name(), file.content());
        synchronized (events) {
          events.landed(file.index(), Instant.now());
        }
        landedEvents.addAndGet(perFile);
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
        throw t;
      }
    }

    /** Stops after the delivery in progress; returns how long it generated. */
    Duration stop() throws InterruptedException {
      timer.shutdown();
      if (!timer.awaitTermination(1, TimeUnit.MINUTES)) {
        throw new IllegalStateException("the generator did not stop within a minute");
      }
      if (failure.get() != null) {
        throw new IllegalStateException("landing a file failed", failure.get());
      }
      return Duration.between(started, Instant.now());
    }

    long landed() {
      return landedEvents.get();
    }

    Duration elapsed() {
      return started == null ? Duration.ZERO : Duration.between(started, Instant.now());
    }

    @Override
    public void close() {
      timer.shutdownNow();
    }
  }

  /** The continuous run's stdout, read as it comes: its batches and its last line. */
  private final class Batches implements Runnable {
    private final Process process;
    private final Path copy;
    final AtomicLong silverBatches = new AtomicLong();
    final AtomicLong silverRows = new AtomicLong();
    final AtomicLong bronzeBatches = new AtomicLong();
    final AtomicReference<String> lastLine = new AtomicReference<>("");

    Batches(Process process, Path copy) {
      this.process = process;
      this.copy = copy;
    }

    @Override
    public void run() {
      try (BufferedReader reader =
              new BufferedReader(
                  new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
          PrintWriter log = new PrintWriter(Files.newBufferedWriter(copy))) {
        String line;
        while ((line = reader.readLine()) != null) {
          log.println(line);
          log.flush();
          lastLine.set(line);
          if (!line.startsWith("{")) {
            continue;
          }
          JsonNode node = json.readTree(line);
          if ("batch".equals(node.path("event").asText())) {
            long rows = node.path("rows").asLong();
            if ("silver".equals(node.path("layer").asText())) {
              silverBatches.incrementAndGet();
              silverRows.addAndGet(rows);
            } else if ("bronze".equals(node.path("layer").asText())) {
              bronzeBatches.incrementAndGet();
            }
          }
        }
      } catch (IOException e) {
        // The process ended; its exit code tells the rest.
      }
    }
  }

  private Result continuous(Lake lake, Generator generator, Duration duration, String interval)
      throws Exception {
    String name = "continuous-" + lake.label();
    List<String> args =
        List.of(
            "run",
            "--config",
            lake.pipelineFile().toString(),
            "--continuous",
            "--interval",
            interval,
            "--json");
    Path err = lake.logs().resolve(name + ".err");
    ProcessBuilder builder = launcher.builder(args);
    builder.redirectError(err.toFile());
    builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    double loadAtStart = loadAverage();
    double loadMax = loadAtStart;
    Process process = builder.start();
    Batches batches = new Batches(process, lake.logs().resolve(name + ".out"));
    Thread reader = new Thread(batches, "bench-freshness-stdout");
    reader.setDaemon(true);
    reader.start();
    List<MemorySample> memory = new ArrayList<>();
    try (generator) {
      // The generator starts once the pipeline holds its lease and starts its queries: a
      // continuous pipeline's freshness is that of a running one, not of its JVM's start.
      awaitStarted(process, err);
      long pid = javaPid(process);
      generator.start();
      Duration reference =
          duration.compareTo(REFERENCE_POINT.multipliedBy(3)) >= 0
              ? REFERENCE_POINT
              : duration.dividedBy(3);
      boolean referenceTaken = false;
      Duration nextProgress = Duration.ofMinutes(1);
      while (generator.elapsed().compareTo(duration) < 0) {
        Thread.sleep(1_000);
        alive(process, err, name);
        Duration at = generator.elapsed();
        if (memory.isEmpty() && batches.silverBatches.get() > 0) {
          memory.add(sample(pid, "after the first silver batch", at));
        } else if (!memory.isEmpty() && !referenceTaken && at.compareTo(reference) >= 0) {
          memory.add(sample(pid, "reference point", at));
          referenceTaken = true;
        }
        if (at.compareTo(nextProgress) >= 0) {
          loadMax = Math.max(loadMax, loadAverage());
          progress(name, at, generator.landed(), batches.silverRows.get(), batches, pid);
          nextProgress = nextProgress.plusMinutes(1);
        }
      }
      Duration generated = generator.stop();
      long landed = generator.landed();
      Instant drainLimit = Instant.now().plus(DRAIN_LIMIT);
      while (batches.silverRows.get() < landed) {
        alive(process, err, name);
        if (Instant.now().isAfter(drainLimit)) {
          throw new IllegalStateException(
              String.format(
                  Locale.ROOT,
                  "%s: silver read %,d of the %,d landed events within %s of the last delivery;"
                      + " logs in %s",
                  name,
                  batches.silverRows.get(),
                  landed,
                  DRAIN_LIMIT,
                  lake.logs()));
        }
        if (memory.isEmpty() && batches.silverBatches.get() > 0) {
          memory.add(sample(pid, "after the first silver batch", generator.elapsed()));
        }
        Thread.sleep(500);
      }
      if (memory.isEmpty()) {
        memory.add(sample(pid, "after the first silver batch", generator.elapsed()));
      }
      if (!referenceTaken) {
        memory.add(
            sample(
                pid,
                "reference point, late (the first silver batch came after it)",
                generator.elapsed()));
      }
      memory.add(sample(pid, "end, every event applied", generator.elapsed()));
      loadMax = Math.max(loadMax, loadAverage());
      double loadAtEnd = loadAverage();
      // SIGTERM: the run finishes the batch in flight, releases its lease and exits 0.
      process.destroy();
      if (!process.waitFor(STOP_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
        throw new IllegalStateException(name + " did not stop within " + STOP_LIMIT);
      }
      reader.join(10_000);
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            name + " exited " + process.exitValue() + " after SIGTERM; " + tail(err));
      }
      return new Result(
          Mode.CONTINUOUS,
          lake.label(),
          generator.events,
          batches.silverBatches.get(),
          1,
          0,
          memory,
          loadAtStart,
          loadAtEnd,
          loadMax,
          generated);
    } finally {
      if (process.isAlive()) {
        process.destroyForcibly().waitFor();
      }
    }
  }

  private Result scheduled(Lake lake, Generator generator, Duration duration, Duration interval)
      throws Exception {
    String name = "scheduled-" + lake.label();
    List<String> args = List.of("run", "--config", lake.pipelineFile().toString(), "--json");
    double loadAtStart = loadAverage();
    double loadMax = loadAtStart;
    long runs = 0;
    long skipped = 0;
    long batches = 0;
    Process running = null;
    Path runningErr = null;
    try (generator) {
      generator.start();
      Instant start = Instant.now();
      long tick = 0;
      Duration nextProgress = Duration.ofMinutes(1);
      while (generator.elapsed().compareTo(duration) < 0) {
        Instant due = start.plus(interval.multipliedBy(tick));
        long wait = Duration.between(Instant.now(), due).toMillis();
        if (wait > 0) {
          Thread.sleep(Math.min(wait, 1_000));
          if (running != null && !running.isAlive()) {
            batches += finished(running, runningErr, name);
            running = null;
          }
          continue;
        }
        tick++;
        if (running != null && running.isAlive()) {
          skipped++;
        } else {
          if (running != null) {
            batches += finished(running, runningErr, name);
          }
          runs++;
          runningErr = lake.logs().resolve(name + "-" + runs + ".err");
          running = start(args, lake.logs().resolve(name + "-" + runs + ".out"), runningErr);
        }
        Duration at = generator.elapsed();
        if (at.compareTo(nextProgress) >= 0) {
          loadMax = Math.max(loadMax, loadAverage());
          out.printf(
              Locale.ROOT,
              "  %s %s: %,d events landed, %,d runs started, %,d ticks skipped, load %.2f%n",
              name,
              minutes(at),
              generator.landed(),
              runs,
              skipped,
              loadAverage());
          out.flush();
          nextProgress = nextProgress.plusMinutes(1);
        }
      }
      Duration generated = generator.stop();
      if (running != null) {
        running.waitFor();
        batches += finished(running, runningErr, name);
      }
      // The run after the last delivery: the one a scheduler starts at its next tick.
      runs++;
      runningErr = lake.logs().resolve(name + "-" + runs + ".err");
      running = start(args, lake.logs().resolve(name + "-" + runs + ".out"), runningErr);
      running.waitFor();
      batches += finished(running, runningErr, name);
      running = null;
      loadMax = Math.max(loadMax, loadAverage());
      return new Result(
          Mode.SCHEDULED,
          lake.label(),
          generator.events,
          batches,
          runs,
          skipped,
          List.of(),
          loadAtStart,
          loadAverage(),
          loadMax,
          generated);
    } finally {
      if (running != null && running.isAlive()) {
        running.destroyForcibly().waitFor();
      }
    }
  }

  private Process start(List<String> args, Path stdout, Path stderr) throws IOException {
    ProcessBuilder builder = launcher.builder(args);
    builder.redirectOutput(stdout.toFile());
    builder.redirectError(stderr.toFile());
    builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    return builder.start();
  }

  /** A scheduled run that ended: exit 0 and status ok, or the case fails. Its silver batches. */
  private long finished(Process run, Path err, String name) throws Exception {
    int exit = run.waitFor();
    Path outFile = Path.of(err.toString().replaceAll("\\.err$", ".out"));
    List<String> lines = Files.readAllLines(outFile, StandardCharsets.UTF_8);
    String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    if (exit != 0 || !last.startsWith("{")) {
      throw new IllegalStateException(name + ": a run exited " + exit + "; " + tail(err));
    }
    JsonNode summary = json.readTree(last);
    if (!"ok".equals(summary.path("status").asText())) {
      throw new IllegalStateException(name + ": a run ended " + last);
    }
    return summary.path("silver").path("batches").asLong(0);
  }

  private void progress(
      String name, Duration at, long landed, long applied, Batches batches, long pid) {
    out.printf(
        Locale.ROOT,
        "  %s %s: %,d events landed, %,d read by silver, %,d silver batches, RSS %.0f MiB,"
            + " load %.2f%n",
        name,
        minutes(at),
        landed,
        applied,
        batches.silverBatches.get(),
        rssKiB(pid) / 1024.0,
        loadAverage());
    out.flush();
  }

  /** Waits for the run's start line on stderr (it holds the lease and starts its queries). */
  private static void awaitStarted(Process process, Path err) throws Exception {
    Instant limit = Instant.now().plus(Duration.ofMinutes(5));
    while (true) {
      if (Files.exists(err)
          && Files.readString(err, StandardCharsets.UTF_8).contains("SIGTERM or SIGINT stops it")) {
        return;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the continuous run exited " + process.exitValue() + " at its start; " + tail(err));
      }
      if (Instant.now().isAfter(limit)) {
        throw new IllegalStateException("the continuous run did not start within 5 minutes");
      }
      Thread.sleep(200);
    }
  }

  private static void alive(Process process, Path err, String name) throws IOException {
    if (!process.isAlive()) {
      throw new IllegalStateException(
          name + " exited " + process.exitValue() + " while it ran; " + tail(err));
    }
  }

  /**
   * The JVM's process: the launcher execs java when its class-data archive exists, and otherwise
   * runs it as a child to record the archive.
   */
  static long javaPid(Process process) throws InterruptedException {
    ProcessHandle handle = process.toHandle();
    for (int attempt = 0; attempt < 100; attempt++) {
      if (isJava(handle)) {
        return handle.pid();
      }
      Optional<ProcessHandle> child = handle.descendants().filter(FreshnessRun::isJava).findFirst();
      if (child.isPresent()) {
        return child.get().pid();
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("no java process under " + process.pid());
  }

  private static boolean isJava(ProcessHandle handle) {
    return handle.info().command().map(c -> c.endsWith("/java")).orElse(false);
  }

  /** A full collection, then the heap in use and the RSS. */
  private static MemorySample sample(long pid, String label, Duration at) throws Exception {
    jcmd(pid, "GC.run");
    String info = jcmd(pid, "GC.heap_info");
    Matcher m = HEAP_USED.matcher(info);
    long used = 0;
    boolean found = false;
    while (m.find()) {
      used += Long.parseLong(m.group(1));
      found = true;
    }
    if (!found) {
      throw new IllegalStateException("cannot read jcmd GC.heap_info: " + info);
    }
    return new MemorySample(label, at, used, rssKiB(pid));
  }

  private static String jcmd(long pid, String command) throws Exception {
    Process p =
        new ProcessBuilder("jcmd", String.valueOf(pid), command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException("jcmd " + pid + " " + command + " failed: " + output);
    }
    return output;
  }

  static long rssKiB(long pid) {
    try {
      Matcher m = RSS.matcher(Files.readString(Path.of("/proc/" + pid + "/status")));
      return m.find() ? Long.parseLong(m.group(1)) : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException e) {
      return Double.NaN;
    }
  }

  static String minutes(Duration d) {
    return String.format(Locale.ROOT, "%d:%02d", d.toMinutes(), d.toSecondsPart());
  }

  private static String tail(Path err) throws IOException {
    if (!Files.exists(err)) {
      return "no stderr";
    }
    List<String> lines = Files.readAllLines(err, StandardCharsets.UTF_8);
    return "the end of its stderr ("
        + err
        + "):\n"
        + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
  }

  /** Lands a file on local disk whole: written beside the landing directory, then renamed in. */
  static BiConsumer<String, byte[]> localLanding(Path landing) throws IOException {
    Path staging = landing.resolveSibling(landing.getFileName() + "-staging");
    Files.createDirectories(landing);
    Files.createDirectories(staging);
    return (name, bytes) -> {
      try {
        Path tmp = staging.resolve(name);
        Files.write(tmp, bytes);
        Files.move(tmp, landing.resolve(name), StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    };
  }

  /** The pipeline file: keys, sequence and deletes as the seeds'. */
  static Path pipelineFile(
      Path file,
      String landing,
      String root,
      Optional<String> s3Endpoint,
      Map<String, String> extraSilver)
      throws IOException {
    String storage =
        s3Endpoint
            .map(
                e ->
                    "storage:\n  endpoint: "
                        + e
                        + "\n  region: us-east-1\n  pathStyleAccess: true\n")
            .orElse("");
    StringBuilder silver = new StringBuilder();
    extraSilver.forEach(
        (k, v) -> silver.append("  ").append(k).append(": ").append(v).append('\n'));
    String yaml =
        "name: orders\n"
            + storage
            + "source:\n  path: "
            + landing
            + "\n  schema: \""
            + FreshnessEvents.SCHEMA
            + "\"\nbronze:\n  path: "
            + root
            + "/bronze\n  checkpoint: "
            + root
            + "/checkpoints/bronze\nsilver:\n  path: "
            + root
            + "/silver\n  checkpoint: "
            + root
            + "/checkpoints/silver\n  keys: [order_id]\n  sequenceBy: [source_version]\n"
            + "  applyAsDeletes: \"op = 'DELETE'\"\n"
            + silver;
    Files.writeString(file, yaml);
    return file;
  }
}
