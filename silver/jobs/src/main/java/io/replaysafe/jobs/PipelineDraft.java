package io.replaysafe.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.monotonically_increasing_id;
import static org.apache.spark.sql.functions.trim;

import io.replaysafe.bronze.SourceSample;
import io.replaysafe.common.Columns;
import io.replaysafe.common.config.SourceFormat;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.config.StoragePaths;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.draft.Candidate;
import io.replaysafe.silver.draft.CandidateFinder;
import io.replaysafe.silver.draft.EnvelopeDraft;
import io.replaysafe.silver.draft.EnvelopeFinder;
import io.replaysafe.silver.draft.EnvelopeShape;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code replaysafe init}: drafts a pipeline file from sample files. The schema is Spark's own
 * schema inference over the sample in its format, JSON lines, CSV, Parquet or Avro ({@link
 * SourceSample}); keys and sequence columns are not chosen but proposed ({@link CandidateFinder}),
 * each with the evidence the sample gives, because only the user knows what identifies a row. A
 * sample of Debezium change events ({@link EnvelopeShape}) is drafted as one ({@link
 * EnvelopeFinder}): derived columns, key, sequence and op mapping chosen, each with its evidence,
 * so the file runs as drafted. Reads the source, writes nothing.
 */
public final class PipelineDraft {
  public static final int SAMPLE_FILES_DEFAULT = 20;
  public static final long SAMPLE_BYTES_DEFAULT = 64L << 20;

  /** Lines read for the row image's column order (Spark's inference sorts fields by name). */
  static final int ORDER_LINES = 100;

  private PipelineDraft() {}

  /**
   * What the sample showed.
   *
   * @param schema Spark's inference over the sample, less {@code _corrupt_record} and reserved
   *     names
   * @param reservedDropped inferred columns whose names bronze reserves (they will be rescued)
   * @param kafkaTombstones lines that are the JSON literal {@code null} (among {@code corruptRows})
   * @param envelope the silver contract drafted for Debezium change events; empty for any other
   *     sample, whose keys and sequences are only proposed
   * @param format the format the sample was read in, with the reader options the draft declares
   */
  public record Draft(
      String name,
      String source,
      Optional<StorageConfig> storage,
      String lake,
      List<String> sampledFiles,
      long sampleBytes,
      long rows,
      long corruptRows,
      StructType schema,
      List<String> reservedDropped,
      List<Candidate> keys,
      List<Candidate> sequences,
      long kafkaTombstones,
      Optional<EnvelopeDraft> envelope,
      SourceSample.SampleFormat format) {}

  /**
   * Samples the newest files under {@code source} (at most {@code maxFiles}, and no more than
   * {@code maxBytes} beyond the first) and drafts the pipeline.
   */
  public static Draft of(
      SparkSession spark,
      String source,
      String name,
      Optional<StorageConfig> storage,
      String lake,
      int maxFiles,
      long maxBytes) {
    return of(spark, source, name, storage, lake, maxFiles, maxBytes, Optional.empty());
  }

