package io.replaysafe.silver.ops;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.lit;

import io.replaysafe.common.ConfigException;
import io.replaysafe.silver.SilverContract;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.types.DataTypes;

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
    return concat_ws(
        "/",
        contract.keys().stream()
            .map(k -> coalesce(contract.normalizedKey(k).cast(DataTypes.StringType), lit("null")))
            .toArray(Column[]::new));
  }

  /** The display form of a silver row's key (silver stores normalised keys). */
  public static Column displayOfStored(SilverContract contract) {
    return concat_ws(
        "/",
        contract.keys().stream()
            .map(
                k ->
                    coalesce(
                        org.apache
                            .spark
                            .sql
                            .functions
                            .col("`" + k + "`")
                            .cast(DataTypes.StringType),
                        lit("null")))
            .toArray(Column[]::new));
  }
}
