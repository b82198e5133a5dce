package io.replaysafe.rehearsal;

import static org.apache.spark.sql.functions.col;

import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.common.Columns;
import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.config.ConfigErrors;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.Policy;
import io.replaysafe.common.s3.S3Clients;
import io.replaysafe.jobs.PipelineRun;
import io.replaysafe.silver.BatchReport;
import io.replaysafe.silver.SilverResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The seed-004 rehearsal: named steps against a real S3 protocol endpoint, each with its input
 * files, an action, the silver rows it must leave (written out here, not computed by the code under
 * test) and assertions that record why they passed or failed. Two steps kill a child job process at
 * a {@link CrashPoints crash point} and restart the job.
 */
public final class Rehearsal {
  /** The rehearsal's own buckets, so it never touches the demo's. */
  public static final String LANDING_BUCKET = "rehearsal-landing";

  public static final String LAKE_BUCKET = "rehearsal-lake";

  static final String R1 =
      "{\"order_id\":201,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"amount\":10.0}";
  static final String R2 =
      "{\"order_id\":201,\"source_version\":2,\"status\":\"Paid\",\"op\":\"UPSERT\",\"amount\":10.0}";
  static final String R3 =
      "{\"order_id\":201,\"source_version\":3,\"status\":\"Shipped\",\"op\":\"UPSERT\",\"amount\":10.0}";
  static final String R4 =
      "{\"order_id\":201,\"source_version\":4,\"status\":null,\"op\":\"DELETE\",\"amount\":null}";
  static final String C1 =
      "{\"order_id\":202,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"amount\":5.0}";
  static final String C1X =
      "{\"order_id\":202,\"source_version\":1,\"status\":\"Cancelled\",\"op\":\"UPSERT\",\"amount\":5.0}";
  static final String C2 =
      "{\"order_id\":202,\"source_version\":2,\"status\":\"Paid\",\"op\":\"UPSERT\",\"amount\":5.0}";
  static final String N1 =
      "{\"order_id\":203,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"amount\":7.0}";
  static final String N2 =
      "{\"order_id\":203,\"source_version\":2,\"status\":\"Shipped\",\"op\":\"UPSERT\",\"amount\":7.0}";

  static final List<String> FIRST_DELIVERY = List.of(R1, R2, R3, C1, R3);

  static final String S201 = "201|3|Shipped|10.0";
  static final String S202 = "202|1|Created|5.0";
  static final String S202_PAID = "202|2|Paid|5.0";
  static final String S203 = "203|1|Created|7.0";
  static final String S203_SHIPPED = "203|2|Shipped|7.0";

  static final String Q_CANCELLED_4 =
      "{\"order_id\":202}|{\"source_version\":1}|Cancelled|part-0004.json";
  static final List<String> Q_AFTER_RESET =
      List.of(
          Q_CANCELLED_4,
          Q_CANCELLED_4,
          "{\"order_id\":202}|{\"source_version\":1}|Created|part-0001.json",
          "{\"order_id\":202}|{\"source_version\":1}|Created|part-0002.json");

  /** One named step: what it does, and the action that fills in its report entry. */
  record StepSpec(String name, String description, StepAction action) {}

  @FunctionalInterface
  interface StepAction {
    void run(RehearsalReport.Step step) throws Exception;
  }

  private final PipelineConfig pipeline;
  private final SparkSession spark;
  private final Map<String, String> childCredentials;
  private final Path workDir;
  private final Path configFile;
  private final PrintWriter progress;
  private final String landingBucket;
  private final String landingPrefix;
  private final List<String> runIds = new ArrayList<>();

  private Rehearsal(
      PipelineConfig pipeline,
      SparkSession spark,
      Map<String, String> childCredentials,
      Path workDir,
      Path configFile,
      PrintWriter progress) {
    this.pipeline = pipeline;
    this.spark = spark;
    this.childCredentials = Map.copyOf(childCredentials);
    this.workDir = workDir;
    this.configFile = configFile;
    this.progress = progress;
    URI source = URI.create(pipeline.source().path());
    this.landingBucket = source.getHost();
    String prefix = source.getPath().replaceFirst("^/", "");
    this.landingPrefix = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
  }

