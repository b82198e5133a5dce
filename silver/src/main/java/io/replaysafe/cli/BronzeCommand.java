package io.replaysafe.cli;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.common.spark.SparkSessions;
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

  @Mixin TimeoutOption timeout;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PipelineConfig pipeline = config.load();
    SparkSession spark = SparkSessions.getOrCreate("replaysafe-bronze-" + pipeline.name());
    BronzeResult result =
        PipelineLease.holding(
            pipeline,
            spark,
            "bronze",
            () -> timeout.bound(spark, () -> BronzeIngest.from(pipeline, spark).execute()));
    spec.commandLine().getOut().println(json ? result.toJson() : result.summary());
    return ReplaysafeCli.EXIT_OK;
  }
}
