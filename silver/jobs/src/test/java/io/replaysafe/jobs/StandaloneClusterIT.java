package io.replaysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.io.JsonLinesExport;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.common.testing.S3LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster jar on a real Spark standalone cluster: a master and two one-core workers, each its
 * own JVM on loopback, executors in JVMs of their own, the embedded S3 endpoint for every path.
 * Bronze and silver are submitted through scripts/spark-submit.sh with {@code --master
 * spark://127.0.0.1:PORT}; the tables they write must equal those of a {@code local[2]} run of the
 * same input. Then one worker (and its executor) is killed in the middle of silver: the job either
 * finishes through task retry or fails cleanly, and a rerun converges to the same tables.
 *
 * <p>The credentials reach the executors through Spark (spark-submit.sh's properties file, the
 * application's executor environment), never through a command line: no process on the machine
 * shows the secret in its arguments while the jobs run, no file of the workers holds it, and the
 * workers themselves are started without any.
 *
 * <p>Slow (several JVMs per submission), so only with {@code -Pcluster}: {@code mvn -B verify
 * -Pcluster}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StandaloneClusterIT extends SparkTestBase {
  static final String LANDING = "landing";
  static final String LAKE = "lake";

  /** Columns that record when or in which run a row was written: they differ by design. */
  static final Set<String> VOLATILE =
      Set.of(
          "ingested_at",
          "__applied_at",
          "__deleted_at",
          "quarantine_id",
          "run_id",
          "quarantined_at");

  @TempDir static Path dir;

  static EmbeddedS3Server s3;
  static StorageConfig storage;
  static StandaloneCluster cluster;
  static Path sparkHome;
  static CommandLineWatch watch;
  static boolean clusterBronzeDone;

  record Exit(int code, String out, String err) {
    String lastLine() {
      List<String> lines = out.lines().toList();
      return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }
  }

  @BeforeAll
  static void startClusterAndEndpoint() throws Exception {
    s3 = EmbeddedS3Server.start(0, List.of(LANDING, LAKE));
    // This JVM (the local[2] oracle and the table reads) authenticates through system
    // properties; the cluster's processes get the credentials only as spark-submit.sh forwards.
    s3.credentials().installAsSystemProperties();
    storage = StorageConfig.of(s3.endpoint().toString(), "us-east-1", true);
    SparkSessions.applyStorage(spark, Optional.of(storage));
    landInput(new S3LandingZone(storage, LANDING, "orders"));

    sparkHome =
        ClusterJarSupport.sparkHome(
            Files.createDirectories(dir.resolve("spark-home")),
            ClusterJarSupport.sparkRuntimeClassPath(ClusterJarSupport.SparkLine.current(), true));
    watch = new CommandLineWatch(s3.credentials().secretAccessKey());
    watch.start();
    cluster = StandaloneCluster.start(sparkHome, dir.resolve("cluster"), 2, 1, "1g");
  }

  @AfterAll
  static void stopAll() throws InterruptedException {
    if (watch != null) {
      watch.interrupt();
      watch.join();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  @Order(1)
  void bronzeThenSilverOnTheClusterEqualALocalRun() throws Exception {
    clusterBronze();
    Exit silver = submit("silver", pipeline("cluster", "cluster"));
    assertThat(silver.code()).as(silver.err()).isZero();
    assertThat(silver.lastLine())
        .startsWith(
            "silver orders: 1 batch(es), 54 row(s) in; 3 invalid, 2 exact retries collapsed, 0"
                + " older version(s) ignored, 1 conflict(s) (1 in batch, 0 with target), 5"
                + " quarantined; inserted 28, updated 0, deleted ");

    // The executors ran tasks and wrote to S3 with credentials that no command line showed.
    assertThat(executorLogs()).isNotEmpty();
    assertThat(watch.executorsWithCredentials()).as("executors with the secret in env").isNotZero();
    assertThat(watch.commandLinesWithSecret()).as("command lines with the secret").isEmpty();
    assertNoFileHoldsTheSecret();

    runLocally("local");
    for (Table table : Table.values()) {
      assertThat(export(table, "cluster", "cluster"))
          .as(table.name())
          .isNotEmpty()
          .containsExactlyElementsOf(export(table, "local", "local"));
    }
    // What the contract made of the input, so that the comparison is not between two empty
    // or two equally wrong tables.
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(silverPath("cluster"))
                    .groupBy()
                    .agg(
                        org.apache.spark.sql.functions.count("*"),
                        org.apache.spark.sql.functions.sum("source_version"))))
        .containsExactly("28|45");
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(silverPath("cluster") + "_quarantine")
                    .groupBy("reason")
                    .count()
                    .orderBy("reason")))
        .containsExactly(
            "CONFLICT_IN_BATCH|2",
            "INVALID_CORRUPT_RECORD|1",
            "INVALID_NULL_KEY|1",
            "INVALID_NULL_SEQUENCE|1");
  }

  @Test
  @Order(2)
  void aWorkerKilledInTheMiddleOfSilverFinishesOrFailsCleanlyAndARerunConverges() throws Exception {
    clusterBronze();
    if (!Files.exists(dir.resolve("local.yaml"))) {
      runLocally("local");
    }
    StandaloneCluster.Worker victim = cluster.workers().get(1);
    Set<Path> before = appDirs(victim);
    Path pipeline = pipeline("cluster", "killed");
    Submission silver = start("silver", pipeline);
    // In the middle of silver: once the victim's executor for this application has started
    // several tasks, and while the driver still runs.
    Path stderr = awaitExecutorStderr(victim, before, silver);
    awaitTasksStarted(stderr, 8, silver);
    assertThat(silver.process().isAlive()).as("the silver job is still running").isTrue();
    cluster.killWorker(victim);

    Exit first = silver.await();
    List<String> attempts = new ArrayList<>(List.of("first: exit " + first.code()));
    if (first.code() != 0) {
      // Failed: it must say so in one line, as a scheduler sees it, and exit 1 (not a usage
      // error); the rerun then picks up where the checkpoint is.
      assertThat(first.code()).as(first.err()).isEqualTo(1);
      assertThat(first.lastLine()).startsWith("silver orders: FAILED: ");
      Exit rerun = submit("silver", pipeline);
      attempts.add("rerun: exit " + rerun.code());
      assertThat(rerun.code()).as(rerun.err()).isZero();
    } else {
      assertThat(first.lastLine()).startsWith("silver orders: 1 batch(es), 54 row(s) in;");
    }
    System.err.println("StandaloneClusterIT: worker killed mid-silver; " + attempts);
    for (Table table : Table.values()) {
      assertThat(export(table, "cluster", "killed"))
          .as(table.name() + " after " + attempts)
          .containsExactlyElementsOf(export(table, "local", "local"));
    }
    assertThat(watch.commandLinesWithSecret()).as("command lines with the secret").isEmpty();
    assertNoFileHoldsTheSecret();
  }

  // ---------------------------------------------------------------------------------------------

  /** The tables compared, each with the order the export command uses. */
  enum Table {
    BRONZE(true, "", List.of("source_file")),
    SILVER(false, "", List.of("order_id")),
    TOMBSTONES(false, "_tombstones", List.of("order_id")),
    QUARANTINE(false, "_quarantine", List.of("key", "sequence", "reason"));

    final boolean bronze;
    final String suffix;
    final List<String> order;

    Table(boolean bronze, String suffix, List<String> order) {
      this.bronze = bronze;
      this.suffix = suffix;
      this.order = order;
    }
  }

  /** The table as JSON lines, in the export command's order, without {@link #VOLATILE} columns. */
  static List<String> export(Table table, String bronzeName, String silverName) {
    String path = table.bronze ? bronzePath(bronzeName) : silverPath(silverName) + table.suffix;
    Dataset<Row> rows = spark.read().format("delta").load(path);
    for (String column : VOLATILE) {
      rows = rows.drop(column);
    }
    StringWriter text = new StringWriter();
    JsonLinesExport.write(rows, table.order, new PrintWriter(text));
    return text.toString().lines().toList();
  }

  static String bronzePath(String name) {
    return "s3a://" + LAKE + "/" + name + "/bronze/orders";
  }

  static String silverPath(String name) {
    return "s3a://" + LAKE + "/" + name + "/silver/orders";
  }

  /** The pipeline file: bronze under {@code bronzeName}, silver under {@code silverName}. */
  static Path pipeline(String bronzeName, String silverName) throws IOException {
    String yaml =
        String.join(
            "\n",
            "name: orders",
            "storage:",
            "  endpoint: " + s3.endpoint(),
            "  region: us-east-1",
            "  pathStyleAccess: true",
            "source:",
            "  path: s3a://" + LANDING + "/orders/",
            "  schema: \"order_id BIGINT, source_version BIGINT, status STRING, op STRING\"",
            "bronze:",
            "  path: " + bronzePath(bronzeName),
            "  checkpoint: s3a://" + LAKE + "/" + bronzeName + "/_checkpoints/bronze/orders",
            "silver:",
            "  path: " + silverPath(silverName),
            "  checkpoint: s3a://" + LAKE + "/" + silverName + "/_checkpoints/silver/orders",
            "  keys: [order_id]",
            "  sequenceBy: [source_version]",
            "  applyAsDeletes: \"op = 'DELETE'\"",
            "  exceptColumnList: [op]",
            "  onConflict: quarantine",
            "  onInvalid: quarantine",
            "");
    return Files.writeString(dir.resolve(silverName + ".yaml"), yaml);
  }

  /**
   * Three deliveries: 30 orders created (an exact retry, an unknown field, a malformed line), half
   * of them shipped, a delete, a conflicting equal version, a null key; then an older version, a
   * key with two newer versions and a sequence that is not a number.
   */
  static void landInput(S3LandingZone landing) {
    List<String> first = new ArrayList<>();
    for (int k = 1; k <= 30; k++) {
      first.add(
          "{\"order_id\":"
              + k
              + ",\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\""
              + (k == 6 ? ",\"coupon\":\"WELCOME\"" : "")
              + "}");
    }
    first.add(first.get(4)); // order 5 again: an exact retry
    first.add("{\"order_id\": 31, \"source_version\":");
    List<String> second = new ArrayList<>();
    for (int k = 2; k <= 30; k += 2) {
      second.add(
          "{\"order_id\":" + k + ",\"source_version\":2,\"status\":\"Shipped\",\"op\":\"UPSERT\"}");
    }
    second.add("{\"order_id\":3,\"source_version\":2,\"status\":null,\"op\":\"DELETE\"}");
    second.add("{\"order_id\":7,\"source_version\":1,\"status\":\"Cancelled\",\"op\":\"UPSERT\"}");
    second.add("{\"order_id\":null,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\"}");
    List<String> third =
        List.of(
            "{\"order_id\":4,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\"}",
            "{\"order_id\":9,\"source_version\":3,\"status\":\"Delivered\",\"op\":\"UPSERT\"}",
            "{\"order_id\":9,\"source_version\":2,\"status\":\"Shipped\",\"op\":\"UPSERT\"}",
            "{\"order_id\":12,\"source_version\":\"abc\",\"status\":\"Lost\",\"op\":\"UPSERT\"}");
    landing.put("2026-11-30/orders-0001.json", lines(first));
    landing.put("2026-11-30/orders-0002.json", lines(second));
    landing.put("2026-11-30/orders-0003.json", lines(third));
  }

  static byte[] lines(List<String> lines) {
    return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /** Bronze on the cluster, once per class: both tests read the same bronze table. */
  static synchronized void clusterBronze() throws Exception {
    if (clusterBronzeDone) {
      return;
    }
    Exit bronze = submit("bronze", pipeline("cluster", "cluster"));
    assertThat(bronze.code()).as(bronze.err()).isZero();
    assertThat(bronze.lastLine())
        .startsWith(
            "bronze orders: 3 file(s), 54 row(s) (2 with rescued data, 1 corrupt) in 1 batch(es);"
                + " bronze table version 1;");
    clusterBronzeDone = true;
  }

  /** The oracle: the same jobs in this JVM's local[2] session, on the same input. */
  static void runLocally(String name) throws IOException {
    Path pipeline = pipeline(name, name);
    for (ClusterJob job : ClusterJob.values()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      ClusterJob.Ending ending =
          job.run(
              new String[] {"--config", pipeline.toString()},
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertThat(ending.exitCode()).as(err.toString(StandardCharsets.UTF_8)).isZero();
    }
  }

  /** A submission in flight: spark-submit.sh and where its output goes. */
  record Submission(Process process, Path out, Path err, List<String> command) {
    Exit await() throws Exception {
      // Generous: on a shared two-core machine one submission has taken more than 8 minutes.
      if (!process.waitFor(20, TimeUnit.MINUTES)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor();
        throw new AssertionError(
            "Did not end within 20 minutes: " + command + "\nstderr:\n" + Files.readString(err));
      }
      return new Exit(process.exitValue(), Files.readString(out), Files.readString(err));
    }
  }

  static Exit submit(String job, Path pipeline) throws Exception {
    return start(job, pipeline).await();
  }

  /**
   * scripts/spark-submit.sh against the cluster: the AWS credentials only in its environment,
   * forwarded to the executors by the script ({@code REPLAYSAFE_FORWARD_AWS_ENV=1}).
   */
  static Submission start(String job, Path pipeline) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ClusterJarSupport.projectRoot().resolve("scripts/spark-submit.sh").toString());
    command.addAll(List.of("--master", cluster.masterUrl()));
    Map<String, String> conf = new LinkedHashMap<>();
    // Tiny data on two one-core executors: a handful of tasks per stage, not 200 (the default).
    conf.put("spark.sql.shuffle.partitions", "2");
    conf.put("spark.default.parallelism", "2");
    conf.put("spark.databricks.delta.snapshotPartitions", "2");
    conf.put("spark.cores.max", "2");
    // Compiling generated code for every new plan costs more than it saves on tiny data.
    conf.put("spark.sql.codegen.wholeStage", "false");
    conf.put("spark.sql.codegen.factoryMode", "NO_CODEGEN");
    conf.put("spark.executor.memory", "640m");
    conf.put(
        "spark.executor.extraJavaOptions",
        String.join(" ", ClusterJarSupport.sparkJvmFlags())
            + " "
            + String.join(" ", SparkSessions.SHORT_JOB_JIT)
            + " -XX:+UseSerialGC");
    conf.put("spark.ui.enabled", "false");
    conf.put("spark.driver.host", "127.0.0.1");
    conf.put("spark.driver.bindAddress", "127.0.0.1");
    conf.forEach((key, value) -> command.addAll(List.of("--conf", key + "=" + value)));
    command.addAll(List.of(job, "--config", pipeline.toString()));

    Path out = Files.createTempFile(dir, job + "-stdout", ".txt");
    Path err = Files.createTempFile(dir, job + "-stderr", ".txt");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    Map<String, String> env = builder.environment();
    StandaloneCluster.cleanEnvironment(env);
    env.put("SPARK_HOME", sparkHome.toString());
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    env.put("REPLAYSAFE_CLUSTER_JAR", ClusterJarSupport.clusterJar().toString());
    env.put("REPLAYSAFE_FORWARD_AWS_ENV", "1");
    env.put("AWS_ACCESS_KEY_ID", s3.credentials().accessKeyId());
    env.put("AWS_SECRET_ACCESS_KEY", s3.credentials().secretAccessKey());
    env.put("AWS_REGION", "us-east-1");
    return new Submission(builder.start(), out, err, command);
  }

  static Set<Path> appDirs(StandaloneCluster.Worker worker) throws IOException {
    try (Stream<Path> apps = Files.list(worker.workDir())) {
      return Set.copyOf(apps.toList());
    }
  }

  /** The stderr of the worker's executor for the application started after {@code before}. */
  static Path awaitExecutorStderr(
      StandaloneCluster.Worker worker, Set<Path> before, Submission submission) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
    while (System.nanoTime() < deadline && submission.process().isAlive()) {
      for (Path app : appDirs(worker)) {
        if (!before.contains(app)) {
          try (Stream<Path> executors = Files.list(app)) {
            Optional<Path> stderr =
                executors.map(e -> e.resolve("stderr")).filter(Files::exists).findFirst();
            if (stderr.isPresent()) {
              return stderr.get();
            }
          }
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError(
        "No executor of the silver job started on worker "
            + worker.number()
            + "; the job: "
            + submission.await());
  }

  static void awaitTasksStarted(Path stderr, int tasks, Submission submission) throws Exception {
    Pattern running = Pattern.compile("Running task ");
    while (submission.process().isAlive()) {
      Matcher matcher = running.matcher(Files.readString(stderr));
      int count = 0;
      while (matcher.find()) {
        count++;
      }
      if (count >= tasks) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError(
        "The silver job ended before its executor on the victim had started "
            + tasks
            + " tasks: "
            + submission.await());
  }

  static List<Path> executorLogs() throws IOException {
    List<Path> logs = new ArrayList<>();
    for (StandaloneCluster.Worker worker : cluster.workers()) {
      try (Stream<Path> files = Files.walk(worker.workDir())) {
        files.filter(p -> p.getFileName().toString().equals("stderr")).forEach(logs::add);
      }
    }
    return logs;
  }

  /** Worker and master logs, executor stdout/stderr, and the jobs' own output. */
  static void assertNoFileHoldsTheSecret() throws IOException {
    String secret = s3.credentials().secretAccessKey();
    List<Path> holding = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        if (file.startsWith(sparkHome) || file.getFileName().toString().endsWith(".jar")) {
          continue;
        }
        if (Files.readString(file, StandardCharsets.ISO_8859_1).contains(secret)) {
          holding.add(file);
        }
      }
    }
    assertThat(holding).as("files holding the secret").isEmpty();
  }

  /**
   * Samples every process's command line while the jobs run (what {@code ps} shows anyone on the
   * machine), and which executors have the secret in their environment (visible to their owner
   * only), until interrupted.
   */
  static final class CommandLineWatch extends Thread {
    private final String secret;
    private final Set<String> offenders = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final Set<Long> executors = java.util.concurrent.ConcurrentHashMap.newKeySet();

    CommandLineWatch(String secret) {
      super("command-line-watch");
      this.secret = secret;
      setDaemon(true);
    }

    Set<String> commandLinesWithSecret() {
      return Set.copyOf(offenders);
    }

    int executorsWithCredentials() {
      return executors.size();
    }

    @Override
    public void run() {
      while (!isInterrupted()) {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
          for (Path proc : procs.toList()) {
            if (!proc.getFileName().toString().chars().allMatch(Character::isDigit)) {
              continue;
            }
            String cmdline = read(proc.resolve("cmdline"));
            if (cmdline.contains(secret)) {
              offenders.add(proc.getFileName() + ": " + cmdline.replace(secret, "<secret>"));
            }
            if (cmdline.contains("CoarseGrainedExecutorBackend")
                && read(proc.resolve("environ")).contains("AWS_SECRET_ACCESS_KEY=" + secret)) {
              executors.add(Long.parseLong(proc.getFileName().toString()));
            }
          }
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        } catch (IOException e) {
          // /proc changes under us; the next sample sees it again
        }
      }
    }

    private static String read(Path file) {
      try {
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8).replace('\0', ' ');
      } catch (IOException e) {
        return ""; // the process ended, or is not ours to read
      }
    }
  }
}
