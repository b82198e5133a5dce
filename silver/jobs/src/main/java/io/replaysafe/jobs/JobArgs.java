package io.replaysafe.jobs;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.config.ConfigErrors;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The arguments every cluster job takes, parsed and validated: exactly one of {@code --config PATH}
 * and {@code --config-inline YAML}, and {@code --json}. The same arguments in a Databricks JAR
 * task, after {@code spark-submit ... JAR}, or in a test.
 *
 * @param configPath where the pipeline file is: a local path (including {@code /Workspace/...},
 *     {@code /dbfs/...} and {@code /Volumes/...} on a Databricks driver) or a Hadoop URI ({@code
 *     dbfs:/}, {@code s3a://}, {@code abfss://}, {@code file:}); null when inline
 * @param configInline the pipeline file's text itself (YAML, or JSON, which is YAML); null when a
 *     path is given
 * @param json print the result as one JSON object instead of the one-line summary
 * @param help print usage and do nothing else
 */
public record JobArgs(String configPath, String configInline, boolean json, boolean help) {

  public JobArgs {
    if (!help && (configPath == null) == (configInline == null)) {
      throw ConfigErrors.rule(
          "Both or neither of --config and --config-inline given",
          "give the pipeline file as exactly one of --config PATH or --config-inline YAML");
    }
  }

  /** Parses a job's arguments; a {@link ConfigException} names what is wrong and the usage. */
  public static JobArgs parse(String job, String... args) {
    Spec spec = new Spec();
    CommandLine cli = new CommandLine(spec).setCommandName(job);
    try {
      cli.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      throw ConfigErrors.jobUsage(job, e.getMessage(), usage(job), e);
    }
    if (spec.help) {
      return new JobArgs(null, null, spec.json, true);
    }
    if (spec.config == null) {
      throw ConfigErrors.jobUsage(
          job,
          "the pipeline file is missing; give --config PATH or --config-inline YAML",
          usage(job),
          null);
    }
    return new JobArgs(spec.config.path, spec.config.inline, spec.json, false);
  }

  /** One line of usage, for error messages and {@code --help}. */
  public static String usage(String job) {
    return job + " (--config PATH | --config-inline YAML) [--json]";
  }

  /** Where the pipeline file came from, for error messages. */
  public String origin() {
    return configPath != null ? configPath : "--config-inline";
  }

  @Command(mixinStandardHelpOptions = false)
  static class Spec {
    @ArgGroup(exclusive = true, multiplicity = "0..1")
    ConfigGroup config;

    @Option(names = "--json", description = "Print the result as one JSON object.")
    boolean json;

    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "Print usage.")
    boolean help;
  }

  static final class ConfigGroup {
    @Option(
        names = {"-c", "--config"},
        required = true,
        paramLabel = "PATH",
        description = "The pipeline file: a local path, or dbfs:/, s3a://, abfss://, file: URI.")
    String path;

    @Option(
        names = "--config-inline",
        required = true,
        paramLabel = "YAML",
        description = "The pipeline file's text.")
    String inline;
  }
}
