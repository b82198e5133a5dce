package io.replaysafe.common.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Auto Loader option names, checked once and translated to Spark's file stream source. An option
 * the Spark file source cannot honour is rejected here with the reason, never silently ignored.
 *
 * @param sparkOptions the options handed to {@code DataStreamReader.options}
 * @param formatOptions the CSV options ({@link CsvOptions#KEYS}) as written, without the {@code
 *     cloudFiles.} prefix: bronze reads them for a csv source, and refuses them for another format
 */
public record SourceOptions(Map<String, String> sparkOptions, Map<String, String> formatOptions) {

  /**
   * "No limit", in practice: 100 years. Not Long.MAX_VALUE, because Spark subtracts it from the
   * newest modification time it has seen, and a negative overflow would make every file look old.
   * The price: the checkpoint's seen-files map keeps every file's path for that long.
   */
  public static final String MAX_FILE_AGE_DEFAULT = "36500d";

  /** Options passed to Spark unchanged: same name, same meaning in Auto Loader and Spark. */
  private static final Set<String> PASSED_THROUGH =
      Set.of(
          "maxFilesPerTrigger",
          "maxBytesPerTrigger",
          "pathGlobFilter",
          "cleanSource",
          "sourceArchiveDir",
          "maxFileAge",
          "latestFirst",
          "fileNameOnly",
          "recursiveFileLookup");

  /** Options Auto Loader has and Spark's file source cannot support, with the reason. */
  private static final Map<String, String> UNSUPPORTED =
      Map.of(
          "useNotifications",
          "file notification mode is set with source.discovery: notifications and"
              + " source.queueUrl, not as an option",
          "backfillInterval",
          "replaysafe reads it as source.backfillInterval, with source.discovery: notifications",
          "schemaLocation",
          "replaysafe always uses the explicit source.schema; no schema is inferred or stored",
          "inferColumnTypes",
          "replaysafe always uses the explicit source.schema",
          "allowOverwrites",
          "Spark's file source never re-reads a file it has seen, even if it changes");

  public static SourceOptions of(Map<String, String> raw) {
    Map<String, String> spark = new LinkedHashMap<>();
    Map<String, String> format = new LinkedHashMap<>();
    for (Map.Entry<String, String> option : raw.entrySet()) {
      String name = option.getKey();
      String value = option.getValue();
      if (value == null) {
        throw ConfigErrors.rule(
            "source.options." + name + " has no value", "give it one, or remove the option");
      }
      String key = name.startsWith("cloudFiles.") ? name.substring("cloudFiles.".length()) : name;
      if (PASSED_THROUGH.contains(key)) {
        spark.put(key, value);
      } else if (CsvOptions.KEYS.contains(key)) {
        format.put(key, value);
      } else if ("includeExistingFiles".equals(key)) {
        if (!"true".equalsIgnoreCase(value)) {
          throw ConfigErrors.notSupported(
              "source.options.includeExistingFiles: false",
              "Spark's file source always lists files already present on the first run. Move"
                  + " old files out of source.path, or narrow it with pathGlobFilter.");
        }
      } else if (UNSUPPORTED.containsKey(key)) {
        throw ConfigErrors.notSupported("source.options." + name, UNSUPPORTED.get(key));
      } else {
        throw ConfigErrors.rule(
            "source.options." + name + " is unknown",
            "supported options are "
                + new java.util.TreeSet<>(PASSED_THROUGH)
                + ", includeExistingFiles and, for csv, "
                + new java.util.TreeSet<>(CsvOptions.KEYS));
      }
    }
    // Auto Loader discovers files in nested directories (dated prefixes); Spark's file source only
    // does so with recursiveFileLookup.
    spark.putIfAbsent("recursiveFileLookup", "true");
    // Spark's file source skips, silently and on every run, a file whose modification time is more
    // than maxFileAge (default 7 days) older than the newest file it has seen: a file copied with
    // its old mtime (cp -p, rsync -t, mv) would never be ingested. Auto Loader has no such limit.
    spark.putIfAbsent("maxFileAge", MAX_FILE_AGE_DEFAULT);
    if (spark.containsKey("maxFilesPerTrigger") && spark.containsKey("maxBytesPerTrigger")) {
      throw ConfigErrors.bothSet(
          "source.options",
          "maxFilesPerTrigger",
          "maxBytesPerTrigger",
          "Spark's file source honours only one, keep one of them");
    }
    if ("archive".equalsIgnoreCase(spark.get("cleanSource"))
        && !spark.containsKey("sourceArchiveDir")) {
      throw ConfigErrors.rule(
          "source.options.cleanSource: archive needs source.options.sourceArchiveDir",
          "add it: the directory that processed files move to");
    }
    if (!format.isEmpty()) {
      CsvOptions.of(format); // checked now, whatever the format: a typo fails at load
    }
    return new SourceOptions(spark, format);
  }

  /** Options without CSV options. */
  public SourceOptions(Map<String, String> sparkOptions) {
    this(sparkOptions, Map.of());
  }

  public SourceOptions {
    sparkOptions = Collections.unmodifiableMap(new LinkedHashMap<>(sparkOptions));
    formatOptions = Collections.unmodifiableMap(new LinkedHashMap<>(formatOptions));
  }

  /** How a csv source is tokenized: {@link #formatOptions}, defaults for the rest. */
  public CsvOptions csv() {
    return CsvOptions.of(formatOptions);
  }
}
