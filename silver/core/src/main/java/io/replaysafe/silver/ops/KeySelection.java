package io.replaysafe.silver.ops;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.spark.SqlNames;
import io.replaysafe.silver.SilverContract;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;

/**
 * Keys named on the command line or in a file, in the form reports print them: the normalised key
 * values joined with "/" (a single-column key is just its value).
 */
public record KeySelection(List<String> keys) {
  public KeySelection {
    keys = List.copyOf(keys);
    if (keys.isEmpty()) {
      throw new ConfigException(
          "No keys given: pass --keys K1,K2 or --keys-file FILE (one per line)");
    }
  }

  public static KeySelection of(String commaSeparated, Path file) {
    List<String> keys = new ArrayList<>();
    if (commaSeparated != null) {
      for (String k : commaSeparated.split(",")) {
        if (!k.isBlank()) {
          keys.add(k.trim());
        }
      }
    }
    if (file != null) {
      try {
        Files.readAllLines(file).stream()
            .map(String::trim)
            .filter(l -> !l.isEmpty())
            .forEach(keys::add);
      } catch (IOException e) {
        throw new ConfigException("Cannot read keys file " + file + ": " + e.getMessage(), e);
      }
    }
    return new KeySelection(keys);
  }

  /**
   * The display form of a row's key, computed from raw columns with the contract's normalisation.
   */
  public static Column displayOfRaw(SilverContract contract) {
    return SilverContract.display(contract.keys().stream().map(contract::normalizedKey).toList());
  }

  /** The display form of a silver row's key (silver stores normalised keys). */
  public static Column displayOfStored(SilverContract contract) {
    return SilverContract.display(List.of(SqlNames.columns(contract.keys())));
  }
}
