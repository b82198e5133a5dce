package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.common.testing.PipelineYaml;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The crash matrix: a scenario (deliveries and operations, each one CLI command) is run once
 * without faults, and once per crash point with the chosen step run by a child JVM armed with that
 * point (it must die with exit 137), rerun, and the remaining steps run; then every table silver
 * owns must equal the fault-free run's, except run ids, timestamps and the temporary directory.
 */
final class CrashMatrix {
  /**
   * One step: a file landed first (or none), then one CLI command. {@code arrival}, when not null,
   * is what reaches the source instead of {@code delivery} in the landing directory: objects put on
   * S3 and their notifications sent, say.
   */
  record Step(
      String name,
      List<String> delivery,
      Function<Pipeline, List<String>> command,
      Consumer<Pipeline> arrival) {
    Step(String name, List<String> delivery, Function<Pipeline, List<String>> command) {
      this(name, delivery, command, null);
    }
  }

  /**
   * What a pipeline reaches outside its directory: nothing for a local one ({@link #LOCAL}); an S3
   * landing zone and an SQS queue in notification mode.
   */
  interface Endpoints {
    Endpoints LOCAL = new Endpoints() {};

    /** The environment a child JVM needs to reach them: their credentials. */
    default Map<String, String> childEnvironment() {
      return Map.of();
    }

    /**
     * The URI prefix under which the rows name the pipeline's files when it is not the pipeline
     * directory (null then): replaced like the directory, so two pipelines' rows compare.
     */
    default String landing() {
      return null;
    }

    /**
     * Called once the crashed child is dead, before the rerun: waits until what the child took is
     * back. A queue's message received and not deleted returns only after its visibility timeout; a
     * rerun before that would find its file on a later run, in another batch than the fault-free
     * run's.
     */
    default void afterCrash() throws InterruptedException {}
  }

  /** A pipeline directory with its pipeline file, and what it reaches outside the directory. */
  record Pipeline(SparkSession spark, Path dir, Path file, Endpoints endpoints) {
    Pipeline(SparkSession spark, Path dir, Path file) {
      this(spark, dir, file, Endpoints.LOCAL);
    }

    String path(String name) {
      return dir.resolve(name).toString();
    }

    /** The quarantine id of the open row whose raw payload contains {@code text}. */
    String quarantineId(String text) {
      return spark
          .read()
          .format("delta")
          .load(path("silver_quarantine"))
          .where(
              org.apache
                  .spark
                  .sql
                  .functions
                  .col("raw_payload")
                  .contains(text)
                  .and(org.apache.spark.sql.functions.col("status").equalTo("OPEN")))
          .select("quarantine_id")
          .first()
          .getString(0);
    }
  }

  private CrashMatrix() {}

  static String orders(long id, long version, String status) {
    return "{\"order_id\":"
        + id
        + ",\"source_version\":"
        + version
        + ",\"status\":"
        + (status == null ? "null" : "\"" + status + "\"")
        + ",\"op\":\"UPSERT\"}";
  }

  static String delete(long id, long version) {
    return "{\"order_id\":" + id + ",\"source_version\":" + version + ",\"op\":\"DELETE\"}";
  }

  static Pipeline create(SparkSession spark, Path dir, String silverYaml) throws IOException {
    String yaml =
        PipelineYaml.local(
            "orders",
            dir,
            "order_id BIGINT, source_version BIGINT, status STRING, op STRING",
            silverYaml);
    Files.createDirectories(dir.resolve("landing"));
    return new Pipeline(spark, dir, Files.writeString(dir.resolve("pipeline.yaml"), yaml));
  }

  /** Runs every step in this JVM; returns the tables afterwards. */
  static Map<String, List<String>> faultFree(Pipeline p, List<Step> steps) throws IOException {
    for (int i = 0; i < steps.size(); i++) {
      runInProcess(p, steps, i);
    }
    return tables(p);
  }

  /**
   * Runs the steps before {@code crashStep} in this JVM, that step in a child JVM armed with {@code
   * point}, then reruns it and the rest in this JVM; returns the tables afterwards.
   */
  static Map<String, List<String>> crashed(
      Pipeline p, List<Step> steps, int crashStep, String point) throws Exception {
    return crashedWithBetween(p, steps, crashStep, point, null);
  }

  /**
   * As {@link #crashed}, with {@code between} (a scheduled run, say; null: none) run after the
   * crash and before the crashed command's rerun: whichever command comes next must undo what the
   * crashed one left part-way, across all of its tables. The fault-free counterpart runs {@code
   * between} just before the crashed step ({@link #withBetween}).
   */
  static Map<String, List<String>> crashedWithBetween(
      Pipeline p, List<Step> steps, int crashStep, String point, Step between) throws Exception {
    for (int i = 0; i < crashStep; i++) {
      runInProcess(p, steps, i);
    }
    Step step = steps.get(crashStep);
    deliver(p, crashStep, step);
    // The rerun is the very command line that crashed, as an operator reruns it: its arguments
    // (a quarantine id, say) are chosen once, before the crash changed what they would select.
    List<String> args = step.command().apply(p);
    Path log = p.dir().resolve("child-" + point + ".log");
    int exit = runChild(p, args, point, log);
    assertThat(exit)
        .as("the child running step '%s' must die at %s; its log: %s", step.name(), point, log)
        .isEqualTo(CrashPoints.EXIT_CODE);
    assertThat(Files.readString(log)).contains("crash point " + point + " reached");
    p.endpoints().afterCrash();
    if (between != null) {
      deliver(p, -1, between);
      runCommand(between, between.command().apply(p));
    }
    runCommand(step, args);
    for (int i = crashStep + 1; i < steps.size(); i++) {
      runInProcess(p, steps, i);
    }
    return tables(p);
  }

