package io.replaysafe.bronze;

import io.replaysafe.bronze.PendingFiles.PendingFile;
import io.replaysafe.common.Columns;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SchemaEvolutionMode;
import io.replaysafe.common.config.SourceConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
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
   * Spark's own JSON schema inference over the sample, less the names bronze reserves. A sample of
   * files named as another format's ({@code .csv}, {@code .parquet}, ...) is refused, naming it:
   * JSON inference would find nothing in them, and say only that.
   */
  public static DraftSchema draftSchema(SparkSession spark, Newest sample) {
    for (String file : sample.files()) {
      formatByName(file)
          .ifPresent(
              format -> {
                throw BronzeErrors.draftNeedsJsonLines(format, file, sample.path());
              });
    }
    StructType inferred = inferSchema(spark, sample.files());
    StructType schema = new StructType();
    List<String> dropped = new ArrayList<>();
    for (StructField field : inferred.fields()) {
      if (io.replaysafe.common.ReservedNames.clash(field.name()).isEmpty()) {
        schema = schema.add(field);
      } else if (!Columns.CORRUPT_RECORD.equals(field.name())) {
        dropped.add(field.name());
      }
    }
    if (schema.isEmpty()) {
      throw BronzeErrors.noSchemaInSample(sample.files().size(), sample.path());
    }
    return new DraftSchema(schema, dropped);
  }

  /** The format a file's name says it is in, when not JSON lines (codec extensions ignored). */
  static java.util.Optional<String> formatByName(String file) {
    String name = file.substring(file.lastIndexOf('/') + 1).toLowerCase(java.util.Locale.ROOT);
    name = name.replaceFirst("\\.(gz|bz2|deflate|lz4|snappy|zst)$", "");
    for (String format : List.of("csv", "tsv", "parquet", "avro")) {
      if (name.endsWith("." + format)) {
        return java.util.Optional.of("tsv".equals(format) ? "csv" : format);
      }
    }
    return java.util.Optional.empty();
  }

  /** Spark's own JSON schema inference over the files, default options. */
  public static StructType inferSchema(SparkSession spark, List<String> files) {
    return spark.read().format("json").load(files.toArray(String[]::new)).schema();
  }

  /** The sample's rows under {@code schema} as bronze parses them (rescue mode), not cached. */
  public static Dataset<Row> parse(SparkSession spark, Newest sample, StructType schema) {
    SourceConfig source =
        SourceConfig.of(
            sample.path(), "json", schema.toDDL(), null, SchemaEvolutionMode.RESCUE, null);
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
