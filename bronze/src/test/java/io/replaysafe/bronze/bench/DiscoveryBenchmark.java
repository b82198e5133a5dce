package io.replaysafe.bronze.bench;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.S3Clients;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.common.testing.FaultyS3Proxy;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.sql.SparkSession;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Bronze after many files (issue 26, item 6): for each size N, N one-line files are ingested in one
 * bronze run (the file state is built by ingesting them, in one batch), then one run with nothing
 * new and one with one new file are measured: wall time, JVM CPU, peak heap, S3 requests by kind
 * (through a counting proxy in front of the embedded endpoint) and SQS calls, each run timed three
 * times ({@code -Dreplaysafe.bench.timedRuns}), each time right after the bare Hadoop listing of
 * the same prefix in the same JVM, and the median kept. Each run is then made once more, identical
 * (the idle run again; another single new file), for its live and kept heap ({@link LiveHeap}, on
 * which the heap targets are judged): that reading forces full collections during the run, which
 * would disturb its timing. The embedded S3 endpoint runs in a JVM of its own ({@link
 * SeparateS3Server}): its in-memory store, which grows with the size measured and with every table
 * write, is in no heap reading. Modes: listing on local disk, listing on the embedded S3 endpoint,
 * notifications (embedded S3 + ElasticMQ, the one new file announced on the queue). Prints MET /
 * NOT MET per target of the issue. A benchmark, not a test: it runs from scripts/bench-discovery.
 */
public final class DiscoveryBenchmark {
  static final String SCHEMA = "order_id BIGINT, status STRING";
  static final double TARGET = 1.2;

  private static final com.sun.management.OperatingSystemMXBean CPU =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** How often the heap run's live heap is read (a full collection each time). */
  static final long HEAP_SAMPLE_MS = 100;

  record Measured(
      String mode,
      int files,
      String run,
      double seconds,
      double cpu,
      long peakHeap,
      LiveHeap.Figures heap,
      Map<String, Long> s3,
      double bareListing,
      double bareCpu) {}

