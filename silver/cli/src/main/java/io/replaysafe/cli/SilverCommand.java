package io.replaysafe.cli;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.silver.SilverJob;
import io.replaysafe.silver.SilverResult;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "silver",
    description =
        "Run the silver job once (availableNow): apply new bronze rows under the contract.")
final class SilverCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--json", description = "Print the summary as one JSON object.")
  boolean json;

  @Mixin TimeoutOption timeout;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PipelineConfig pipeline = config.load();
    SparkSession spark = ReplaysafeCli.spark(pipeline, "silver");
    SilverResult result;
    try (BatchProgress progress = BatchProgress.attach(spark, spec.commandLine().getErr())) {
      result =
          PipelineLease.holding(
              pipeline,
              spark,
              "silver",
              () -> timeout.bound(spark, () -> SilverJob.from(pipeline, spark).execute()));
    }
    print(spec.commandLine().getOut(), result, json);
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
