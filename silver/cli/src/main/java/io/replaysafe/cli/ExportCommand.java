package io.replaysafe.cli;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.Columns;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.io.JsonLinesExport;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.SilverErrors;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "export",
    description =
        "Print a table as JSON lines on stdout: one object per row, every column, deterministic"
            + " order.")
final class ExportCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(
      names = "--layer",
      required = true,
      paramLabel = "LAYER",
      description = "Which table: ${COMPLETION-CANDIDATES}.")
  Layer layer;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  enum Layer {
    bronze,
    silver,
    quarantine,
    runs
  }

  @Override
  public Integer call() {
    PipelineConfig pipeline = config.load();
    SparkSession spark = ReplaysafeCli.spark(pipeline, "export");
    SparkSessions.applyStorage(spark, pipeline.storage());
    String path;
    List<String> order;
    switch (layer) {
      case bronze -> {
        path = pipeline.bronze().path();
        order = List.of(Columns.SOURCE_FILE);
      }
      case silver -> {
        path = pipeline.requireSilver().path();
        order = new java.util.ArrayList<>(pipeline.requireSilver().keys());
        if (io.replaysafe.silver.TableShape.of(pipeline.requireSilver())
            == io.replaysafe.silver.TableShape.HISTORY) {
          order.add(io.replaysafe.silver.SilverContract.START_AT);
        }
      }
      case quarantine -> {
        path = pipeline.requireSilver().quarantinePath();
        order = List.of("key", "sequence", "reason");
      }
      case runs -> {
        path = pipeline.requireSilver().runsPath();
        order = List.of("started_at", "batch_id");
      }
      default -> throw new IllegalStateException("layer " + layer);
    }
    if (!DeltaTable.isDeltaTable(spark, path)) {
      throw SilverErrors.noTableYet(
          "layer " + layer + " to export", path, "Run the job that writes it first");
    }
    JsonLinesExport.write(
        spark.read().format("delta").load(path), order, spec.commandLine().getOut());
    return ReplaysafeCli.EXIT_OK;
  }
}
