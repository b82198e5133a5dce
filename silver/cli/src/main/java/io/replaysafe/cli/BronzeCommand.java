package io.replaysafe.cli;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.bronze.RescuePromotion;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.TriggerConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.jobs.PipelineRun.Layer;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "bronze",
    description =
        "Run the bronze job: ingest new files into the bronze table, once (availableNow) or"
            + " with --continuous until stopped.")
final class BronzeCommand implements Callable<Integer> {
  @Mixin JobOptions job;

  @Option(names = "--json", description = "Print the summary as one JSON object.")
  boolean json;

  @Option(
      names = "--promote-rescued",
      description =
          "Instead of ingesting: fill typed columns of existing bronze rows from their rescued"
              + " data where the value converts (after a column was added or widened), removing it"
              + " from the rescued JSON. One new table version; running it again changes nothing.")
  boolean promoteRescued;

  @Override
  public Integer call() {
    PipelineConfig pipeline = job.config.load();
    TriggerConfig trigger = job.continuous.trigger(pipeline);
    if (trigger.continuous() && !promoteRescued) {
      return new ContinuousRunner(job, json, "bronze").run(pipeline, trigger, Set.of(Layer.BRONZE));
    }
    SparkSession spark = ReplaysafeCli.spark(pipeline, "bronze");
    if (promoteRescued) {
      // It rewrites bronze rows: no bronze run may append meanwhile, and its commit is fenced.
      RescuePromotion.Result promoted =
          PipelineLease.holding(
              pipeline,
              spark,
              "bronze --promote-rescued",
              () -> RescuePromotion.from(pipeline, spark).execute());
      job.out().println(json ? promoted.toJson() : promoted.summary());
      return ReplaysafeCli.EXIT_OK;
    }
    BronzeResult result =
        job.runHoldingLease(
            pipeline, spark, "bronze", () -> BronzeIngest.from(pipeline, spark).execute());
    job.out().println(json ? result.toJson() : result.summary());
    return ReplaysafeCli.EXIT_OK;
  }
}
