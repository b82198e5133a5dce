package io.replaysafe.cli;

import io.replaysafe.common.ConfigException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Every error the commands raise on purpose about their own options, each saying what is wrong and
 * what to pass instead. All are {@link ConfigException}s (exit 2). Errors about the pipeline file
 * are {@link io.replaysafe.common.config.ConfigErrors}'; picocli's own parse errors stay picocli's.
 */
final class CliErrors {
  private CliErrors() {}

  /** {@code init --name} (or the name derived from --source) is not usable as a job name. */
  static ConfigException badPipelineName(String name) {
    return new ConfigException(
        "--name '" + name + "' must be letters, digits, '_' or '-'; it names the jobs");
  }

  /** {@code init} never overwrites a pipeline file. */
  static ConfigException draftExists(Path file) {
    return new ConfigException(
        "Cannot write the draft to "
            + file
            + ": the file exists and init never overwrites a pipeline file. Pass another --out"
            + " or move that file away.");
  }

  /** The draft's file appeared between the check and the write. */
  static ConfigException draftAppeared(Path file, IOException cause) {
    return new ConfigException("Cannot write the draft to " + file + ": the file exists", cause);
  }

  /** The draft cannot be written. */
  static ConfigException cannotWriteDraft(Path file, IOException cause) {
    return new ConfigException(
        "Cannot write the draft to " + file + ": " + cause.getMessage(), cause);
  }

  static ConfigException continuousAndAvailableNow() {
    return new ConfigException("--continuous and --available-now exclude each other; give one");
  }

  /** --interval, --max-batches or --until on a run that is not continuous. */
  static ConfigException continuousOptionsWithoutContinuous() {
    return new ConfigException(
        "--interval, --max-batches and --until apply to a continuous run; add --continuous"
            + " (or set trigger.mode: continuous in the pipeline file)");
  }

  static ConfigException tooFewBatches(long maxBatches) {
    return new ConfigException("--max-batches must be at least 1, got " + maxBatches);
  }

  static ConfigException nothingToMaintain() {
    return new ConfigException("Nothing to maintain: pass --optimize, --vacuum RETENTION, or both");
  }
}
