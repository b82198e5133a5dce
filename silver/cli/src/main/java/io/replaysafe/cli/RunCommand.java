package io.replaysafe.cli;

import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.TriggerConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.jobs.Housekeeping;
import io.replaysafe.jobs.JobReport;
import io.replaysafe.jobs.PipelineRun;
import io.replaysafe.jobs.PipelineRun.Layer;
import io.replaysafe.silver.SilverResult;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The scheduled job. stdout gets exactly one line whether the run succeeds or fails, so cron mail,
 * Airflow's XCom (the last line of stdout) and log searches see one record per run; everything else
 * (silver's notes, the full rejection report, Spark's logs) goes to stderr.
 */
@Command(
    name = "run",
    description =
        "The scheduled job: bronze then silver, each availableNow; or with --continuous both"
            + " running in this process until stopped. Prints one line (or one JSON object) on"
            + " stdout when it ends. Exit 1 when silver rejects a batch or a job fails, 2 on a"
            + " configuration error, 4 when another writer holds the pipeline.")
final class RunCommand implements Callable<Integer> {
  @Mixin JobOptions job;

  @Option(names = "--json", description = "Print one JSON object with both summaries.")
  boolean json;

  @Override
  public Integer call() {
    PipelineConfig pipeline = job.config.load();
    TriggerConfig trigger = job.continuous.trigger(pipeline);
    if (trigger.continuous()) {
      // Silver must exist in the file before bronze moves, as for a scheduled run.
      pipeline.requireSilver();
      return new ContinuousRunner(job, json, "run")
          .run(pipeline, trigger, Set.of(Layer.BRONZE, Layer.SILVER));
    }
    PrintWriter out = job.out();
    PrintWriter err = job.err();
    SparkSession spark = ReplaysafeCli.spark(pipeline, "run");
    PipelineRun run = PipelineRun.of(pipeline, spark);
    BatchProgress progress = BatchProgress.attach(spark, err);
    PipelineLease lease = null;
    try {
      PipelineRun.Outcome outcome;
      try {
        lease = PipelineLease.acquire(pipeline, spark, "run");
        outcome = job.timeout.bound(spark, run::execute);
        if (outcome.succeeded()) {
          // A lease lost mid-run (expired, taken over) means another writer may have written too.
          lease.checkStillHeld();
          // maintenance: at its cadence, after the run and under its lease, as a continuous run
          // does between batches; its line goes to stderr, stdout keeps its one line.
          Housekeeping housekeeping = Housekeeping.of(pipeline, spark);
          if (housekeeping.due(Instant.now())) {
            err.println(housekeeping.run(Instant.now()).line());
            lease.checkStillHeld();
          }
        }
      } catch (RuntimeException e) {
        outcome = new PipelineRun.Outcome(null, null, null, e);
      }
      BronzeResult bronze = outcome.bronze();
      if (outcome.succeeded()) {
        SilverResult silver = outcome.silver();
        out.println(
            json
                ? JobReport.toJson(report(pipeline, JobReport.OK, bronze, silver))
                : "run "
                    + pipeline.name()
                    + ": ok | "
                    + bronze.summary()
                    + " | "
                    + silver.summary());
        silver.notes().forEach(note -> err.println("  " + note.text()));
        return ReplaysafeCli.EXIT_OK;
      }
      RuntimeException e = outcome.error();
      String layer =
          outcome.failedLayer() != null
              ? outcome.failedLayer().label()
              : lease == null ? "lease" : "run";
      if (json) {
        Map<String, Object> report = report(pipeline, JobReport.FAILED, bronze, null);
        report.put("failedLayer", layer);
        report.putAll(JobReport.failureFields(e));
        out.println(JobReport.toJson(report));
      } else {
        out.println(
            "run "
                + pipeline.name()
                + ": FAILED in "
                + layer
                + ": "
                + JobReport.firstLine(JobReport.messageOf(e))
                + (bronze == null ? "" : " | " + bronze.summary()));
      }
      // The CLI's handler prints the whole message on stderr and maps the exit code.
      throw e;
    } finally {
      progress.close();
      if (lease != null) {
        lease.close();
      }
      out.flush();
      err.flush();
    }
  }

  private static Map<String, Object> report(
      PipelineConfig pipeline, String status, BronzeResult bronze, SilverResult silver) {
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("pipeline", pipeline.name());
    report.put("status", status);
    report.put("bronze", bronze == null ? null : bronze.toMap());
    report.put("silver", silver == null ? null : silver.toMap());
    return report;
  }
}
