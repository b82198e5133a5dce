package io.replaysafe.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.SilverJob;
import io.replaysafe.silver.SilverResult;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "run",
    description =
        "The scheduled job: bronze then silver, each availableNow. Exit 1 when silver rejects a"
            + " batch, 2 on a configuration error.")
final class RunCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--json", description = "Print one JSON object with both summaries.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PipelineConfig pipeline = config.load();
    SparkSession spark = SparkSessions.getOrCreate("replaysafe-run-" + pipeline.name());
    BronzeResult bronze = BronzeIngest.from(pipeline, spark).execute();
    SilverResult silver = SilverJob.from(pipeline, spark).execute();
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> both = new LinkedHashMap<>();
      both.put("bronze", bronze.toMap());
      both.put("silver", silver.toMap());
      out.println(new ObjectMapper().writeValueAsString(both));
    } else {
      out.println(bronze.summary());
      SilverCommand.print(out, silver, false);
    }
    out.flush();
    return ReplaysafeCli.EXIT_OK;
  }
}
