package io.replaysafe.common.config;

import java.util.Arrays;
import java.util.Locale;

/** How a key column is normalised before it is grouped, compared and merged on. */
public enum KeyNormalizer {
  NONE("none"),
  TRIM("trim"),
  UPPER_TRIM("upper_trim"),
  LOWER_TRIM("lower_trim"),
  /** Unicode NFKC, then trim of every Unicode white space (not only ASCII space). */
  NFKC_TRIM("nfkc_trim");

  private final String yamlName;

  KeyNormalizer(String yamlName) {
    this.yamlName = yamlName;
  }

  public String yamlName() {
    return yamlName;
  }

  public static KeyNormalizer parse(String where, String value) {
    for (KeyNormalizer n : values()) {
      if (n.yamlName.equals(value)) {
        return n;
      }
    }
    throw ConfigErrors.unknownValue(
        where, value, Arrays.stream(values()).map(KeyNormalizer::yamlName).toList());
  }

  /** The normalisation as plain Java, the single definition the Spark expression must match. */
  public String apply(String key) {
    if (key == null) {
      return null;
    }
    return switch (this) {
      case NONE -> key;
      case TRIM -> key.trim();
      case UPPER_TRIM -> key.trim().toUpperCase(Locale.ROOT);
      case LOWER_TRIM -> key.trim().toLowerCase(Locale.ROOT);
      case NFKC_TRIM -> java.text.Normalizer.normalize(key, java.text.Normalizer.Form.NFKC).strip();
    };
  }
}
