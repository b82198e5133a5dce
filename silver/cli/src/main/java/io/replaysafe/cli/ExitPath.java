package io.replaysafe.cli;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.io.JsonLinesExport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What the exit paths of the side tables share (the quarantine, the bad files): a command group
 * that lists what waits for a decision and records the decisions taken on it.
 */
final class ExitPath {
  private ExitPath() {}

  /** The group itself: run without a subcommand, it names the subcommands it has. */
  abstract static class Group implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      List<String> names = new ArrayList<>(spec.subcommands().keySet());
      String last = names.remove(names.size() - 1);
      throw new ParameterException(
          spec.commandLine(), "Missing a subcommand: " + String.join(", ", names) + " or " + last);
    }
  }

  /** {@code list}: the rows waiting for a decision, as JSON lines in a stable order. */
  abstract static class Listing implements Callable<Integer> {
    @Mixin ConfigOption config;

    @Spec CommandSpec spec;

    abstract Dataset<Row> waiting(PipelineConfig pipeline);

    /** The columns that order the listing. */
    abstract List<String> orderBy();

    @Override
    public Integer call() {
      JsonLinesExport.write(waiting(config.load()), orderBy(), spec.commandLine().getOut());
      return ReplaysafeCli.EXIT_OK;
    }
  }
}
