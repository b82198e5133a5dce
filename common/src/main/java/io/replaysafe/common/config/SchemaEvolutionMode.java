package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.Arrays;

/** Auto Loader's {@code schemaEvolutionMode}, limited to the modes an explicit schema allows. */
public enum SchemaEvolutionMode {
  /** Fields the schema does not declare land in the rescued-data column (the default). */
  RESCUE("rescue"),
  /** Stop the run, naming the new fields and the file that brought them. */
  FAIL_ON_NEW_COLUMNS("failOnNewColumns");

  private final String yamlName;

  SchemaEvolutionMode(String yamlName) {
    this.yamlName = yamlName;
  }

  public String yamlName() {
    return yamlName;
  }

  @JsonCreator
  public static SchemaEvolutionMode parse(String value) {
    for (SchemaEvolutionMode mode : values()) {
      if (mode.yamlName.equals(value)) {
        return mode;
      }
    }
    if ("addNewColumns".equals(value) || "none".equals(value)) {
      throw ConfigErrors.notSupported(
          "source.schemaEvolutionMode '" + value + "'",
          "replaysafe requires an explicit schema and never drops fields. Use 'rescue' (new"
              + " fields go to the rescued-data column) or 'failOnNewColumns'.");
    }
    throw ConfigErrors.unknownValue(
        "source.schemaEvolutionMode",
        value,
        Arrays.stream(values()).map(SchemaEvolutionMode::yamlName).toList());
  }
}
