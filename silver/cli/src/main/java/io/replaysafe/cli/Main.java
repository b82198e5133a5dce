package io.replaysafe.cli;

import picocli.CommandLine;

/** Entry point of the {@code replaysafe} command; everything else is in {@link ReplaysafeCli}. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    CommandLine cli = ReplaysafeCli.commandLine(System.out, System.err);
    // Logging is the process's, so it is chosen here and not in the command factory tests use.
    cli.setExecutionStrategy(
        parsed -> {
          if (!ReplaysafeCli.verbose(parsed)) {
            QuietLogging.install(QuietLogging.logFile());
          }
          return new CommandLine.RunLast().execute(parsed);
        });
    System.exit(cli.execute(args));
  }
}