  /**
   * The same, reading the sample as {@code format}; without one, in the format its files' names say
   * ({@link SourceSample#formatOf}).
   */
  public static Draft of(
      SparkSession spark,
      String source,
      String name,
      Optional<StorageConfig> storage,
      String lake,
      int maxFiles,
      long maxBytes,
      Optional<SourceFormat> format) {
    String path = StoragePaths.normalize("--source", source);
    SparkSessions.applyStorage(spark, storage);
    SourceSample.Newest sample = SourceSample.newest(spark, path, maxFiles, maxBytes);
    SourceSample.SampleFormat read =
        format.map(SourceSample.SampleFormat::of).orElseGet(() -> SourceSample.formatOf(sample));
    SourceSample.DraftSchema drafted = SourceSample.draftSchema(spark, sample, read);
    // A CSV value is flat text: no envelope can be drafted from it.
    Optional<EnvelopeShape> shape =
        read.format() == SourceFormat.CSV ? Optional.empty() : EnvelopeShape.of(drafted.schema());
    if (shape.isPresent()) {
      Optional<Draft> envelope =
          envelope(
              spark,
              sample,
              drafted,
              shape.get().inColumnOrder(rowImageOrder(spark, sample, read, drafted.schema())),
              name,
              storage,
              lake,
              read);
      if (envelope.isPresent()) {
        return envelope.get();
      }
    }

    // Candidates are top-level atomic columns: parsing only those (the rest is rescued) is
    // cheaper and keeps nested values out of the statistics.
    StructType atomic =
        new StructType(CandidateFinder.atomic(drafted.schema()).toArray(StructField[]::new));
    if (atomic.isEmpty()) {
      // Not a reserved name: the sample's source config must accept it, and it is that config's
      // only column, so no producer field can meet it.
      atomic = atomic.add("replaysafe_probe", DataTypes.StringType);
    }
    Dataset<Row> rows =
        SourceSample.parse(spark, sample, atomic, read)
            .withColumn(CandidateFinder.ARRIVAL, monotonically_increasing_id())
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      long total = rows.count();
      Dataset<Row> valid = rows.where(col(Columns.CORRUPT_RECORD).isNull());
      long validRows = valid.count();
      CandidateFinder.Candidates candidates =
          CandidateFinder.find(valid, List.of(atomic.fields()), validRows);
      return new Draft(
          name,
          path,
          storage,
          lake,
          sample.files(),
          sample.bytes(),
          total,
          total - validRows,
          drafted.schema(),
          drafted.reservedDropped(),
          candidates.keys(),
          candidates.sequences(),
          tombstones(rows, read),
          Optional.empty(),
          read);
    } finally {
      rows.unpersist();
    }
  }

  /** The draft of a sample shaped as Debezium change events, or empty when its ops say not. */
  private static Optional<Draft> envelope(
      SparkSession spark,
      SourceSample.Newest sample,
      SourceSample.DraftSchema drafted,
      EnvelopeShape shape,
      String name,
      Optional<StorageConfig> storage,
      String lake,
      SourceSample.SampleFormat read) {
    Dataset<Row> rows =
        SourceSample.parse(spark, sample, shape.schema(), read)
            .withColumn(CandidateFinder.ARRIVAL, monotonically_increasing_id())
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      long total = rows.count();
      Dataset<Row> valid = rows.where(col(Columns.CORRUPT_RECORD).isNull());
      long validRows = valid.count();
      return EnvelopeFinder.find(valid, shape, validRows)
          .map(
              envelope ->
                  new Draft(
                      name,
                      sample.path(),
                      storage,
                      lake,
                      sample.files(),
                      sample.bytes(),
                      total,
                      total - validRows,
                      shape.schema(),
                      drafted.reservedDropped(),
                      List.of(),
                      List.of(),
                      tombstones(rows, read),
                      Optional.of(envelope),
                      read));
    } finally {
      rows.unpersist();
    }
  }

  /**
   * Lines that are the JSON literal {@code null}: Kafka tombstones, as silver counts them. Only a
   * JSON-lines file holds them (the S3 sink writes none into Avro or Parquet files).
   */
  private static long tombstones(Dataset<Row> rows, SourceSample.SampleFormat read) {
    if (read.format() != SourceFormat.JSON) {
      return 0;
    }
    return rows.where(trim(col(Columns.CORRUPT_RECORD)).equalTo("null")).count();
  }

  /**
   * The row image's fields in the order Debezium writes them (the table's column order): in JSON
   * lines read from the first lines' {@code after} and {@code before} objects (Spark's inference
   * sorts fields by name); in Avro and Parquet the files' own schema keeps the order.
   */
  private static List<String> rowImageOrder(
      SparkSession spark,
      SourceSample.Newest sample,
      SourceSample.SampleFormat read,
      StructType drafted) {
    if (read.format() != SourceFormat.JSON) {
      LinkedHashSet<String> order = new LinkedHashSet<>();
      for (String image : List.of("after", "before")) {
        if (drafted.getFieldIndex(image).isDefined()
            && drafted.apply(image).dataType() instanceof StructType fields) {
          order.addAll(List.of(fields.fieldNames()));
        }
      }
      return new ArrayList<>(order);
    }
    List<Row> lines =
        spark
            .read()
            .text(sample.files().toArray(String[]::new))
            .select(
                expr("json_object_keys(get_json_object(value, '$.after'))").as("after"),
                expr("json_object_keys(get_json_object(value, '$.before'))").as("before"))
            .where("after IS NOT NULL OR before IS NOT NULL")
            .limit(ORDER_LINES)
            .collectAsList();
    LinkedHashSet<String> order = new LinkedHashSet<>();
    for (int image = 0; image < 2; image++) {
      for (Row line : lines) {
        if (!line.isNullAt(image)) {
          order.addAll(line.getList(image));
        }
      }
    }
    return new ArrayList<>(order);
  }
}
