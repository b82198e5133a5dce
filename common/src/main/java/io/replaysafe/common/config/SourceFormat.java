package io.replaysafe.common.config;

import java.util.Arrays;
import java.util.Locale;

/**
 * The format of the files bronze reads ({@code source.format}). Each is read with Spark's own
 * reader, against the explicit schema, with the same rescue rules (bronze/README.md, Formats).
 */
public enum SourceFormat {
  /** JSON lines; .gz, .bz2 and other Hadoop codecs by file extension. */
  JSON("json"),
  /** Parquet, read with Spark's Parquet reader on each file's own schema. */
  PARQUET("parquet"),
  /**
   * Avro object container files, read with Spark's Avro reader ({@code spark-avro}, which
   * Databricks ships and plain Spark does not: add {@code --packages
   * org.apache.spark:spark-avro_2.13:<spark version>}).
   */
  AVRO("avro"),
  /**
   * Delimited text with a header line ({@code source.options}: {@code header}, {@code sep}, {@code
   * quote}, {@code escape}, {@code encoding}: see {@link CsvOptions}), tokenized by Spark's CSV
   * parser; .gz and other Hadoop codecs by file extension.
   */
  CSV("csv");

  private final String key;

  SourceFormat(String key) {
    this.key = key;
  }

  /** The value as written in {@code source.format}. */
  public String key() {
    return key;
  }

  /** True for the formats whose files carry their own schema (Parquet, Avro). */
  public boolean selfDescribing() {
    return this == PARQUET || this == AVRO;
  }

  /** The format named by {@code source.format} (case ignored). */
  public static SourceFormat of(String value) {
    String key = value.toLowerCase(Locale.ROOT);
    return Arrays.stream(values())
        .filter(f -> f.key.equals(key))
        .findFirst()
        .orElseThrow(
            () ->
                ConfigErrors.badValue(
                    "source.format",
                    value,
                    "is not supported",
                    "give json (JSON lines), parquet, avro or csv (bronze/README.md, Formats)"));
  }
}
