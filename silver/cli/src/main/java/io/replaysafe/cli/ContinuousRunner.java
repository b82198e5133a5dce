package io.replaysafe.cli;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.TriggerConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.common.spark.ContinuousTrigger;
import io.replaysafe.jobs.BatchEvent;
import io.replaysafe.jobs.ContinuousPipeline;
import io.replaysafe.jobs.JobReport;
import io.replaysafe.jobs.MaintenanceEvent;
import io.replaysafe.jobs.PipelineRun.Layer;
import io.replaysafe.jobs.TerminationSignals;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * {@code bronze}, {@code silver} or {@code run} with {@code --continuous}: the writer's lease held
 * for the whole run (renewed in the background, checked before every silver batch and between
 * batches), SIGTERM and SIGINT as clean stops, one progress line per batch and layer on stderr (or
 * one JSON line each on stdout with {@code --json}), one line per housekeeping round ({@code
 * maintenance:}) the same way, and one last line on stdout when it ends.
 */
final class ContinuousRunner {
  private final JobOptions job;
  private final boolean json;
  private final String command;

  ContinuousRunner(JobOptions job, boolean json, String command) {
    this.job = job;
    this.json = json;
    this.command = command;
  }

  int run(PipelineConfig pipeline, TriggerConfig trigger, Set<Layer> layers) {
    ContinuousPipeline.Settings settings = job.continuous.settings(layers);
    PrintWriter out = job.out();
    PrintWriter err = job.err();
    SparkSession spark = ReplaysafeCli.spark(pipeline, command);
    PipelineLease lease = null;
    try {
      // The holder's command says it runs continuously: a second writer's refusal names it.
      lease = PipelineLease.acquire(pipeline, spark, command + " --continuous");
      ContinuousTrigger continuous =
          ContinuousTrigger.every(trigger.interval(), lease::checkStillHeld);
      ContinuousPipeline.Result result;
      try (TerminationSignals signals = TerminationSignals.install(continuous::requestStop)) {
        err.println(
            command
                + " "
                + pipeline.name()
                + ": "
                + trigger.describe()
                + "; SIGTERM or SIGINT stops it after the batch in flight");
        err.flush();
        result =
            ContinuousPipeline.of(
                    pipeline, spark, settings, continuous, this::print, this::printMaintenance)
                .run();
      }
      lease.checkStillHeld();
      synchronized (out) {
        out.println(
            json
                ? JobReport.toJson(JobReport.withStatus(result.toMap(), JobReport.OK))
                : result.summary(command));
      }
      return ReplaysafeCli.EXIT_OK;
    } catch (RuntimeException e) {
      synchronized (out) {
        if (json) {
          Map<String, Object> failed = new LinkedHashMap<>();
          failed.put("event", "failed");
          failed.put("pipeline", pipeline.name());
          failed.putAll(JobReport.failureFields(e));
          out.println(JobReport.toJson(failed));
        } else {
          out.println(JobReport.failureLine(command + " " + pipeline.name(), e));
        }
      }
      // The CLI's handler prints the whole message on stderr and maps the exit code.
      throw e;
    } finally {
      if (lease != null) {
        lease.close();
      }
      out.flush();
      err.flush();
    }
  }

  /** A batch's line: JSON on stdout with --json, text on stderr otherwise; from any thread. */
  private void print(BatchEvent event) {
    print(event.line(), event.toMap());
  }

  /** A housekeeping round's line, as a batch's. */
  private void printMaintenance(MaintenanceEvent event) {
    print(event.line(), event.toMap());
  }

  private void print(String line, Map<String, Object> fields) {
    PrintWriter to = json ? job.out() : job.err();
    synchronized (to) {
      to.println(json ? JobReport.toJson(fields) : line);
      to.flush();
    }
  }
}
