package io.replaysafe.cli;

import io.replaysafe.common.ErrorKind;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.jobs.JobReport;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Clock;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code replaysafe} command and its subcommands. Exit codes come from {@link ErrorKind}: 0
 * success, 1 a rejected batch or an unclassified failure, 2 usage or configuration error, 3 an
 * alert, 4 retryable (transient S3 or network failure, lease held by another writer), 5 timeout.
 */
@Command(
    name = "replaysafe",
    mixinStandardHelpOptions = true,
    version = "replaysafe 0.1.0",
    description =
        "Replay-safe ingestion: files to bronze, bronze to silver, under a written contract.",
    subcommands = {
      InitCommand.class,
      PlanCommand.class,
      BronzeCommand.class,
      SilverCommand.class,
      RunCommand.class,
      ExportCommand.class,
      S3ServerCommand.class,
      DemoCommand.class,
      RehearseCommand.class,
      RepairCommand.class,
      ReconcileCommand.class,
      EraseCommand.class,
      MaintainCommand.class,
      CheckCommand.class,
      StatusCommand.class,
      QuarantineCommand.class,
      BadFilesCommand.class,
      FilesCommand.class,
      HelpCommand.class
    })
public final class ReplaysafeCli implements Runnable {
  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILURE = ErrorKind.FAILURE.exitCode();
  public static final int EXIT_USAGE = ErrorKind.CONFIGURATION.exitCode();

  /**
   * Exit code of {@code status}, {@code check} and {@code plan} when a threshold or rule is
   * crossed.
   */
  public static final int EXIT_ALERT = ErrorKind.ALERT.exitCode();

  static final String VERBOSE = "--verbose";

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** What "now" is for commands that judge age ({@code status --max-lag}). */
  private final Clock clock;

  public ReplaysafeCli() {
    this(Clock.systemUTC());
  }

  ReplaysafeCli(Clock clock) {
    this.clock = clock;
  }

  Clock clock() {
    return clock;
  }

  /** Refuses a count option below 1 as a usage error. */
  static void requireAtLeastOne(CommandLine.Model.CommandSpec spec, String option, int value) {
    if (value < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), option + " must be at least 1, got " + value);
    }
  }

  /** The Spark session a command works in, named after the command and the pipeline. */
  static SparkSession spark(PipelineConfig pipeline, String command) {
    return SparkSessions.getOrCreate("replaysafe-" + command + "-" + pipeline.name());
  }

  @CommandLine.Option(
      names = VERBOSE,
      scope = CommandLine.ScopeType.INHERIT,
      description =
          "Print Spark's, Hadoop's and Delta's warnings on stderr. Without it they go to"
              + " replaysafe-logs/replaysafe.log under the working directory.")
  boolean verbose;

  /** True when {@code --verbose} was given at any level of the command line. */
  static boolean verbose(CommandLine.ParseResult parsed) {
    for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption(VERBOSE)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "Missing a subcommand");
  }

  /** A command line writing to the given streams; tests call {@code execute(args)} on it. */
  public static CommandLine commandLine(PrintStream out, PrintStream err) {
    return commandLine(out, err, Clock.systemUTC());
  }

  /** The same, with the clock that decides ages, so a test need not wait for time to pass. */
  public static CommandLine commandLine(PrintStream out, PrintStream err, Clock clock) {
    CommandLine cli = new CommandLine(new ReplaysafeCli(clock));
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    cli.setExitCodeExceptionMapper(ReplaysafeCli::exitCode);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("replaysafe: " + messageOf(e));
          commandLine.getErr().flush();
          return exitCode(e);
        });
    cli.setParameterExceptionHandler(
        (e, args) -> {
          PrintWriter errOut = e.getCommandLine().getErr();
          errOut.println("replaysafe: " + e.getMessage());
          errOut.println(
              "Run '"
                  + e.getCommandLine().getCommandSpec().qualifiedName()
                  + " --help' for usage.");
          errOut.flush();
          return EXIT_USAGE;
        });
    return cli;
  }

  static int exitCode(Throwable e) {
    if (e instanceof CommandLine.ParameterException) {
      return EXIT_USAGE;
    }
    return ErrorKind.of(e).exitCode();
  }

  private static String messageOf(Throwable e) {
    return JobReport.messageOf(e);
  }
}
