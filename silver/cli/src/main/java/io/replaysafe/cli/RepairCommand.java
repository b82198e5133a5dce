package io.replaysafe.cli;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.silver.ops.KeySelection;
import io.replaysafe.silver.ops.Repair;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/** {@code replaysafe repair}: recomputes named keys from their bronze history. */
@Command(
    name = "repair",
    description =
        "Recompute the state of the named keys from their full bronze history and apply it,"
            + " touching no other key. Prints the keys' rows before and after.")
final class RepairCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Mixin KeysOption keys;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PipelineConfig pipeline = config.load();
    KeySelection selection = keys.selection();
    SparkSession spark = ReplaysafeCli.spark(pipeline, "repair");
    Repair.Outcome outcome =
        PipelineLease.holding(
            pipeline, spark, "repair", () -> new Repair(pipeline, spark).execute(selection));
    PrintWriter out = spec.commandLine().getOut();
    out.println("before:");
    outcome.before().forEach(r -> out.println("  " + r));
    out.println("after:");
    outcome.after().forEach(r -> out.println("  " + r));
    out.println(
        outcome.report() == null ? "no bronze rows for these keys" : outcome.report().summary());
    out.flush();
    return ReplaysafeCli.EXIT_OK;
  }
}
