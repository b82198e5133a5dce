package io.replaysafe.cli;

import io.replaysafe.bronze.BadFiles;
import io.replaysafe.common.config.PipelineConfig;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
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
final class BadFilesCommand implements Runnable {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(
        spec.commandLine(), "Missing a subcommand: list, retry or dismiss");
  }

  @Command(
      name = "list",
      description = "Unresolved bad files (open, or waiting for a retry) as JSON lines.")
  static final class ListCommand implements Callable<Integer> {
    @Mixin ConfigOption config;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PipelineConfig pipeline = config.load();
      io.replaysafe.common.io.JsonLinesExport.write(
          new BadFiles(pipeline, OpsCommands.spark(pipeline, "bad-files")).unresolved(),
          List.of("path"),
          spec.commandLine().getOut());
      return ReplaysafeCli.EXIT_OK;
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

    @Option(names = "--by", required = true, description = "Who decided.")
    String by;

    @Option(names = "--reason", required = true, description = "Why (recorded on the rows).")
    String reason;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    abstract String decision();

    @Override
    public Integer call() {
      PipelineConfig pipeline = config.load();
      List<String> list =
          Arrays.stream(paths.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
      long n =
          new BadFiles(pipeline, OpsCommands.spark(pipeline, "bad-files"))
              .decide(list, decision(), by, reason);
      spec.commandLine()
          .getOut()
          .println(
              decision().equals("retry")
                  ? n + " file(s) marked for retry: the next bronze run reads them again, whole"
                  : n + " file(s) dismissed");
      spec.commandLine().getOut().flush();
      return ReplaysafeCli.EXIT_OK;
    }
  }

  @Command(name = "retry", description = "Read the files again, whole, on the next bronze run.")
  static final class RetryCommand extends Decision {
    @Override
    String decision() {
      return "retry";
    }
  }

  @Command(name = "dismiss", description = "Close the files without reading them; record why.")
  static final class DismissCommand extends Decision {
    @Override
    String decision() {
      return "dismiss";
    }
  }
}
