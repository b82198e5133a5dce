package io.replaysafe.cli;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.TriggerConfig;
import io.replaysafe.jobs.PipelineRun.Layer;
import io.replaysafe.silver.SilverJob;
import io.replaysafe.silver.SilverResult;
import java.io.PrintWriter;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "silver",
    description =
        "Run the silver job: apply new bronze rows under the contract, once (availableNow) or"
            + " with --continuous until stopped.")
final class SilverCommand implements Callable<Integer> {
  @Mixin JobOptions job;

  @Option(names = "--json", description = "Print the summary as one JSON object.")
  boolean json;

  @Override
  public Integer call() {
    PipelineConfig pipeline = job.config.load();
    TriggerConfig trigger = job.continuous.trigger(pipeline);
    if (trigger.continuous()) {
      return new ContinuousRunner(job, json, "silver").run(pipeline, trigger, Set.of(Layer.SILVER));
    }
    SparkSession spark = ReplaysafeCli.spark(pipeline, "silver");
    SilverResult result =
        job.runHoldingLease(
            pipeline, spark, "silver", () -> SilverJob.from(pipeline, spark).execute());
    print(job.out(), result, json);
    return ReplaysafeCli.EXIT_OK;
  }

  static void print(PrintWriter out, SilverResult result, boolean json) {
    if (json) {
      out.println(result.toJson());
    } else {
      out.println(result.summary());
      result.notes().forEach(n -> out.println("  " + n.text()));
    }
    out.flush();
  }
}
