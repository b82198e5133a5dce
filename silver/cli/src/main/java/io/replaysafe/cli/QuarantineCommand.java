package io.replaysafe.cli;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.silver.ops.QuarantineOps;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The quarantine's exit path: someone lists the open rows, then releases them into silver or
 * discards them. Every decision records who and why.
 */
@Command(
    name = "quarantine",
    description =
        "The quarantine's exit path: list open rows, release or discard them with a recorded decision.",
    subcommands = {
      QuarantineCommand.ListCommand.class,
      QuarantineCommand.ReleaseCommand.class,
      QuarantineCommand.DiscardCommand.class
    })
final class QuarantineCommand extends ExitPath.Group {
  @Command(name = "list", description = "Open quarantine rows as JSON lines.")
  static final class ListCommand extends ExitPath.Listing {
    @Override
    Dataset<Row> waiting(PipelineConfig pipeline) {
      return new QuarantineOps(pipeline, ReplaysafeCli.spark(pipeline, "quarantine")).open();
    }

    @Override
    List<String> orderBy() {
      return List.of("key", "sequence", "quarantine_id");
    }
  }

  /** A recorded decision on chosen quarantine rows, taken under the pipeline's writer lease. */
  abstract static class Decision implements Callable<Integer> {
    @Mixin ConfigOption config;

    @Option(
        names = "--ids",
        required = true,
        paramLabel = "ID1,ID2",
        description = "quarantine_id values.")
    String ids;

    @Mixin DecisionOptions decision;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    <T> T decide(String command, Function<QuarantineOps, T> action) {
      PipelineConfig pipeline = config.load();
      SparkSession spark = ReplaysafeCli.spark(pipeline, "quarantine");
      return PipelineLease.holding(
          pipeline, spark, command, () -> action.apply(new QuarantineOps(pipeline, spark)));
    }

    List<String> idList() {
      return DecisionOptions.list(ids);
    }
  }

  @Command(
      name = "release",
      description =
          "Apply the chosen rows to silver (their payload wins at their sequence) and record why.")
  static final class ReleaseCommand extends Decision {
    @Override
    public Integer call() {
      QuarantineOps.Released released =
          decide("quarantine release", ops -> ops.release(idList(), decision.by, decision.reason));
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "released "
              + released.released()
              + " row(s); "
              + released.changed()
              + " silver row(s) changed");
      released.leftOpen().forEach((id, why) -> out.println("  left OPEN " + id + ": " + why));
      out.flush();
      // A release that could not take effect is not a success: the row waits for a decision.
      return released.leftOpen().isEmpty() ? ReplaysafeCli.EXIT_OK : ReplaysafeCli.EXIT_FAILURE;
    }
  }

  @Command(
      name = "discard",
      description = "Close the chosen rows without applying them, and record why.")
  static final class DiscardCommand extends Decision {
    @Override
    public Integer call() {
      long n =
          decide("quarantine discard", ops -> ops.discard(idList(), decision.by, decision.reason));
      spec.commandLine().getOut().println("discarded " + n + " row(s)");
      spec.commandLine().getOut().flush();
      return ReplaysafeCli.EXIT_OK;
    }
  }
}
