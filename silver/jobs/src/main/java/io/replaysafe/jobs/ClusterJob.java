package io.replaysafe.jobs;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.Note;
import io.replaysafe.silver.SilverResult;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The two jobs as a cluster runs them, one per {@link BronzeMain} and {@link SilverMain} main
 * class: arguments, the pipeline file, the session the cluster provides, the job's API, and one
 * line of output. {@link #run} returns how the run ended and never exits, so tests call it
 * in-process.
 */
public enum ClusterJob {
  BRONZE("bronze") {
    @Override
    Outcome execute(PipelineConfig config, SparkSession spark) {
      BronzeResult result =
          PipelineLease.holding(
              config, spark, "bronze", () -> BronzeIngest.from(config, spark).execute());
      return new Outcome(result.summary(), result.toMap(), List.of());
    }
  },
  SILVER("silver") {
    @Override
    Outcome execute(PipelineConfig config, SparkSession spark) {
      SilverResult result =
          PipelineLease.holding(
              config,
              spark,
              "silver",
              () -> io.replaysafe.silver.SilverJob.from(config, spark).execute());
      return new Outcome(
          result.summary(), result.toMap(), result.notes().stream().map(Note::text).toList());
    }
  };

  private final String layer;

  ClusterJob(String layer) {
    this.layer = layer;
  }

  public String layer() {
    return layer;
  }

  /** What a successful run prints: the summary line, the JSON fields, notes for stderr. */
  record Outcome(String summary, Map<String, Object> fields, List<String> notes) {}

  /**
   * How a run ended: its exit code and, when it failed, the error message.
   *
   * @param error null on success
   */
  public record Ending(int exitCode, String error) {
    static final Ending OK = new Ending(JobReport.EXIT_OK, null);

    /**
     * Ends the main method the way the platform expects: a normal return on success; on failure an
     * exception on Databricks, whose driver must not be shut down by a task, and {@code
     * System.exit} with the code elsewhere (spark-submit, where schedulers read the exit code).
     */
    public void endMain(String layer) {
      if (exitCode == JobReport.EXIT_OK) {
        return;
      }
      if (System.getenv("DATABRICKS_RUNTIME_VERSION") != null) {
        throw JobErrors.jobFailed(layer, exitCode, error);
      }
      System.exit(exitCode);
    }
  }

  abstract Outcome execute(PipelineConfig config, SparkSession spark);

  /**
   * Runs the job once: exit code 0 on success, 2 for bad arguments or a bad pipeline file, 1 for
   * anything else (a rejected silver batch, an S3 or Spark failure). stdout gets exactly one line.
   */
  public Ending run(String[] args, PrintStream out, PrintStream err) {
    JobArgs parsed;
    try {
      parsed = JobArgs.parse(layer, args);
    } catch (ReplaysafeException e) {
      err.println("replaysafe " + layer + ": " + e.getMessage());
      return new Ending(JobReport.EXIT_USAGE, e.getMessage());
    }
    if (parsed.help()) {
      out.println("Usage: " + JobArgs.usage(layer));
      return Ending.OK;
    }
    // Named by its file until the file is read, by the pipeline's name after.
    String pipeline = parsed.origin();
    try {
      // A local or inline file is checked before Spark starts: a typo fails in a second.
      PipelineConfig config =
          PipelineSource.needsHadoop(parsed) ? null : PipelineSource.load(parsed, () -> null);
      SparkSession spark =
          SparkSessions.getOrCreate(
              "replaysafe-" + layer + (config == null ? "" : "-" + config.name()));
      if (config == null) {
        config = PipelineSource.load(parsed, () -> spark.sparkContext().hadoopConfiguration());
      }
      pipeline = config.name();
      Outcome outcome = execute(config, spark);
      out.println(
          parsed.json()
              ? JobReport.toJson(JobReport.withStatus(outcome.fields(), JobReport.OK))
              : outcome.summary());
      outcome.notes().forEach(note -> err.println("  " + note));
      return Ending.OK;
    } catch (RuntimeException e) {
      err.println("replaysafe " + layer + ": " + JobReport.messageOf(e));
      if (!(e instanceof ReplaysafeException)) {
        // Not one of ours: the stack trace is the only lead on a cluster.
        e.printStackTrace(err);
      }
      if (parsed.json()) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("layer", layer);
        fields.put("pipeline", pipeline);
        fields.putAll(JobReport.failureFields(e));
        out.println(JobReport.toJson(fields));
      } else {
        out.println(JobReport.failureLine(layer + " " + pipeline, e));
      }
      return new Ending(JobReport.exitCode(e), JobReport.messageOf(e));
    } finally {
      out.flush();
      err.flush();
    }
  }
}