  /** The steps with {@code between} inserted just before step {@code index}. */
  static List<Step> withBetween(List<Step> steps, int index, Step between) {
    List<Step> all = new java.util.ArrayList<>(steps);
    all.add(index, between);
    return all;
  }

  private static void runInProcess(Pipeline p, List<Step> steps, int i) throws IOException {
    deliver(p, i, steps.get(i));
    runCommand(steps.get(i), steps.get(i).command().apply(p));
  }

  private static void runCommand(Step step, List<String> args) {
    CliRunner.Outcome outcome = CliRunner.run(args.toArray(String[]::new));
    assertThat(outcome.exitCode())
        .as("step '%s': %s%s", step.name(), outcome.out(), outcome.err())
        .isZero();
  }

  /**
   * Lands the step's delivery, named after the step (not its place in the list), so a sequence with
   * a step inserted names every other delivery, and so every bronze row's source file, the same.
   */
  private static void deliver(Pipeline p, int index, Step step) throws IOException {
    if (step.arrival() != null) {
      step.arrival().accept(p);
    } else if (!step.delivery().isEmpty()) {
      Path file =
          p.dir().resolve("landing").resolve("step-" + step.name().replace(' ', '-') + ".json");
      if (!Files.exists(file)) {
        Files.writeString(file, String.join("\n", step.delivery()) + "\n");
      }
    }
  }

  /** {@code replaysafe ARGS} in a child JVM with the crash point armed; returns its exit code. */
  static int runChild(Pipeline p, List<String> args, String point, Path log) throws Exception {
    Process process =
        startChild(
            List.of("-D" + CrashPoints.PROPERTY + "=" + point),
            p.endpoints().childEnvironment(),
            args,
            log);
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly().waitFor();
      throw new IllegalStateException("the child did not stop within 10 minutes; log: " + log);
    }
    return process.exitValue();
  }

  /**
   * Starts {@code replaysafe ARGS} in a child JVM with this JVM's module flags and the tests' Spark
   * settings, plus {@code properties} ({@code -Dk=v}) and {@code environment}; stdout and stderr go
   * to {@code log}.
   */
  static Process startChild(
      List<String> properties, Map<String, String> environment, List<String> args, Path log)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.add("-Xmx768m");
    command.addAll(SparkSessions.SHORT_JOB_JIT);
    command.add("-XX:+UseSerialGC");
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens")
          || arg.startsWith("--add-exports")
          || arg.startsWith("-Djdk.reflect.")
          || arg.startsWith("-Dio.netty.")) {
        command.add(arg);
      }
    }
    command.add("-Dspark.sql.codegen.wholeStage=false");
    command.add("-Dspark.sql.codegen.factoryMode=NO_CODEGEN");
    command.add("-Dreplaysafe.sparkLogLevel=ERROR");
    // Every listed file its own range, from the third file on: the children read and write the
    // listing's ranges (a listing that small records none by default), the fault-free runs in this
    // JVM do not, and both must end in the same tables.
    command.add("-Dreplaysafe.bronze.listedRangeFiles=1");
    command.addAll(properties);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("io.replaysafe.cli.Main");
    command.addAll(args);
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().putIfAbsent("SPARK_LOCAL_IP", "127.0.0.1");
    builder.environment().putAll(environment);
    return builder.start();
  }

  /**
   * Every table of the pipeline (and bronze's file state) as sorted JSON lines, without what
   * differs between two runs by design: run ids, timestamps, the temporary directory, and the
   * quarantine id (a hash that includes bronze's ingestion time).
   */
  static Map<String, List<String>> tables(Pipeline p) {
    Map<String, List<String>> tables = new LinkedHashMap<>();
    tables.put("bronze", read(p, "bronze", "ingested_at", "source_file_mtime", "source_file_size"));
    // Which file went into which batch, and that it is ingested: the file state's own decisions.
    tables.put(
        "file state",
        read(
            p,
            "checkpoints/bronze/file_state",
            "discovered_at",
            "committed_at",
            "modification_time",
            "size"));
    tables.put("silver", read(p, "silver", "__applied_at"));
    tables.put("tombstones", read(p, "silver_tombstones", "__deleted_at"));
    tables.put("events", read(p, "silver_events", "__applied_at"));
    tables.put("truncates", read(p, "silver_truncates", "__truncated_at"));
    tables.put(
        "quarantine",
        read(p, "silver_quarantine", "quarantine_id", "quarantined_at", "run_id", "decided_at"));
    tables.put("runs", read(p, "silver_runs", "run_id", "started_at", "seconds"));
    // An erase that died after recording its keys records them again on the rerun: the same key
    // at the same sequence, which is what decides.
    tables.put(
        "erasures",
        read(p, "bronze_erasures", "request_id", "erased_at").stream().distinct().toList());
    return tables;
  }

  private static List<String> read(Pipeline p, String name, String... ignored) {
    Path table = p.dir().resolve(name);
    if (!Files.exists(table.resolve("_delta_log"))) {
      return List.of();
    }
    Dataset<Row> df = p.spark().read().format("delta").load(table.toString()).drop(ignored);
    String prefix = p.dir().toUri().toString();
    String landing = p.endpoints().landing();
    return df.toJSON().collectAsList().stream()
        .map(json -> landing == null ? json : json.replace(landing, "<landing>"))
        .map(
            json ->
                json.replace(prefix, "<dir>/")
                    .replace(prefix.replace("file:///", "file:/"), "<dir>/")
                    .replace(p.dir().toString(), "<dir>"))
        .sorted()
        .toList();
  }
}
