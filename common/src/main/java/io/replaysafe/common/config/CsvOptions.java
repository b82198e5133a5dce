package io.replaysafe.common.config;

import java.nio.charset.Charset;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How a CSV source is tokenized ({@code source.format: csv}), from {@code source.options} under the
 * names Spark's CSV reader and Auto Loader use. Parsed once, when the pipeline file is loaded.
 *
 * @param header whether each file's first record names its columns (default true); without a header
 *     the fields are the schema's columns in order
 * @param sep the field delimiter, one or more characters (default {@code ,}); {@code delimiter} is
 *     the same option
 * @param quote the quote character (default {@code "})
 * @param escape the character that escapes a quote inside a quoted value (default {@code \}, as
 *     Spark's reader); a doubled quote is read as one quote as well
 * @param encoding the files' character set (default UTF-8); {@code charset} is the same option
 */
public record CsvOptions(boolean header, String sep, char quote, char escape, String encoding)
    implements java.io.Serializable {

  public static final CsvOptions DEFAULT = new CsvOptions(true, ",", '"', '\\', "UTF-8");

  /** The option names, as written in {@code source.options}, and the aliases Spark accepts. */
  public static final Set<String> KEYS =
      Set.of("header", "sep", "delimiter", "quote", "escape", "encoding", "charset");

  public CsvOptions {
    if (sep == null || sep.isEmpty()) {
      throw ConfigErrors.badValue("source.options.sep", sep, "is empty", "give e.g. ',' or '|'");
    }
    if (sep.indexOf('\n') >= 0 || sep.indexOf('\r') >= 0) {
      throw ConfigErrors.badValue(
          "source.options.sep", sep, "holds a line break", "give e.g. ',', ';', '|' or a tab");
    }
    if (sep.indexOf(quote) >= 0) {
      throw ConfigErrors.rule(
          "source.options.sep '" + sep + "' holds the quote character '" + quote + "'",
          "give another delimiter or another quote");
    }
    if (!supported(encoding)) {
      throw ConfigErrors.badValue(
          "source.options.encoding",
          encoding,
          "is not a character set this JVM knows",
          "give e.g. UTF-8, ISO-8859-1 or UTF-16");
    }
  }

  /** The CSV options among {@code options} (names as in {@link #KEYS}), defaults for the rest. */
  public static CsvOptions of(Map<String, String> options) {
    return new CsvOptions(
        header(options.get("header")),
        either(options, "sep", "delimiter", DEFAULT.sep()),
        oneChar("quote", options.getOrDefault("quote", String.valueOf(DEFAULT.quote()))),
        oneChar("escape", options.getOrDefault("escape", String.valueOf(DEFAULT.escape()))),
        either(options, "encoding", "charset", DEFAULT.encoding()));
  }

  /** The options as Spark's CSV reader names them ({@code CSVOptions}). */
  public Map<String, String> sparkOptions() {
    Map<String, String> spark = new LinkedHashMap<>();
    spark.put("header", String.valueOf(header));
    spark.put("sep", sep);
    spark.put("quote", String.valueOf(quote));
    spark.put("escape", String.valueOf(escape));
    spark.put("encoding", encoding);
    return spark;
  }

  private static boolean supported(String encoding) {
    try {
      return encoding != null && Charset.isSupported(encoding);
    } catch (IllegalArgumentException e) { // an illegal name, not just an unknown one
      return false;
    }
  }

  private static boolean header(String value) {
    if (value == null) {
      return DEFAULT.header();
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw ConfigErrors.badValue(
              "source.options.header", value, "is not a boolean", "give true or false");
    };
  }

  private static String either(Map<String, String> options, String key, String alias, String def) {
    if (options.containsKey(key) && options.containsKey(alias)) {
      throw ConfigErrors.bothSet(
          "source.options", key, alias, "they are the same option: keep " + key);
    }
    return options.getOrDefault(key, options.getOrDefault(alias, def));
  }

  private static char oneChar(String key, String value) {
    if (value.length() != 1) {
      throw ConfigErrors.badValue(
          "source.options." + key, value, "is not one character", "give one character, e.g. '\"'");
    }
    return value.charAt(0);
  }
}
