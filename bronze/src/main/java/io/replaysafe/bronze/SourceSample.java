package io.replaysafe.bronze;

import io.replaysafe.bronze.PendingFiles.PendingFile;
import io.replaysafe.common.Columns;
import io.replaysafe.common.config.CsvOptions;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SchemaEvolutionMode;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.config.SourceFormat;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * Samples of a landing path read the way bronze reads them: the newest files and their inferred
 * schema (what {@code replaysafe init} drafts a pipeline from), and the files bronze would ingest
 * next parsed by bronze's parser (what {@code replaysafe plan} checks). Reads; writes nothing.
 */
public final class SourceSample {
  private SourceSample() {}

  /** The newest files under a path: at most a number of files, and a byte budget past the first. */
  public record Newest(String path, List<String> files, long bytes) {
    public Newest {
      files = List.copyOf(files);
    }
  }

  /**
   * The schema a draft starts from: Spark's inference over the sample, less {@code _corrupt_record}
   * and the names bronze reserves.
   *
   * @param reservedDropped inferred columns whose names bronze reserves (they will be rescued)
   */
  public record DraftSchema(StructType schema, List<String> reservedDropped) {
    public DraftSchema {
      reservedDropped = List.copyOf(reservedDropped);
    }
  }

  /**
   * The newest files under {@code path} (at most {@code maxFiles}, and no more than {@code
   * maxBytes} beyond the first), sorted by path.
   */
  public static Newest newest(SparkSession spark, String path, int maxFiles, long maxBytes) {
    List<PendingFile> all =
        new ArrayList<>(PendingFiles.list(spark, path, Map.of("recursiveFileLookup", "true")));
    if (all.isEmpty()) {
      throw BronzeErrors.nothingToSample(path);
    }
    // The newest files show the data's current shape.
    all.sort(
        Comparator.comparing(PendingFile::modified).thenComparing(PendingFile::path).reversed());
    List<PendingFile> chosen = new ArrayList<>();
    long bytes = 0;
    for (PendingFile file : all) {
      if (chosen.size() >= maxFiles || (!chosen.isEmpty() && bytes + file.bytes() > maxBytes)) {
        break;
      }
      chosen.add(file);
      bytes += file.bytes();
    }
    return new Newest(path, chosen.stream().map(PendingFile::path).sorted().toList(), bytes);
  }

  /**
   * The format a sample is read in, and the reader options that go with it ({@code sep} for
   * tab-separated files).
   */
  public record SampleFormat(SourceFormat format, Map<String, String> options) {
    public SampleFormat {
      options = Map.copyOf(options);
    }

    /** A format with its default options. */
    public static SampleFormat of(SourceFormat format) {
      return new SampleFormat(format, Map.of());
    }
  }

  /**
   * The format the sample's file names say: {@code .csv} and {@code .tsv} (tab-separated) files are
   * CSV, {@code .parquet} Parquet, {@code .avro} Avro (a codec's extension after it ignored), any
   * other name JSON lines. A sample whose names say two formats is refused, naming a file of each.
   */
  public static SampleFormat formatOf(Newest sample) {
    String first = null;
    String firstKind = null;
    for (String file : sample.files()) {
      String kind = kindByName(file).orElse("json");
      if (first == null) {
        first = file;
        firstKind = kind;
      } else if (!kind.equals(firstKind)) {
        throw BronzeErrors.mixedSample(sample.path(), firstKind, first, kind, file);
      }
    }
    return switch (firstKind == null ? "json" : firstKind) {
      case "tsv" -> new SampleFormat(SourceFormat.CSV, Map.of("sep", "\t"));
      case "csv" -> SampleFormat.of(SourceFormat.CSV);
      case "parquet" -> SampleFormat.of(SourceFormat.PARQUET);
      case "avro" -> SampleFormat.of(SourceFormat.AVRO);
      default -> SampleFormat.of(SourceFormat.JSON);
    };
  }

  /**
   * The schema a draft starts from: Spark's own schema inference over the sample in its format (for
   * CSV with a header line and {@code inferSchema}; Parquet's and Avro's from the files' own
   * schemas), less the names bronze reserves. Whole numbers are drafted BIGINT in every format, as
   * JSON inference drafts them, so a value past INT's range in a later file is not rescued.
   */
  public static DraftSchema draftSchema(SparkSession spark, Newest sample, SampleFormat format) {
    StructType inferred = inferSchema(spark, sample.files(), format);
    StructType schema = new StructType();
    List<String> dropped = new ArrayList<>();
    for (StructField field : inferred.fields()) {
      if (io.replaysafe.common.ReservedNames.clash(field.name()).isEmpty()) {
        schema = schema.add(format.format() == SourceFormat.CSV ? wholeAsBigint(field) : field);
      } else if (!Columns.CORRUPT_RECORD.equals(field.name())) {
        dropped.add(field.name());
      }
    }
    if (schema.isEmpty()) {
      throw BronzeErrors.noSchemaInSample(sample.files().size(), sample.path(), format.format());
    }
    return new DraftSchema(schema, dropped);
  }

