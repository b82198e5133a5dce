package io.replaysafe.jobs;

import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.TriggerConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.common.spark.ContinuousTrigger;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.jobs.PipelineRun.Layer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * Main class of the continuous pipeline on a cluster: a Databricks JAR task under continuous
 * scheduling, or {@code spark-submit --class io.replaysafe.jobs.PipelineMain
 * replaysafe-jobs-VERSION-cluster.jar --config PATH [--interval D] [--stop-timeout D] [--json]}.
 * Bronze and silver run as two processing-time queries in this driver, as {@code replaysafe run
 * --continuous} runs them ({@link ContinuousPipeline}), with the pipeline's lease held for the
 * whole run under the command {@code pipeline --continuous}: a scheduled run or a second continuous
 * one is refused (exit 4) and told who holds it. {@code maintenance:} in the pipeline file runs
 * between batches.
 *
 * <p>SIGTERM or SIGINT (spark-submit, a container stop) lets the batch in flight finish, commits,
 * releases the lease and returns normally; past {@code --stop-timeout} the run ends with exit 5
 * naming what was committed. Databricks stops a continuous job's run by cancelling it, which stops
 * the queries where they are: the checkpoints replay the interrupted batch on the next run, as
 * after a crash. A failed batch ends the run with the exit codes of the other cluster jobs (1
 * rejected or failed, 2 configuration, 4 retryable), as an exception on Databricks; continuous
 * scheduling then starts it again.
 *
 * <p>Output: one line per batch and layer (and per housekeeping round) on stderr, or one JSON line
 * each on stdout with {@code --json}; one last line on stdout when the run ends.
 */
public final class PipelineMain {
  /** The lease's command: {@code status} and a refused writer name the holder by it. */
  static final String COMMAND = "pipeline --continuous";

  private PipelineMain() {}

  public static void main(String[] args) {
    run(args, System.out, System.err).endMain(PipelineArgs.JOB);
  }

  /** Runs until stopped; never exits, so tests call it in-process. */
  public static ClusterJob.Ending run(String[] args, PrintStream out, PrintStream err) {
    PipelineArgs parsed;
    try {
      parsed = PipelineArgs.parse(args);
    } catch (ReplaysafeException e) {
      err.println("replaysafe " + PipelineArgs.JOB + ": " + e.getMessage());
      return new ClusterJob.Ending(JobReport.EXIT_USAGE, e.getMessage());
    }
    if (parsed.job().help()) {
      out.println("Usage: " + PipelineArgs.usage());
      return ClusterJob.Ending.OK;
    }
    boolean json = parsed.job().json();
    String pipeline = parsed.job().origin();
    try {
      PipelineConfig config =
          PipelineSource.needsHadoop(parsed.job())
              ? null
              : PipelineSource.load(parsed.job(), () -> null);
      SparkSession spark =
          SparkSessions.getOrCreate(
              "replaysafe-" + PipelineArgs.JOB + (config == null ? "" : "-" + config.name()));
      if (config == null) {
        config =
            PipelineSource.load(parsed.job(), () -> spark.sparkContext().hadoopConfiguration());
      }
      pipeline = config.name();
      config.requireSilver();
      Duration interval = parsed.interval().orElse(config.trigger().interval());
      ContinuousPipeline.Settings settings =
          new ContinuousPipeline.Settings(
              Set.of(Layer.BRONZE, Layer.SILVER), 0, null, parsed.stopTimeout());
      ContinuousPipeline.Result result;
      try (PipelineLease lease = PipelineLease.acquire(config, spark, COMMAND)) {
        ContinuousTrigger trigger = ContinuousTrigger.every(interval, lease::checkStillHeld);
        try (TerminationSignals signals = TerminationSignals.install(trigger::requestStop)) {
          err.println(
              PipelineArgs.JOB
                  + " "
                  + config.name()
                  + ": "
                  + new TriggerConfig(TriggerConfig.Mode.CONTINUOUS, interval).describe()
                  + "; SIGTERM or SIGINT stops it after the batch in flight");
          err.flush();
          result =
              ContinuousPipeline.of(
                      config,
                      spark,
                      settings,
                      trigger,
                      event -> print(out, err, json, event.line(), event.toMap()),
                      event -> print(out, err, json, event.line(), event.toMap()))
                  .run();
        }
        lease.checkStillHeld();
      }
      synchronized (out) {
        out.println(
            json
                ? JobReport.toJson(JobReport.withStatus(result.toMap(), JobReport.OK))
                : result.summary(PipelineArgs.JOB));
      }
      return ClusterJob.Ending.OK;
    } catch (RuntimeException e) {
      err.println("replaysafe " + PipelineArgs.JOB + ": " + JobReport.messageOf(e));
      if (!(e instanceof ReplaysafeException)) {
        // Not one of ours: the stack trace is the only lead on a cluster.
        e.printStackTrace(err);
      }
      synchronized (out) {
        if (json) {
          Map<String, Object> fields = new LinkedHashMap<>();
          fields.put("event", "failed");
          fields.put("pipeline", pipeline);
          fields.putAll(JobReport.failureFields(e));
          out.println(JobReport.toJson(fields));
        } else {
          out.println(JobReport.failureLine(PipelineArgs.JOB + " " + pipeline, e));
        }
      }
      return new ClusterJob.Ending(JobReport.exitCode(e), JobReport.messageOf(e));
    } finally {
      out.flush();
      err.flush();
    }
  }

  /** A batch's or a round's line: JSON on stdout with --json, text on stderr; from any thread. */
  private static void print(
      PrintStream out, PrintStream err, boolean json, String line, Map<String, Object> fields) {
    PrintStream to = json ? out : err;
    synchronized (to) {
      to.println(json ? JobReport.toJson(fields) : line);
      to.flush();
    }
  }
}
