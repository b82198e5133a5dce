package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The bronze Delta table and its dedicated streaming checkpoint.
 *
 * @param path Delta table location
 * @param checkpoint checkpoint directory; belongs to this source alone
 */
public record BronzeConfig(String path, String checkpoint) {
  @JsonCreator
  public static BronzeConfig of(
      @Help("The bronze Delta table's location.") @JsonProperty("path") String path,
      @Help("The bronze stream's checkpoint directory: this source's alone, never shared.")
          @JsonProperty("checkpoint")
          String checkpoint) {
    return new BronzeConfig(
        StoragePaths.normalize("bronze.path", path),
        StoragePaths.normalize("bronze.checkpoint", checkpoint));
  }

  public BronzeConfig {
    if (path.equals(checkpoint)) {
      throw ConfigErrors.rule(
          "bronze.checkpoint equals bronze.path ('" + path + "')",
          "give the checkpoint its own path");
    }
  }
}
