package io.replaysafe.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.monotonically_increasing_id;

import io.replaysafe.bronze.SourceSample;
import io.replaysafe.common.Columns;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.config.StoragePaths;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.draft.Candidate;
import io.replaysafe.silver.draft.CandidateFinder;
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
 * {@code replaysafe init}: drafts a pipeline file from sample files. The schema is Spark's own JSON
 * schema inference over the sample ({@link SourceSample}); keys and sequence columns are not chosen
 * but proposed ({@link CandidateFinder}), each with the evidence the sample gives, because only the
 * user knows what identifies a row. Reads the source, writes nothing.
 */
public final class PipelineDraft {
  public static final int SAMPLE_FILES_DEFAULT = 20;
  public static final long SAMPLE_BYTES_DEFAULT = 64L << 20;

  private PipelineDraft() {}

  /**
   * What the sample showed.
   *
   * @param schema Spark's inference over the sample, less {@code _corrupt_record} and reserved
   *     names
   * @param reservedDropped inferred columns whose names bronze reserves (they will be rescued)
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
      List<Candidate> sequences) {}

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
    String path = StoragePaths.normalize("--source", source);
    SparkSessions.applyStorage(spark, storage);
    SourceSample.Newest sample = SourceSample.newest(spark, path, maxFiles, maxBytes);
    SourceSample.DraftSchema drafted = SourceSample.draftSchema(spark, sample);

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
        SourceSample.parse(spark, sample, atomic)
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
          candidates.sequences());
    } finally {
      rows.unpersist();
    }
  }
}
