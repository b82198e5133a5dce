package io.replaysafe.cli;

import io.replaysafe.bronze.BadFiles;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.PipelineLease;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The bad-files table's exit path: files bronze could not read are skipped and recorded; someone
 * lists them, then asks for a retry (the next bronze run reads the file again, whole) or dismisses
 * them. Every decision records who and why.
 */
@Command(
    name = "bad-files",
    description =
        "Files bronze could not read (skipped and recorded in <bronze path>_bad_files): list them,"
            + " retry them on the next bronze run, or dismiss them, with a recorded decision.",
    subcommands = {
      BadFilesCommand.ListCommand.class,
      BadFilesCommand.RetryCommand.class,
      BadFilesCommand.DismissCommand.class
    })
final class BadFilesCommand extends ExitPath.Group {
  @Command(
      name = "list",
      description = "Unresolved bad files (open, or waiting for a retry) as JSON lines.")
  static final class ListCommand extends ExitPath.Listing {
    @Override
    Dataset<Row> waiting(PipelineConfig pipeline) {
      return new BadFiles(pipeline, ReplaysafeCli.spark(pipeline, "bad-files")).unresolved();
    }

    @Override
    List<String> orderBy() {
      return List.of("path");
    }
  }

  abstract static class Decision implements Callable<Integer> {
    @Mixin ConfigOption config;

    @Option(
        names = "--paths",
        required = true,
        paramLabel = "P1,P2",
        description = "Paths as 'bad-files list' prints them.")
    String paths;

    @Mixin DecisionOptions decision;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    abstract String action();

    @Override
    public Integer call() {
      PipelineConfig pipeline = config.load();
      SparkSession spark = ReplaysafeCli.spark(pipeline, "bad-files");
      // A decision is a write to the bad-files table, which bronze also writes.
      long n =
          PipelineLease.holding(
              pipeline,
              spark,
              "bad-files " + action(),
              () ->
                  new BadFiles(pipeline, spark)
                      .decide(DecisionOptions.list(paths), action(), decision.by, decision.reason));
      spec.commandLine()
          .getOut()
          .println(
              action().equals("retry")
                  ? n + " file(s) marked for retry: the next bronze run reads them again, whole"
                  : n + " file(s) dismissed");
      spec.commandLine().getOut().flush();
      return ReplaysafeCli.EXIT_OK;
    }
  }

  @Command(name = "retry", description = "Read the files again, whole, on the next bronze run.")
  static final class RetryCommand extends Decision {
    @Override
    String action() {
      return "retry";
    }
  }

  @Command(name = "dismiss", description = "Close the files without reading them; record why.")
  static final class DismissCommand extends Decision {
    @Override
    String action() {
      return "dismiss";
    }
  }
}
