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

  PipelineConfig load() {
    return ConfigLoader.load(file);
  }
}
