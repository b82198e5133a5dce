package io.replaysafe.cli;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.bronze.RescuePromotion;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.PipelineLease;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "bronze",
    description = "Run the bronze job once (availableNow): ingest new files into the bronze table.")
final class BronzeCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--json", description = "Print the summary as one JSON object.")
  boolean json;

  @Option(
      names = "--promote-rescued",
      description =
          "Instead of ingesting: fill typed columns of existing bronze rows from their rescued"
              + " data where the value converts (after a column was added or widened), removing it"
              + " from the rescued JSON. One new table version; running it again changes nothing.")
  boolean promoteRescued;

  @Mixin TimeoutOption timeout;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PipelineConfig pipeline = config.load();
    SparkSession spark = ReplaysafeCli.spark(pipeline, "bronze");
    if (promoteRescued) {
      // It rewrites bronze rows: no bronze run may append meanwhile.
      try (PipelineLease lease =
          PipelineLease.acquire(pipeline, spark, "bronze --promote-rescued")) {
        RescuePromotion.Result promoted = RescuePromotion.from(pipeline, spark).execute();
        spec.commandLine().getOut().println(json ? promoted.toJson() : promoted.summary());
      }
      return ReplaysafeCli.EXIT_OK;
    }
    BronzeResult result;
    try (BatchProgress progress = BatchProgress.attach(spark, spec.commandLine().getErr())) {
      result =
          PipelineLease.holding(
              pipeline,
              spark,
              "bronze",
              () -> timeout.bound(spark, () -> BronzeIngest.from(pipeline, spark).execute()));
    }
    spec.commandLine().getOut().println(json ? result.toJson() : result.summary());
    return ReplaysafeCli.EXIT_OK;
  }
}