  /**
   * The pipeline file the rehearsal runs: {@code yaml} (a template where {@code ${endpoint}} is the
   * endpoint's address), or the demo's order contract on the rehearsal's own buckets when null.
   */
  public static String pipelineYaml(String yaml) throws IOException {
    return yaml != null ? yaml : defaultPipelineYaml(LANDING_BUCKET, LAKE_BUCKET, "");
  }

  /**
   * The demo's order contract with its landing path in {@code landingBucket} and its tables and
   * checkpoints in {@code lakeBucket}, every path under {@code prefix} ("" or "a/b/"), so that a
   * rehearsal on a long-lived endpoint never meets an earlier one's objects.
   */
  public static String defaultPipelineYaml(String landingBucket, String lakeBucket, String prefix)
      throws IOException {
    try (InputStream in =
        Rehearsal.class.getResourceAsStream("/io/replaysafe/cli/demo-orders.yaml")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .replace("s3a://landing/", "s3a://" + landingBucket + "/" + prefix)
          .replace("s3a://lake/", "s3a://" + lakeBucket + "/" + prefix)
          .replace("name: orders", "name: rehearsal_orders");
    }
  }

  /** Buckets named by the pipeline's s3a paths; refuses a pipeline the rehearsal cannot run. */
  public static List<String> buckets(PipelineConfig pipeline) {
    Set<String> buckets = new LinkedHashSet<>();
    List<String> paths = new ArrayList<>();
    paths.add(pipeline.source().path());
    paths.add(pipeline.bronze().path());
    paths.add(pipeline.bronze().checkpoint());
    var silver = pipeline.requireSilver();
    paths.addAll(
        List.of(silver.path(), silver.checkpoint(), silver.quarantinePath(), silver.runsPath()));
    for (String p : paths) {
      URI uri = URI.create(p);
      if (!"s3a".equals(uri.getScheme()) || uri.getHost() == null) {
        throw ConfigErrors.rule(
            "The rehearsal runs against an S3 endpoint: every path must be s3a://BUCKET/..., and "
                + p
                + " is not",
            "use s3a:// paths (and storage.endpoint: ${endpoint})");
      }
      buckets.add(uri.getHost());
    }
    if (silver.onConflict() != Policy.QUARANTINE || silver.onInvalid() != Policy.QUARANTINE) {
      throw ConfigErrors.rule(
          "The rehearsal expects onConflict: quarantine and onInvalid: quarantine (a conflicting"
              + " equal version is one of its steps), and the pipeline file says onConflict: "
              + silver.onConflict()
              + ", onInvalid: "
              + silver.onInvalid(),
          "set both to quarantine");
    }
    return List.copyOf(buckets);
  }

  /**
   * Runs every step against the pipeline's endpoint (already started, its buckets created, and its
   * credentials resolvable in this JVM through the default chain). {@code yaml} is the pipeline
   * file with the endpoint filled in; it is written to {@code workDir} for the child job processes,
   * which get {@code childCredentials} ({@code AWS_*} variables) in their environment.
   */
  public static RehearsalReport run(
      String yaml,
      Map<String, String> childCredentials,
      SparkSession spark,
      Path workDir,
      String backend,
      PrintWriter progress)
      throws IOException {
    PipelineConfig pipeline = ConfigLoader.parse("rehearsal pipeline", yaml);
    Files.createDirectories(workDir);
    Path configFile = workDir.resolve("rehearsal-pipeline.yaml");
    Files.writeString(configFile, yaml, StandardCharsets.UTF_8);
    Rehearsal rehearsal =
        new Rehearsal(pipeline, spark, childCredentials, workDir, configFile, progress);
    return rehearsal.runSteps(backend);
  }

