package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.replaysafe.common.ConfigException;
import io.replaysafe.common.ReservedNames;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VarcharType;
import org.apache.spark.sql.types.VariantType;

/**
 * The landing zone bronze reads, with its explicit schema.
 *
 * @param path directory of landed files: s3a://bucket/prefix/, a local directory or a file: URI
 * @param format {@code json} (JSON lines; .gz and other Hadoop codecs by file extension), {@code
 *     parquet}, {@code avro} or {@code csv}: see {@link SourceFormat}
 * @param schema Spark DDL, e.g. {@code "order_id BIGINT, status STRING"}
 * @param rescuedDataColumn where fields that do not fit the schema are kept
 * @param schemaEvolutionMode what a field the schema does not declare does
 * @param options Auto Loader option names, see {@link SourceOptions}
 * @param maxLineBytes the longest line bronze reads, in bytes without the line break; a file with a
 *     longer line is recorded as a bad file, never truncated, skipped silently or read into memory
 *     (JSON lines; for CSV, the longest record in characters; Parquet and Avro have no lines)
 * @param discovery how new files are found ({@code source.discovery}, {@code source.queueUrl},
 *     {@code source.backfillInterval})
 */
public record SourceConfig(
    String path,
    String format,
    StructType schema,
    String rescuedDataColumn,
    SchemaEvolutionMode schemaEvolutionMode,
    SourceOptions options,
    long maxLineBytes,
    SourceDiscovery discovery) {

  public static final String FORMAT_DEFAULT = "json";
  public static final String RESCUED_DATA_COLUMN_DEFAULT = ReservedNames.RESCUED_DATA_DEFAULT;

  /**
   * 128 MiB. A line of that size was measured to pass under the launcher's default heap ({@code
   * -Xmx4g}): 2.4 GB live for a string, 3.5 GB for an array of small numbers (bronze/README.md, Big
   * lines).
   */
  public static final long MAX_LINE_BYTES_DEFAULT = 128L << 20;

  /**
   * 1 GiB, the most {@code source.maxLineBytes} may be: Spark copies a line into row buffers that
   * double in size, and no JVM array holds more than 2 GiB, whatever the heap.
   */
  public static final long MAX_LINE_BYTES_MAX = 1L << 30;

  /** A listing source. */
  public SourceConfig(
      String path,
      String format,
      StructType schema,
      String rescuedDataColumn,
      SchemaEvolutionMode schemaEvolutionMode,
      SourceOptions options,
      long maxLineBytes) {
    this(
        path,
        format,
        schema,
        rescuedDataColumn,
        schemaEvolutionMode,
        options,
        maxLineBytes,
        SourceDiscovery.LISTING);
  }

  /** The same source with the default line-length limit. */
  public SourceConfig(
      String path,
      String format,
      StructType schema,
      String rescuedDataColumn,
      SchemaEvolutionMode schemaEvolutionMode,
      SourceOptions options) {
    this(
        path,
        format,
        schema,
        rescuedDataColumn,
        schemaEvolutionMode,
        options,
        MAX_LINE_BYTES_DEFAULT);
  }

  /** A source with the default line-length limit. */
  public static SourceConfig of(
      String path,
      String format,
      String schema,
      String rescuedDataColumn,
      SchemaEvolutionMode schemaEvolutionMode,
      Map<String, Object> options) {
    return of(
        path,
        format,
        schema,
        rescuedDataColumn,
        schemaEvolutionMode,
        options,
        null,
        null,
        null,
        null);
  }

  @JsonCreator
  public static SourceConfig of(
      @Help(
              "The directory files land in: s3a://bucket/prefix/, a local directory or a file: URI; nested directories are read.")
          @JsonProperty("path")
          String path,
      @Help(
              value =
                  "The files' format: json (JSON lines; .gz, .bz2 and other Hadoop codecs by file extension), parquet, avro (Avro needs spark-avro on plain Spark) or csv (options header, sep, quote, escape, encoding).",
              defaultValue = "json",
              type = "json | parquet | avro | csv")
          @JsonProperty("format")
          String format,
      @Help(
              value = "The explicit schema in Spark DDL, e.g. \"order_id BIGINT, status STRING\".",
              type = "Spark DDL")
          @JsonProperty("schema")
          String schema,
      @Help(
              value = "The column that keeps, as JSON, every field that does not fit the schema.",
              defaultValue = "_rescued_data")
          @JsonProperty("rescuedDataColumn")
          String rescuedDataColumn,
      @Help(
              value =
                  "What a field the schema does not declare does: rescue keeps it in the rescued-data column; failOnNewColumns stops the run naming it.",
              defaultValue = "rescue",
              type = "rescue | failOnNewColumns")
          @JsonProperty("schemaEvolutionMode")
          SchemaEvolutionMode schemaEvolutionMode,
      @Help(
              value =
                  "Auto Loader and file-source options (maxFilesPerTrigger, maxBytesPerTrigger, maxFileAge, pathGlobFilter, cleanSource, ...) and, for csv, header, sep, quote, escape and encoding: see bronze/README.md, Auto Loader options and Formats.",
              type = "mapping")
          @JsonProperty("options")
          Map<String, Object> options,
      @Help(
              value =
                  "The longest line bronze reads, without its line break; a file with a longer line is recorded as a bad file, never truncated.",
              defaultValue = "128m",
              type = "size (bytes, or with k, m, g)")
          @JsonProperty("maxLineBytes")
          Object maxLineBytes,
      @Help(
              value =
                  "How bronze finds new files: listing lists source.path every run; notifications reads the S3 event notifications of source.queueUrl and lists only for a backfill.",
              defaultValue = "listing",
              type = "listing | notifications")
          @JsonProperty("discovery")
          String discovery,
      @Help(
              value =
                  "Notification mode: the URL of the SQS queue that receives the bucket's s3:ObjectCreated:* notifications.",
              type = "URL")
          @JsonProperty("queueUrl")
          String queueUrl,
      @Help(
              value =
                  "Notification mode: how often a backfill listing of source.path catches files whose notification never came.",
              defaultValue = "1 day",
              type = "interval ('12 hours', '30 minutes', '1 week')")
          @JsonProperty("backfillInterval")
          Object backfillInterval) {
    if (path == null || path.isBlank()) {
      throw ConfigErrors.missing("source.path", "give the directory files land in");
    }
    if (schema == null || schema.isBlank()) {
      throw ConfigErrors.missing(
          "source.schema",
          "replaysafe needs an explicit schema in Spark DDL, e.g."
              + " \"order_id BIGINT, source_version BIGINT, status STRING\"");
    }
    StructType parsed;
    try {
      parsed = StructType.fromDDL(schema);
    } catch (Exception e) { // Spark's ParseException is checked, but thrown from Scala unchecked
      throw ConfigErrors.rule(
          "source.schema \"" + schema + "\" is not valid Spark DDL: " + firstLine(e),
          "write it as \"name TYPE, ...\", e.g. \"order_id BIGINT, status STRING\"",
          e);
    }
    Map<String, String> raw = new LinkedHashMap<>();
    if (options != null) {
      options.forEach((k, v) -> raw.put(k, v == null ? null : String.valueOf(v)));
    }
    return new SourceConfig(
        StoragePaths.normalize("source.path", path),
        format == null ? FORMAT_DEFAULT : format.toLowerCase(Locale.ROOT),
        parsed,
        rescuedDataColumn == null ? RESCUED_DATA_COLUMN_DEFAULT : rescuedDataColumn,
        schemaEvolutionMode == null ? SchemaEvolutionMode.RESCUE : schemaEvolutionMode,
        SourceOptions.of(raw),
        maxLineBytes == null ? MAX_LINE_BYTES_DEFAULT : maxLineBytes(maxLineBytes),
        SourceDiscovery.of(discovery, queueUrl, backfillInterval));
  }

  /** The files' format, parsed from {@code format} (which the constructor checked). */
  public SourceFormat fileFormat() {
    return SourceFormat.of(format);
  }

  /** True in notification mode ({@code source.discovery: notifications}). */
  public boolean notifications() {
    return discovery.notifications();
  }

  private static long maxLineBytes(Object value) {
    long bytes = byteSize("source.maxLineBytes", value);
    if (bytes < 1 || bytes > MAX_LINE_BYTES_MAX) {
      throw maxLineBytesOutOfRange(value);
    }
    return bytes;
  }

  private static ConfigException maxLineBytesOutOfRange(Object value) {
    return ConfigErrors.badValue(
        "source.maxLineBytes",
        value,
        "is out of range",
        "give a size from 1 byte to 1g (1073741824); the default is 128m (134217728)");
  }

  /**
   * A size in bytes: a whole number, or a string with a binary unit ({@code 128m}, {@code 1g},
   * {@code 512k}, {@code 100b}; 1k = 1024 bytes).
   */
  static long byteSize(String key, Object value) {
    if (value instanceof Integer || value instanceof Long) {
      return ((Number) value).longValue();
    }
    java.util.regex.Matcher size =
        java.util.regex.Pattern.compile(
                "(\\d{1,18})\\s*([kmg]?)b?", java.util.regex.Pattern.CASE_INSENSITIVE)
            .matcher(value instanceof String text ? text.strip() : "");
    if (size.matches()) {
      int shift =
          switch (size.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
          };
      long number = Long.parseLong(size.group(1));
      return number > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : number << shift;
    }
    throw ConfigErrors.badValue(
        key,
        value,
        "is not a size",
        "write a number of bytes (134217728) or a number with a binary unit (128m, 1g)");
  }

  public SourceConfig {
    if (discovery == null) {
      discovery = SourceDiscovery.LISTING;
    }
    if (maxLineBytes < 1 || maxLineBytes > MAX_LINE_BYTES_MAX) {
      throw maxLineBytesOutOfRange(maxLineBytes);
    }
    SourceFormat fileFormat = SourceFormat.of(format);
    format = fileFormat.key();
    if (fileFormat != SourceFormat.CSV && !options.formatOptions().isEmpty()) {
      throw ConfigErrors.rule(
          "source.options."
              + options.formatOptions().keySet().iterator().next()
              + " is a CSV option, but source.format is "
              + format,
          "remove it, or set source.format: csv");
    }
    if (rescuedDataColumn.isBlank()) {
      throw ConfigErrors.rule("source.rescuedDataColumn is blank", "omit it for _rescued_data");
    }
    if (!rescuedDataColumn.equals(RESCUED_DATA_COLUMN_DEFAULT)) {
      ReservedNames.clash(rescuedDataColumn)
          .ifPresent(
              clash -> {
                throw ConfigErrors.reservedName(
                    "source.rescuedDataColumn", rescuedDataColumn, clash);
              });
    }
    for (StructField field : schema.fields()) {
      ReservedNames.clash(field.name(), rescuedDataColumn)
          .ifPresent(
              clash -> {
                throw ConfigErrors.reservedName("source.schema", field.name(), clash);
              });
      checkSupported(field.name(), field.dataType());
      if (fileFormat == SourceFormat.CSV) {
        checkCsv(field.name(), field.dataType());
      }
    }
  }

  /**
   * A CSV value is text: bronze types it as Spark's CSV reader does, which has no nested types and
   * reads VARIANT by guessing a type per file; such columns are refused when the config is loaded.
   */
  private static void checkCsv(String name, DataType type) {
    if (type instanceof StructType
        || type instanceof ArrayType
        || type instanceof MapType
        || type instanceof VariantType) {
      throw ConfigErrors.rule(
          "source.schema column '"
              + name
              + "' has type "
              + type.sql()
              + ", which bronze cannot read from CSV (source.format: csv): a CSV value is flat text",
          "declare it STRING and parse it in silver. Supported for csv: BOOLEAN, TINYINT,"
              + " SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p,s), STRING, BINARY, DATE,"
              + " TIMESTAMP, TIMESTAMP_NTZ");
    }
  }

  /**
   * Refuses, when the config is loaded, every type bronze's JSON parser does not convert, so no run
   * can fail on it later. Supported: BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE,
   * DECIMAL(p,s), STRING, BINARY (base64), DATE, TIMESTAMP, TIMESTAMP_NTZ, VARIANT, and ARRAY, MAP
   * (string keys) and STRUCT of these, nested in any way.
   */
  static void checkSupported(String name, DataType type) {
    if (type instanceof StructType struct) {
      for (StructField f : struct.fields()) {
        checkSupported(name + "." + f.name(), f.dataType());
      }
    } else if (type instanceof ArrayType array) {
      checkSupported(name + "[]", array.elementType());
    } else if (type instanceof MapType map) {
      if (!(map.keyType() instanceof StringType)) {
        throw ConfigErrors.rule(
            "source.schema column '" + name + "' is a map with non-string keys",
            "JSON keys are strings, use MAP<STRING, ...>");
      }
      checkSupported(name + "{}", map.valueType());
    } else if (type instanceof CharType || type instanceof VarcharType) {
      throw unsupported(
          name,
          type,
          "bronze keeps text as it arrived; use STRING (a length limit belongs in silver)");
    } else if (!(type instanceof BooleanType
        || type instanceof ByteType
        || type instanceof ShortType
        || type instanceof IntegerType
        || type instanceof LongType
        || type instanceof FloatType
        || type instanceof DoubleType
        || type instanceof DecimalType
        || type instanceof StringType
        || type instanceof BinaryType
        || type instanceof DateType
        || type instanceof TimestampType
        || type instanceof TimestampNTZType
        || type instanceof VariantType)) {
      throw unsupported(
          name, type, "Spark's JSON reader has no conversion for it that bronze could follow");
    }
  }

  private static ConfigException unsupported(String name, DataType type, String why) {
    return ConfigErrors.unreadableType(name, type.sql(), why);
  }

  /** The first line of a message; Spark's parse errors start with a line break. */
  static String firstLine(Throwable e) {
    String message = String.valueOf(e.getMessage()).strip();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
