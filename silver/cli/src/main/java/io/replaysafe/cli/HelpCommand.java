package io.replaysafe.cli;

import io.replaysafe.common.config.ConfigReference;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code replaysafe help [COMMAND | config]}: a command's usage, as picocli's own help command
 * prints it, or with {@code config} the reference of every pipeline-file key ({@link
 * ConfigReference}, read from the keys' declarations).
 */
@Command(
    name = "help",
    helpCommand = true,
    description =
        "Display help information about the specified command, or with 'config' every key of the"
            + " pipeline file (type, default, what it does).")
final class HelpCommand implements CommandLine.IHelpCommandInitializable2, Runnable {
  static final String CONFIG = "config";

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show usage help for the help command and exit.")
  boolean helpRequested;

  @Parameters(
      paramLabel = "COMMAND",
      arity = "0..1",
      description = "The COMMAND to display the usage help message for, or 'config'.")
  String topic;

  private CommandLine self;
  private ColorScheme colorScheme;
  private PrintWriter out;

  @Override
  public void init(
      CommandLine helpCommandLine, ColorScheme colorScheme, PrintWriter out, PrintWriter err) {
    this.self = helpCommandLine;
    this.colorScheme = colorScheme;
    this.out = out;
  }

  @Override
  public void run() {
    CommandLine parent = self.getParent() == null ? self : self.getParent();
    if (topic == null) {
      parent.usage(out, colorScheme);
    } else if (CONFIG.equals(topic)) {
      out.print(ConfigReference.text());
    } else {
      CommandLine command = parent.getSubcommands().get(topic);
      if (command == null) {
        throw new CommandLine.ParameterException(
            parent,
            "Unknown subcommand '" + topic + "'; " + CONFIG + " prints the pipeline file's keys.",
            null,
            topic);
      }
      command.usage(out, colorScheme);
    }
    out.flush();
  }
}
