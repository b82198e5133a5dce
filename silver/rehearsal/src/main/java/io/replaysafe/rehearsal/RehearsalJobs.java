package io.replaysafe.rehearsal;

import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.jobs.PipelineRun;
import io.replaysafe.silver.BatchReport;
import io.replaysafe.silver.SilverResult;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;

/**
 * Runs the job under rehearsal: bronze then silver in this JVM, or {@code replaysafe run} in a
 * child JVM armed with a {@link CrashPoints crash point} that halts it.
 */
final class RehearsalJobs {
  record Runs(BronzeResult bronze, SilverResult silver) {}

  record Child(long pid, int exit) {}

  private final PipelineConfig pipeline;
  private final SparkSession spark;
  private final Map<String, String> childCredentials;
  private final Path workDir;
  private final Path configFile;
  private final PrintWriter progress;

  /**
   * The {@code replaysafe} command's main class, which a child runs from the parent's class path.
   * Named, not referenced: the command module depends on this one, not the other way round.
   */
  static final String COMMAND_MAIN = "io.replaysafe.cli.Main";

  RehearsalJobs(
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
  }

  /** Bronze then silver in this JVM, as the scheduled job runs them, with a progress line. */
  Runs runInProcess(RehearsalReport.Step step) {
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

  /**
   * Runs {@code replaysafe run --config FILE} in a child JVM (same java, class path and module
   * flags) armed with a crash point; credentials go through the environment, never the command line
   * or a file.
   */
  Child runChild(RehearsalReport.Step step, String crashPoint) throws Exception {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("-Xmx1g");
    // A short-lived job on tiny data: quick JIT and one GC thread start and finish faster.
    command.addAll(SparkSessions.SHORT_JOB_JIT);
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
    command.add(COMMAND_MAIN);
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
      throw RehearsalErrors.childJobHung(log);
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
}