  private RehearsalReport runSteps(String backend) {
    RehearsalReport report = new RehearsalReport(backend, pipeline.name());
    List<StepSpec> steps = steps();
    StreamingQueryListener listener = new RunIdListener(runIds);
    spark.streams().addListener(listener);
    try {
      for (int i = 0; i < steps.size(); i++) {
        StepSpec spec = steps.get(i);
        RehearsalReport.Step step =
            new RehearsalReport.Step(i + 1, spec.name(), spec.description());
        progress.println(
            "rehearse: step " + (i + 1) + "/" + steps.size() + " " + spec.name() + " ...");
        progress.flush();
        long started = System.nanoTime();
        runIds.clear();
        step.checkpoints.add("bronze " + pipeline.bronze().checkpoint());
        step.checkpoints.add("silver " + pipeline.requireSilver().checkpoint());
        try {
          spec.action().run(step);
        } catch (Exception e) {
          step.check(
              "the step ran to completion",
              false,
              "it threw " + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()));
        }
        step.runIds.addAll(0, runIds);
        step.seconds = (System.nanoTime() - started) / 1e9;
        report.add(step);
        progress.println(
            String.format(
                "rehearse: step %d/%d %s ... %s (%.1f s)",
                i + 1, steps.size(), spec.name(), step.status(), step.seconds));
        for (RehearsalReport.Assertion a : step.assertions) {
          if (!a.passed()) {
            progress.println("rehearse:   FAILED " + a.name() + ": " + a.reason());
          }
        }
        progress.flush();
      }
    } finally {
      spark.streams().removeListener(listener);
    }
    return report;
  }

  private List<StepSpec> steps() {
    List<StepSpec> steps = new ArrayList<>();
    steps.add(
        new StepSpec(
            "two keys, several versions of one, an exact retry",
            "One object with order 201 at versions 1, 2 and 3, order 202 at version 1, and 201 v3"
                + " delivered twice (an exact retry). Bronze keeps all 5 lines; silver keeps the"
                + " latest version of each key and collapses the retry.",
            step -> {
              land(step, "day1/part-0001.json", FIRST_DELIVERY);
              Runs runs = runInProcess(step);
              step.expectedSilverRows = List.of(S201, S202);
              checkSilver(step);
              checkCount(step, "bronze rows from part-0001.json", 5, bronzeRows("part-0001.json"));
              checkCount(
                  step,
                  "exact retries collapsed by silver",
                  1,
                  runs.silver().total(BatchReport::exactRetries));
              checkQuarantine(step, List.of());
            }));
    steps.add(
        new StepSpec(
            "restart with the same checkpoint",
            "No new object; bronze and silver run again on their checkpoints. Nothing is read"
                + " again and nothing changes.",
            step -> {
              Runs runs = runInProcess(step);
              step.expectedSilverRows = List.of(S201, S202);
              checkCount(step, "files bronze read again", 0, runs.bronze().files());
              checkCount(step, "silver batches", 0, runs.silver().batches().size());
              checkCount(step, "bronze rows in total", 5, bronzeRows(null));
              checkSilver(step);
              checkQuarantine(step, List.of());
            }));
    steps.add(
        new StepSpec(
            "same events in another object",
            "The first object's 5 lines again, in another object. Bronze keeps what it receives"
                + " (5 more rows); silver sees only exact retries of what it holds.",
            step -> {
              land(step, "day2/part-0002.json", FIRST_DELIVERY);
              runInProcess(step);
              step.expectedSilverRows = List.of(S201, S202);
              checkCount(step, "bronze rows from part-0002.json", 5, bronzeRows("part-0002.json"));
              checkCount(step, "bronze rows in total", 10, bronzeRows(null));
              checkSilver(step);
              checkQuarantine(step, List.of());
            }));
    steps.add(
        new StepSpec(
            "an older version",
            "Order 201 at version 1, delivered again after silver holds version 3: ignored as"
                + " older.",
            step -> {
              land(step, "day3/part-0003.json", List.of(R1));
              Runs runs = runInProcess(step);
              step.expectedSilverRows = List.of(S201, S202);
              checkCount(
                  step,
                  "older versions ignored by silver",
                  1,
                  runs.silver().total(BatchReport::olderIgnored));
              checkSilver(step);
              checkQuarantine(step, List.of());
            }));
    steps.add(
        new StepSpec(
            "a conflicting equal version",
            "Order 202 at version 1 again but Cancelled instead of Created: the same key and"
                + " sequence with another payload. Quarantined; silver keeps Created.",
            step -> {
              land(step, "day3/part-0004.json", List.of(C1X));
              runInProcess(step);
              step.expectedSilverRows = List.of(S201, S202);
              checkSilver(step);
              checkQuarantine(step, List.of(Q_CANCELLED_4));
            }));
    steps.add(
        new StepSpec(
            "bronze checkpoint deleted",
            "The bronze checkpoint is deleted and the job runs again: bronze re-ingests all 4"
                + " objects still in the landing path (12 rows appended a second time, by"
                + " design). Silver sees exact retries and older versions, and key 202's"
                + " conflict again in one batch: the 3 re-ingested rows of 202 (two Created, one"
                + " Cancelled) are quarantined as new bronze rows; silver does not change.",
            step -> {
              step.checkpoints.set(
                  0, "bronze " + pipeline.bronze().checkpoint() + " (deleted before the run)");
              deleteBronzeCheckpoint(step);
              Runs runs = runInProcess(step);
              step.expectedSilverRows = List.of(S201, S202);
              checkCount(step, "files bronze re-ingested", 4, runs.bronze().files());
              checkCount(step, "bronze rows in total", 24, bronzeRows(null));
              checkSilver(step);
              checkQuarantine(step, Q_AFTER_RESET);
            }));
    steps.add(
        new StepSpec(
            "job killed in the middle of a bronze write, then restarted",
            "A new object (202 v2 Paid, new order 203 v1). A child job process ('replaysafe run')"
                + " is halted (exit 137, like kill -9) while bronze maps the batch's rows: after"
                + " the bronze checkpoint recorded the batch's offsets, before the Delta commit"
                + " and the checkpoint commit. The job is restarted on the same checkpoints.",
            step -> {
              land(step, "day4/part-0005.json", List.of(C2, N1));
              Child child = runChild(step, CrashPoints.BRONZE_MID_WRITE);
              checkCount(step, "child exit code (killed at the crash point)", 137, child.exit());
              checkCount(step, "bronze rows in total after the kill", 24, bronzeRows(null));
              runInProcess(step);
              step.expectedSilverRows = List.of(S201, S202_PAID, S203);
              checkCount(
                  step,
                  "bronze rows from part-0005.json after the restart (no duplicates)",
                  2,
                  bronzeRows("part-0005.json"));
              checkCount(step, "bronze rows in total", 26, bronzeRows(null));
              checkSilver(step);
              checkQuarantine(step, Q_AFTER_RESET);
            }));
    steps.add(
        new StepSpec(
            "job killed in the middle of a silver MERGE, then restarted",
            "A new object (203 v2 Shipped, 201 v4 DELETE). A child job process runs bronze, then"
                + " is halted (exit 137) right after silver's MERGE into the silver table"
                + " committed, before the tombstone MERGE, the run log and the silver checkpoint"
                + " commit. The restart rolls the interrupted batch back and replays it: silver"
                + " ends as before the kill and the delete's tombstone must be written.",
            step -> {
              land(step, "day5/part-0006.json", List.of(N2, R4));
              Child child = runChild(step, CrashPoints.SILVER_AFTER_MERGE);
              checkCount(step, "child exit code (killed at the crash point)", 137, child.exit());
              checkCount(
                  step,
                  "bronze rows from part-0006.json after the kill (bronze had committed)",
                  2,
                  bronzeRows("part-0006.json"));
              step.notes.add("silver right after the kill: " + silverRows());
              runInProcess(step);
              step.expectedSilverRows = List.of(S202_PAID, S203_SHIPPED);
              checkCount(
                  step,
                  "bronze rows from part-0006.json after the restart (no duplicates)",
                  2,
                  bronzeRows("part-0006.json"));
              checkCount(step, "bronze rows in total", 28, bronzeRows(null));
              checkSilver(step);
              checkQuarantine(step, Q_AFTER_RESET);
            }));
    steps.add(
        new StepSpec(
            "an older insert after the delete",
            "Order 201 v3 Shipped again, older than the delete at version 4 replayed in the"
                + " previous step: the tombstone written by the restart keeps 201 deleted.",
            step -> {
              land(step, "day6/part-0007.json", List.of(R3));
              runInProcess(step);
              step.expectedSilverRows = List.of(S202_PAID, S203_SHIPPED);
              checkSilver(step);
              checkQuarantine(step, Q_AFTER_RESET);
            }));
    return steps;
  }

  record Runs(BronzeResult bronze, SilverResult silver) {}

  record Child(long pid, int exit) {}

  private Runs runInProcess(RehearsalReport.Step step) {
    PipelineRun.Outcome run = PipelineRun.of(pipeline, spark).execute().orThrow();
    BronzeResult bronze = run.bronze();
    SilverResult silver = run.silver();
    step.notes.add(bronze.summary());
    step.notes.add(silver.summary());
    progress.println(
        "rehearse:   bronze "
            + bronze.batches()
            + " batch(es), "
            + bronze.files()
            + " file(s), "
            + bronze.rows()
            + " row(s); silver "
            + silver.batches().size()
            + " batch(es), "
            + silver.total(BatchReport::inputRows)
            + " row(s)"
            + String.format(
                " (%.1f rows/s)",
                (bronze.rows() + silver.total(BatchReport::inputRows))
                    / Math.max(0.001, bronze.seconds() + silver.seconds())));
    progress.flush();
    return new Runs(bronze, silver);
  }

  private void land(RehearsalReport.Step step, String name, List<String> lines) {
    String key = landingPrefix + name;
    try (S3Client s3 = S3Clients.create(pipeline.storage().orElseThrow())) {
      s3.putObject(
          b -> b.bucket(landingBucket).key(key),
          RequestBody.fromString(String.join("\n", lines) + "\n", StandardCharsets.UTF_8));
    }
    step.inputFiles.add("s3a://" + landingBucket + "/" + key + " (" + lines.size() + " lines)");
  }

  private void deleteBronzeCheckpoint(RehearsalReport.Step step) throws IOException {
    org.apache.hadoop.fs.Path checkpoint =
        new org.apache.hadoop.fs.Path(pipeline.bronze().checkpoint());
    FileSystem fs = checkpoint.getFileSystem(spark.sparkContext().hadoopConfiguration());
    boolean deleted = fs.delete(checkpoint, true);
    step.check(
        "bronze checkpoint deleted",
        deleted && !fs.exists(checkpoint),
        deleted ? checkpoint + " no longer exists" : "nothing was deleted at " + checkpoint);
  }

  /**
   * Runs {@code replaysafe run --config FILE} in a child JVM (same java, class path and module
   * flags) armed with a crash point; credentials go through the environment, never the command line
   * or a file.
   */
  private Child runChild(RehearsalReport.Step step, String crashPoint) throws Exception {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("-Xmx1g");
    // A short-lived job on tiny data: quick JIT and one GC thread start and finish faster.
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.addAll(jvmFlags());
    // Only the code generation switches are forwarded (never spark.hadoop.*: it may hold secrets).
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("spark.sql.codegen.")) {
        command.add("-D" + name + "=" + System.getProperty(name));
      }
    }
    command.add("-D" + CrashPoints.PROPERTY + "=" + crashPoint);
    command.add("-Dreplaysafe.sparkLogLevel=ERROR");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("io.replaysafe.cli.Main");
    command.add("run");
    command.add("--config");
    command.add(configFile.toString());
    Path log = workDir.resolve("child-" + crashPoint + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().putAll(childCredentials);
    builder
        .environment()
        .putIfAbsent("AWS_REGION", pipeline.storage().map(s -> s.region()).orElse("us-east-1"));
    builder.environment().putIfAbsent("SPARK_LOCAL_IP", "127.0.0.1");
    progress.println("rehearse:   child job process with crash point " + crashPoint + " ...");
    progress.flush();
    Process process = builder.start();
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly().waitFor();
      throw new IllegalStateException("the child job did not stop within 10 minutes; log: " + log);
    }
    int exit = process.exitValue();
    step.runIds.add(
        "child job process pid "
            + process.pid()
            + " ('replaysafe run', crash point "
            + crashPoint
            + "), exit "
            + exit
            + ", log "
            + log);
    return new Child(process.pid(), exit);
  }

  /** The module flags Spark needs on Java 17, as this JVM was started with them. */
  static List<String> jvmFlags() {
    List<String> flags = new ArrayList<>();
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens")
          || arg.startsWith("--add-exports")
          || arg.equals("-XX:+IgnoreUnrecognizedVMOptions")
          || arg.startsWith("-Djdk.reflect.")
          || arg.startsWith("-Dio.netty.")) {
        flags.add(arg);
      }
    }
    if (flags.stream().noneMatch(f -> f.startsWith("--add-opens"))) {
      for (String p :
          List.of(
              "java.lang",
              "java.lang.invoke",
              "java.lang.reflect",
              "java.io",
              "java.net",
              "java.nio",
              "java.util",
              "java.util.concurrent",
              "java.util.concurrent.atomic",
              "jdk.internal.ref",
              "sun.nio.ch",
              "sun.nio.cs",
              "sun.security.action",
              "sun.util.calendar")) {
        flags.add("--add-opens=java.base/" + p + "=ALL-UNNAMED");
      }
      flags.add("-Djdk.reflect.useDirectMethodHandle=false");
      flags.add("-Dio.netty.tryReflectionSetAccessible=true");
    }
    return flags;
  }

  /** Silver as sorted "order_id|source_version|status|amount" lines. */
  List<String> silverRows() {
    Dataset<Row> silver = spark.read().format("delta").load(pipeline.requireSilver().path());
    return lines(
        silver.selectExpr(
            "concat_ws('|', cast(order_id as string), cast(source_version as string),"
                + " coalesce(status, 'null'), coalesce(cast(amount as string), 'null'))"));
  }

  /** Quarantine as sorted "key|sequence|status|file name" lines. */
  List<String> quarantineRows() {
    Dataset<Row> q = spark.read().format("delta").load(pipeline.requireSilver().quarantinePath());
    return lines(
        q.selectExpr(
            "concat_ws('|', key, sequence, coalesce(get_json_object(raw_payload, '$.status'),"
                + " 'null'), element_at(split(source_file, '/'), -1))"));
  }

  private long bronzeRows(String fileName) {
    Dataset<Row> bronze = spark.read().format("delta").load(pipeline.bronze().path());
    if (fileName != null) {
      bronze = bronze.where(col(Columns.SOURCE_FILE_NAME).equalTo(fileName));
    }
    return bronze.count();
  }

  private static List<String> lines(Dataset<Row> oneColumn) {
    return oneColumn.collectAsList().stream().map(r -> r.getString(0)).sorted().toList();
  }

  private void checkSilver(RehearsalReport.Step step) {
    List<String> actual = silverRows();
    step.actualSilverRows = actual;
    List<String> expected = step.expectedSilverRows.stream().sorted().toList();
    step.check("silver rows", expected.equals(actual), difference(expected, actual, "silver"));
  }

  private void checkQuarantine(RehearsalReport.Step step, List<String> expectedRows) {
    List<String> actual = quarantineRows();
    step.quarantineRows = actual;
    List<String> expected = expectedRows.stream().sorted().toList();
    step.check(
        "quarantine rows", expected.equals(actual), difference(expected, actual, "quarantine"));
  }

  static String difference(List<String> expected, List<String> actual, String table) {
    if (expected.equals(actual)) {
      return table + " holds exactly the " + expected.size() + " expected row(s)";
    }
    List<String> missing = new ArrayList<>(expected);
    actual.forEach(missing::remove);
    List<String> unexpected = new ArrayList<>(actual);
    expected.forEach(unexpected::remove);
    return table
        + " differs from the expected rows: missing "
        + missing
        + ", unexpected "
        + unexpected;
  }

  private static void checkCount(
      RehearsalReport.Step step, String what, long expected, long actual) {
    step.check(
        what,
        expected == actual,
        expected == actual
            ? "expected " + expected + ", was " + actual
            : "expected " + expected + " but was " + actual);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** Collects the run id of every streaming query started during a step. */
  private static final class RunIdListener extends StreamingQueryListener {
    private final List<String> runIds;

    RunIdListener(List<String> runIds) {
      this.runIds = runIds;
    }

    @Override
    public void onQueryStarted(QueryStartedEvent event) {
      synchronized (runIds) {
        runIds.add(event.name() + " run " + event.runId());
      }
    }

    @Override
    public void onQueryProgress(QueryProgressEvent event) {}

    @Override
    public void onQueryTerminated(QueryTerminatedEvent event) {}
  }
}
