package io.replaysafe.cli;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.PipelineLease;
import java.io.PrintWriter;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What the commands that run a job ({@code bronze}, {@code silver}, {@code run}) share: the
 * pipeline file, the run's deadline, how it is triggered, and the command's output streams. Each
 * keeps its own {@code --json}, whose help says what that command prints.
 */
final class JobOptions {
  @Mixin ConfigOption config;

  @Mixin TimeoutOption timeout;

  @Mixin ContinuousOptions continuous;

  // The command this is mixed into, for its streams (tests give the command line their own).
  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  PrintWriter out() {
    return command.commandLine().getOut();
  }

  PrintWriter err() {
    return command.commandLine().getErr();
  }

  /**
   * Runs one layer's job as {@code bronze} and {@code silver} do: holding the writer's lease (so no
   * other writer runs meanwhile), within {@code --timeout}, with batch progress on stderr.
   */
  <T> T runHoldingLease(
      PipelineConfig pipeline, SparkSession spark, String command, Supplier<T> body) {
    try (BatchProgress progress = BatchProgress.attach(spark, err())) {
      return PipelineLease.holding(pipeline, spark, command, () -> timeout.bound(spark, body));
    }
  }
}
