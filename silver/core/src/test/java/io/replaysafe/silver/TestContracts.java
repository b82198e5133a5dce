package io.replaysafe.silver;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.PipelineYaml;
import java.nio.file.Path;

/** Contracts for tests that call one step directly, with every table under {@code dir}. */
final class TestContracts {
  private TestContracts() {}

  static PipelineConfig pipeline(Path dir, String schema, String silverYaml) {
    return ConfigLoader.parse("test", yaml("t", dir, schema, silverYaml));
  }

  /**
   * The pipeline file of pipeline {@code name}: landing, tables and checkpoints under {@code dir}.
   */
  static String yaml(String name, Path dir, String schema, String silverYaml) {
    return PipelineYaml.local(name, dir, schema, silverYaml);
  }

  static SilverContract contract(Path dir, String schema, String silverYaml) {
    return new SilverContract(pipeline(dir, schema, silverYaml));
  }
}
