package io.replaysafe.cli;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --config FILE} option every pipeline command shares. */
final class ConfigOption {
  @Option(
      names = {"-c", "--config"},
      required = true,
      paramLabel = "FILE",
      description = "The pipeline file (YAML).")
  Path file;

  @Option(
      names = "--show-values",
      description =
          "Show payload values (cut to a short prefix) in reports and messages, as"
              + " evidence.showValues: true does: for a development pipeline only. By default"
              + " they name rows by file and hash.")
  boolean showValues;

  PipelineConfig load() {
    PipelineConfig pipeline = ConfigLoader.load(file);
    return showValues ? pipeline.showingValues() : pipeline;
  }
}