  public static void main(String[] args) throws Exception {
    List<Integer> sizes = new ArrayList<>();
    for (String a : (args.length > 0 ? args[0] : "1000,10000,100000").split(",")) {
      sizes.add(Integer.parseInt(a.strip().replace("_", "")));
    }
    Path work = Files.createTempDirectory("bench-discovery");
    SparkSession spark = SparkSessions.getOrCreate("bench-discovery");
    spark.sparkContext().setLogLevel("ERROR");
    SeparateS3Server server = SeparateS3Server.start(List.of("landing", "lake"));
    server.credentials().installAsSystemProperties();
    FaultyS3Proxy proxy = new FaultyS3Proxy(server.endpoint());
    Queue queue = Queue.start();
    StorageConfig storage = StorageConfig.of(proxy.endpoint().toString(), "us-east-1", true);
    S3Client s3 = S3Clients.create(storage);
    System.out.printf(
        Locale.ROOT,
        "bench-discovery: sizes %s; load average %.2f at the start (above about 0.5 on 2"
            + " cores, the figures are a shared machine's)%n",
        sizes,
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    System.out.println(
        "mode                 files    run        wall s   cpu s  peak MiB  live MiB  kept MiB  held MiB  full GCs"
            + "  bare list s  landing bucket (LIST GET HEAD PUT)  tables bucket (LIST GET HEAD PUT)"
            + "  SQS calls  load");
    List<Measured> all = new ArrayList<>();
    List<String> modes =
        List.of(
            System.getProperty("replaysafe.bench.modes", "listing-local,listing-s3,notifications")
                .split(","));
    for (String mode : modes) {
      for (int n : sizes) {
        String prefix = mode + "-" + n;
        String landing;
        String yaml;
        if (mode.equals("listing-local")) {
          Path dir = work.resolve(prefix);
          Files.createDirectories(dir.resolve("landing"));
          for (int i = 0; i < n; i++) {
            Files.writeString(dir.resolve("landing/f" + i + ".json"), line(i));
          }
          landing = dir.resolve("landing").toString();
          yaml =
              pipeline(
                  landing,
                  dir.resolve("bronze").toString(),
                  dir.resolve("checkpoint").toString(),
                  "",
                  "");
        } else {
          for (int i = 0; i < n; i++) {
            put(s3, prefix + "/landing/f" + i + ".json", line(i));
          }
          landing = "s3a://landing/" + prefix + "/landing";
          String discovery =
              mode.equals("notifications")
                  ? "  discovery: notifications\n  queueUrl: " + queue.url() + "\n"
                  : "";
          yaml =
              pipeline(
                  landing,
                  // Tables in a bucket of their own: the landing bucket's requests are the
                  // discovery's alone.
                  "s3a://lake/" + prefix + "/bronze",
                  "s3a://lake/" + prefix + "/checkpoint",
                  storageYaml(storage),
                  discovery);
        }
        PipelineConfig config = ConfigLoader.parse("bench", yaml);
        BronzeResult built = BronzeIngest.from(config, spark).execute();
        check(
            built.files() == n,
            "the first run of %s ingested %d files, not %d",
            prefix,
            built.files(),
            n);
        // The build's S3A clients go: each of its requests left a cancelled timeout task in its
        // SDK client's scheduler until the task's deadline (fs.s3a.connection.request.timeout,
        // 120 s), over 100,000 of them after ingesting 100,000 files, and their expiry during a
        // measured run moved its live-heap reading by tens of MiB. A scheduled run's fresh JVM
        // starts without them; the measured runs open new clients.
        FileSystem.closeAll();
        all.add(measure(spark, proxy, queue, config, mode, n, "idle", landing, () -> {}));
        // Each timed run's new file, then the heap run's: another, the one before ingested.
        int[] next = {n};
        all.add(
            measure(
                spark,
                proxy,
                queue,
                config,
                mode,
                n,
                "one-new",
                landing,
                () -> arrive(mode, s3, queue, prefix, landing, next[0]++)));
      }
    }
    targets(all, sizes, modes);
    System.out.printf(
        Locale.ROOT,
        "load average %.2f at the end%n",
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    queue.close();
    proxy.close();
    server.close();
    spark.stop();
  }

  /** File {@code f<i>.json} arrives: written, and in notification mode announced on the queue. */
  private static void arrive(
      String mode, S3Client s3, Queue queue, String prefix, String landing, int i) {
    String name = "f" + i + ".json";
    if (mode.equals("listing-local")) {
      try {
        Files.writeString(Path.of(landing, name), line(i));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return;
    }
    put(s3, prefix + "/landing/" + name, line(i));
    if (mode.equals("notifications")) {
      queue.announce("landing", prefix + "/landing/" + name, line(i).length());
    }
  }

  /** How many times each run is timed; its figures are those of the median run. */
  static final int TIMED_RUNS = Integer.getInteger("replaysafe.bench.timedRuns", 3);

  /**
   * The run timed {@link #TIMED_RUNS} times (wall, CPU, peak heap, requests), each time right after
   * the bare listing of the same prefix and after {@code ready} readied it (for one new file:
   * another new file); the median run's figures are kept, judged by its time above its own bare
   * listing. A listing's time moves between calls by as much as bronze adds to it, so each run is
   * set against the listing made just before it, not one made minutes earlier. Then, after {@code
   * ready} again, the same run with its live and kept heap read.
   */
  private static Measured measure(
      SparkSession spark,
      FaultyS3Proxy proxy,
      Queue queue,
      PipelineConfig config,
      String mode,
      int n,
      String run,
      String landing,
      Runnable ready)
      throws Exception {
    int expected = run.equals("idle") ? 0 : 1;
    boolean local = mode.equals("listing-local");
    List<Timed> timed = new ArrayList<>();
    for (int k = 0; k < TIMED_RUNS; k++) {
      ready.run();
      // Notification mode lists nothing between backfills: no bare listing to set it against.
      Bare bare =
          mode.equals("notifications")
              ? new Bare(Double.NaN, Double.NaN)
              : bareListing(spark, landing);
      proxy.resetCounts();
      jdk.jfr.Recording recording = profile();
      BronzeBenchmark.Meter meter = BronzeBenchmark.Meter.start();
      BronzeResult r = BronzeIngest.from(config, spark).execute();
      BronzeBenchmark.Run m = meter.stop(BronzeBenchmark.Side.REPLAYSAFE, 0);
      saveProfile(recording, mode + "-" + n + "-" + run + "-" + k);
      check(r.files() == expected, "%s %s of %d: %d files", mode, run, n, r.files());
      timed.add(
          new Timed(
              m,
              bare,
              local ? Map.of() : proxy.requestsByKind("landing"),
              local ? Map.of() : proxy.requestsByKind("lake"),
              mode.equals("notifications") ? Long.toString(r.discovery().sqsCalls()) : "-"));
    }
    List<Timed> byAbove = new ArrayList<>(timed);
    byAbove.sort(java.util.Comparator.comparingDouble(Timed::above));
    Timed median = byAbove.get(byAbove.size() / 2);
    BronzeBenchmark.Run m = median.run();
    ready.run();
    LiveHeap live = LiveHeap.sampling(HEAP_SAMPLE_MS, mode + "-" + n + "-" + run);
    BronzeResult h = BronzeIngest.from(config, spark).execute();
    LiveHeap.Figures heap = live.stop();
    saveHistogram(live, mode + "-" + n + "-" + run);
    check(h.files() == expected, "%s %s of %d, heap run: %d files", mode, run, n, h.files());
    Measured out =
        new Measured(
            mode,
            n,
            run,
            m.seconds(),
            m.cpuSeconds(),
            m.peakHeapBytes(),
            heap,
            median.landing(),
            median.bare().seconds(),
            median.bare().cpu());
    System.out.printf(
        Locale.ROOT,
        "%-18s %8d    %-8s %8.2f %7.2f %9.0f %9.1f %9.1f %9.1f %9d %12.2f  %-34s  %-32s  %s  load %.2f"
            + "  (timed runs, wall / bare listing s: %s; CPU s %s)%n",
        mode,
        n,
        run,
        m.seconds(),
        m.cpuSeconds(),
        m.peakHeapBytes() / 1048576.0,
        heap.live() / 1048576.0,
        heap.kept() / 1048576.0,
        heap.held() / 1048576.0,
        heap.samples(),
        median.bare().seconds(),
        local ? "local disk" : byKind(median.landing()),
        local ? "local disk" : byKind(median.tables()),
        median.sqsCalls(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
        pairs(timed, t -> t.run().seconds(), t -> t.bare().seconds()),
        pairs(timed, t -> t.run().cpuSeconds(), t -> t.bare().cpu()));
    return out;
  }

  /** Each timed run's figure against its bare listing's, as {@code run / bare, ...}. */
  private static String pairs(
      List<Timed> timed,
      java.util.function.ToDoubleFunction<Timed> run,
      java.util.function.ToDoubleFunction<Timed> bare) {
    return String.join(
        ", ",
        timed.stream()
            .map(
                t ->
                    String.format(
                        Locale.ROOT, "%.2f / %.2f", run.applyAsDouble(t), bare.applyAsDouble(t)))
            .toList());
  }

  /** One timed run, with the bare listing made just before it and its requests. */
  private record Timed(
      BronzeBenchmark.Run run,
      Bare bare,
      Map<String, Long> landing,
      Map<String, Long> tables,
      String sqsCalls) {
    double above() {
      return Double.isNaN(bare.seconds()) ? run.seconds() : run.seconds() - bare.seconds();
    }
  }

  /**
   * With {@code -Dreplaysafe.bench.jfr=DIR}, a flight recording of each measured run (CPU samples
   * every 10 ms), saved as {@code DIR/<mode>-<files>-<run>.jfr}: where a run's time goes.
   */
  private static jdk.jfr.Recording profile() {
    if (System.getProperty("replaysafe.bench.jfr") == null) {
      return null;
    }
    jdk.jfr.Recording recording = new jdk.jfr.Recording();
    recording.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(10));
    recording.enable("jdk.ObjectAllocationSample");
    recording.start();
    return recording;
  }

  private static void saveProfile(jdk.jfr.Recording recording, String name) {
    if (recording == null) {
      return;
    }
    try (recording) {
      recording.stop();
      Path dir = Path.of(System.getProperty("replaysafe.bench.jfr"));
      Files.createDirectories(dir);
      recording.dump(dir.resolve(name + ".jfr"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * With {@code -Dreplaysafe.bench.histograms=DIR}, the class histogram of the heap run's highest
   * sample, as {@code DIR/<mode>-<files>-<run>.histo}, and the one before the run, as {@code
   * .before.histo}.
   */
  private static void saveHistogram(LiveHeap live, String name) {
    String dir = System.getProperty("replaysafe.bench.histograms");
    if (live.histogram() == null || dir == null) {
      return;
    }
    try {
      Files.createDirectories(Path.of(dir));
      Files.writeString(Path.of(dir, name + ".histo"), live.histogram());
      Files.writeString(Path.of(dir, name + ".before.histo"), live.beforeHistogram());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String byKind(Map<String, Long> kinds) {
    return String.format(
        Locale.ROOT,
        "%d %d %d %d",
        kinds.getOrDefault("LIST", 0L),
        kinds.getOrDefault("GET", 0L),
        kinds.getOrDefault("HEAD", 0L),
        kinds.getOrDefault("PUT", 0L));
  }

  private static void targets(List<Measured> all, List<Integer> sizes, List<String> modes) {
    int small = sizes.get(0);
    int large = sizes.get(sizes.size() - 1);
    if (modes.contains("notifications")) {
      Measured nSmall = find(all, "notifications", small, "one-new");
      Measured nLarge = find(all, "notifications", large, "one-new");
      report(
          String.format(
              Locale.ROOT,
              "notifications, one new file at %,d files: time %.2fx of %,d",
              large,
              nLarge.seconds() / nSmall.seconds(),
              small),
          nLarge.seconds() <= TARGET * nSmall.seconds());
      report(
          String.format(
              Locale.ROOT,
              "notifications, one new file at %,d files: %d LIST on the" + " landing bucket",
              large,
              nLarge.s3().getOrDefault("LIST", 0L)),
          nLarge.s3().getOrDefault("LIST", 0L) == 0);
      heap("notifications, one new file", nSmall, nLarge);
    }
    for (String mode : List.of("listing-local", "listing-s3")) {
      if (!modes.contains(mode)) {
        continue;
      }
      Measured lSmall = find(all, mode, small, "idle");
      Measured lLarge = find(all, mode, large, "idle");
      heap(mode + ", idle run", lSmall, lLarge);
      heap(
          mode + ", one new file",
          find(all, mode, small, "one-new"),
          find(all, mode, large, "one-new"));
      // The listing itself grows with the prefix; what bronze adds to it must not.
      for (String run : List.of("idle", "one-new")) {
        Measured small1 = find(all, mode, small, run);
        Measured large1 = find(all, mode, large, run);
        double smallAbove = Math.max(small1.seconds() - small1.bareListing(), 0.001);
        double largeAbove = large1.seconds() - large1.bareListing();
        report(
            String.format(
                Locale.ROOT,
                "%s, %s run: time above the bare listing %.2f s at %,d files, %.2f s at %,d:"
                    + " %.2fx",
                mode,
                run,
                largeAbove,
                large,
                smallAbove,
                small,
                largeAbove / smallAbove),
            largeAbove <= TARGET * smallAbove);
        // For information: the same difference in CPU, which a remote listing's waits (the S3
        // endpoint's time per page, which moves by a second between listings of 100,000 keys) do
        // not blur.
        System.out.printf(
            Locale.ROOT,
            "        %s, %s run: CPU above the bare listing's %.2f s at %,d files, %.2f s at %,d"
                + " (for information)%n",
            mode,
            run,
            large1.cpu() - large1.bareCpu(),
            large,
            small1.cpu() - small1.bareCpu(),
            small);
      }
    }
  }

  /**
   * The heap target, judged on the live heap ({@link LiveHeap}: what the run holds, not what it
   * allocates); the peak heap's ratio is printed beside it, for information.
   */
  private static void heap(String what, Measured small, Measured large) {
    double live = (double) large.heap().live() / Math.max(small.heap().live(), 1);
    // A run shorter than the sampling period (an idle run over 1,000 files: 0.02-0.12 s) has only
    // its closing reading, taken after it ended, against the larger run's highest reading while
    // it ran: no ratio of the two says anything.
    boolean sampled = small.heap().samples() > 1;
    judge(
        String.format(
            Locale.ROOT,
            "%s: live heap %.1f MiB at %,d files, %.1f MiB at %,d: %.2fx (peak heap %.2fx, for"
                + " information)",
            what,
            large.heap().live() / 1048576.0,
            large.files(),
            small.heap().live() / 1048576.0,
            small.files(),
            live,
            (double) large.peakHeap() / small.peakHeap()),
        live <= TARGET,
        sampled);
    // The same runs' whole live heap (the JVM's, the run's highest reading): where the run itself
    // holds a few MiB, its ratio above says more about sampling than about the run.
    double held = (double) large.heap().held() / Math.max(small.heap().held(), 1);
    report(
        String.format(
            Locale.ROOT,
            "%s: JVM live heap at the run's highest reading %.1f MiB at %,d files, %.1f MiB at %,d:"
                + " %.2fx",
            what,
            large.heap().held() / 1048576.0,
            large.files(),
            small.heap().held() / 1048576.0,
            small.files(),
            held),
        held <= TARGET);
    // With histograms: the live objects the run held at its most, counted at a safepoint. The heap
    // use above, read after System.gc() while the run goes on, also counts what the run allocated
    // since the collection ended (LiveHeap.Figures#objects).
    if (small.heap().objects() >= 0 && large.heap().objects() >= 0) {
      double objects = (double) large.heap().objects() / Math.max(small.heap().objects(), 1);
      judge(
          String.format(
              Locale.ROOT,
              "%s: live objects (class histograms) %.1f MiB at %,d files, %.1f MiB at %,d: %.2fx",
              what,
              large.heap().objects() / 1048576.0,
              large.files(),
              small.heap().objects() / 1048576.0,
              small.files(),
              objects),
          objects <= TARGET,
          sampled);
    }
  }

  private static Measured find(List<Measured> all, String mode, int n, String run) {
    return all.stream()
        .filter(m -> m.mode().equals(mode) && m.files() == n && m.run().equals(run))
        .findFirst()
        .orElseThrow();
  }

  /** A heap target, or, when the smaller run was never sampled while it ran, its figures alone. */
  private static void judge(String what, boolean met, boolean sampled) {
    if (sampled) {
      report(what, met);
    } else {
      System.out.println(
          "--      "
              + what
              + " (not judged: the smaller run ended before the first reading while it ran)");
    }
  }

  private static void report(String what, boolean met) {
    System.out.println((met ? "MET     " : "NOT MET ") + what + " (target " + TARGET + "x)");
  }

  /**
   * The Hadoop FileSystem listing of the prefix alone, made as the run's listing makes it: one flat
   * {@code listFiles} on S3, directory by directory ({@code listStatus}) elsewhere. A recursive
   * {@code listFiles} on the local file system would fork a process per file for its permissions
   * (about 5 ms each), which the run never pays.
   */
  /** The bare listing's wall clock and the JVM's CPU during it. */
  record Bare(double seconds, double cpu) {}

  private static Bare bareListing(SparkSession spark, String landing) throws Exception {
    org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(landing);
    FileSystem fs = root.getFileSystem(spark.sparkContext().hadoopConfiguration());
    long start = System.nanoTime();
    long cpuStart = CPU.getProcessCpuTime();
    long n = 0;
    if ("s3a".equals(root.toUri().getScheme())) {
      RemoteIterator<LocatedFileStatus> it = fs.listFiles(root, true);
      while (it.hasNext()) {
        it.next();
        n++;
      }
    } else {
      n = walk(fs, root);
    }
    check(n > 0, "the bare listing of %s found no file", landing);
    return new Bare((System.nanoTime() - start) / 1e9, (CPU.getProcessCpuTime() - cpuStart) / 1e9);
  }

  private static long walk(FileSystem fs, org.apache.hadoop.fs.Path dir) throws Exception {
    long n = 0;
    for (org.apache.hadoop.fs.FileStatus status : fs.listStatus(dir)) {
      n += status.isDirectory() ? walk(fs, status.getPath()) : 1;
    }
    return n;
  }

  private static String line(int i) {
    return "{\"order_id\":" + i + ",\"status\":\"Created\"}\n";
  }

  private static void put(S3Client s3, String key, String content) {
    s3.putObject(
        b -> b.bucket("landing").key(key), RequestBody.fromString(content, StandardCharsets.UTF_8));
  }

  private static String storageYaml(StorageConfig s) {
    return "storage:\n  endpoint: "
        + s.endpoint()
        + "\n  region: "
        + s.region()
        + "\n  pathStyleAccess: true\n";
  }

  private static String pipeline(
      String landing, String bronze, String checkpoint, String storage, String discovery) {
    return "name: bench\n"
        + storage
        + "source:\n  path: "
        + landing
        + "\n  schema: \""
        + SCHEMA
        + "\"\n"
        + discovery
        + "bronze:\n  path: "
        + bronze
        + "\n  checkpoint: "
        + checkpoint
        + "\n";
  }

  private static void check(boolean ok, String format, Object... args) {
    if (!ok) {
      throw new IllegalStateException(String.format(Locale.ROOT, format, args));
    }
  }

  /** ElasticMQ in this JVM, with one queue; the run counts its own SQS calls. */
  static final class Queue implements AutoCloseable {
    private final org.elasticmq.rest.sqs.SQSRestServer server;
    private final software.amazon.awssdk.services.sqs.SqsClient sqs;
    private final String url;

    private Queue(
        org.elasticmq.rest.sqs.SQSRestServer server,
        software.amazon.awssdk.services.sqs.SqsClient sqs,
        String url) {
      this.server = server;
      this.sqs = sqs;
      this.url = url;
    }

    static Queue start() {
      var server =
          org.elasticmq.rest.sqs.SQSRestServerBuilder.withInterface("127.0.0.1")
              .withDynamicPort()
              .start();
      int port = server.waitUntilStarted().localAddress().getPort();
      String endpoint = "http://127.0.0.1:" + port;
      var sqs =
          software.amazon.awssdk.services.sqs.SqsClient.builder()
              .endpointOverride(java.net.URI.create(endpoint))
              .region(software.amazon.awssdk.regions.Region.US_EAST_1)
              .credentialsProvider(
                  software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                      software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("x", "x")))
              .build();
      sqs.createQueue(b -> b.queueName("bench"));
      return new Queue(server, sqs, endpoint + "/000000000000/bench");
    }

    String url() {
      return url;
    }

    void announce(String bucket, String key, long size) {
      sqs.sendMessage(
          b ->
              b.queueUrl(url)
                  .messageBody(
                      "{\"Records\":[{\"eventVersion\":\"2.1\",\"eventSource\":\"aws:s3\","
                          + "\"awsRegion\":\"us-east-1\",\"eventTime\":\""
                          + java.time.Instant.now()
                          + "\","
                          + "\"eventName\":\"ObjectCreated:Put\",\"s3\":{\"s3SchemaVersion\":\"1.0\","
                          + "\"bucket\":{\"name\":\""
                          + bucket
                          + "\"},\"object\":{\"key\":\""
                          + key
                          + "\",\"size\":"
                          + size
                          + "}}}]}"));
    }

    @Override
    public void close() {
      sqs.close();
      server.stopAndWait();
    }
  }
}