  private static StructField wholeAsBigint(StructField field) {
    return field.dataType() instanceof IntegerType
        ? new StructField(field.name(), DataTypes.LongType, field.nullable(), field.metadata())
        : field;
  }

  /**
   * What a file's name says its format is: {@code csv}, {@code tsv}, {@code parquet} or {@code
   * avro}; empty for any other name (JSON lines). A codec's extension after it is ignored.
   */
  static java.util.Optional<String> kindByName(String file) {
    String name = file.substring(file.lastIndexOf('/') + 1).toLowerCase(java.util.Locale.ROOT);
    name = name.replaceFirst("\\.(gz|bz2|deflate|lz4|snappy|zst)$", "");
    for (String kind : List.of("csv", "tsv", "parquet", "avro")) {
      if (name.endsWith("." + kind)) {
        return java.util.Optional.of(kind);
      }
    }
    return java.util.Optional.empty();
  }

  /** Spark's own JSON schema inference over the files, default options. */
  public static StructType inferSchema(SparkSession spark, List<String> files) {
    return inferSchema(spark, files, SampleFormat.of(SourceFormat.JSON));
  }

  /**
   * Spark's own schema inference over the files in their format: JSON's defaults; CSV with the
   * header line naming the columns and {@code inferSchema} typing them; Parquet's schemas merged
   * across the files; Avro's from its reader.
   */
  public static StructType inferSchema(
      SparkSession spark, List<String> files, SampleFormat format) {
    String[] paths = files.toArray(String[]::new);
    return switch (format.format()) {
      case JSON -> spark.read().format("json").load(paths).schema();
      case CSV -> {
        CsvOptions csv = CsvOptions.of(format.options());
        yield spark
            .read()
            .format("csv")
            .option("header", csv.header())
            .option("inferSchema", true)
            .option("sep", csv.sep())
            .option("quote", String.valueOf(csv.quote()))
            .option("escape", String.valueOf(csv.escape()))
            .option("encoding", csv.encoding())
            .option("multiLine", true)
            .load(paths)
            .schema();
      }
      case PARQUET -> spark.read().option("mergeSchema", true).parquet(paths).schema();
      case AVRO -> {
        try {
          yield spark.read().format("avro").load(paths).schema();
        } catch (Exception e) { // Scala throws AnalysisException, checked in Java, unchecked
          if (String.valueOf(e.getMessage()).contains("Failed to find data source: avro")) {
            throw BronzeErrors.avroMissing(e);
          }
          throw e;
        }
      }
    };
  }

  /** The sample's rows under {@code schema} as bronze parses them (rescue mode), not cached. */
  public static Dataset<Row> parse(
      SparkSession spark, Newest sample, StructType schema, SampleFormat format) {
    SourceConfig source =
        SourceConfig.of(
            sample.path(),
            format.format().key(),
            schema.toDDL(),
            null,
            SchemaEvolutionMode.RESCUE,
            new java.util.TreeMap<String, Object>(format.options()));
    return SampleParse.bronzeRows(spark, source, sample.files());
  }

  /**
   * The files bronze would ingest next, and the first of them parsed as bronze would parse them.
   * Close it to release the cached rows.
   *
   * @param sampled the files parsed (the first pending ones, in the order bronze takes them)
   * @param rows the sample's bronze rows, cached; null when nothing is pending
   * @param parse the summary of {@code rows}; null when nothing is pending
   */
  public record Next(
      PendingFiles pending, List<String> sampled, Dataset<Row> rows, SampleParse parse)
      implements AutoCloseable {
    public Next {
      sampled = List.copyOf(sampled);
    }

    @Override
    public void close() {
      if (rows != null) {
        rows.unpersist();
      }
    }
  }

  /** What bronze would ingest next, with a parsed sample of at most the given files and bytes. */
  public static Next next(
      SparkSession spark, PipelineConfig pipeline, int sampleFiles, long sampleBytes) {
    PendingFiles pending = PendingFiles.of(spark, pipeline);
    List<String> sampled =
        pending.sample(sampleFiles, sampleBytes).stream().map(PendingFile::path).toList();
    if (sampled.isEmpty()) {
      return new Next(pending, sampled, null, null);
    }
    // Parsed in rescue mode even under failOnNewColumns, so the plan reports every new field
    // (and what else the sample holds) instead of stopping at the first, as the run would.
    SourceConfig source = pipeline.source();
    SourceConfig rescuing =
        new SourceConfig(
            source.path(),
            source.format(),
            source.schema(),
            source.rescuedDataColumn(),
            SchemaEvolutionMode.RESCUE,
            source.options(),
            source.maxLineBytes());
    Dataset<Row> rows =
        SampleParse.bronzeRows(spark, rescuing, sampled).persist(StorageLevel.MEMORY_AND_DISK());
    try {
      return new Next(
          pending,
          sampled,
          rows,
          SampleParse.summarize(rows, source, sampled.size(), pipeline.evidence()));
    } catch (Exception e) { // SparkException is checked, but thrown from Scala unchecked
      rows.unpersist();
      throw e;
    }
  }
}
