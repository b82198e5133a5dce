package io.replaysafe.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.monotonically_increasing_id;

import io.replaysafe.bronze.PendingFiles;
import io.replaysafe.bronze.PendingFiles.PendingFile;
import io.replaysafe.bronze.SampleParse;
import io.replaysafe.common.Columns;
import io.replaysafe.common.ConfigException;
import io.replaysafe.common.config.SchemaEvolutionMode;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.config.StoragePaths;
import io.replaysafe.common.spark.SparkSessions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code replaysafe init}: drafts a pipeline file from sample files. The schema is Spark's own JSON
 * schema inference over the sample; keys and sequence columns are not chosen but proposed, each
 * with the evidence the sample gives (unique, unique together with a sequence, increasing in
 * arrival order), because only the user knows what identifies a row. Reads the source, writes
 * nothing.
 */
public final class PipelineDraft {
  public static final int SAMPLE_FILES_DEFAULT = 20;
  public static final long SAMPLE_BYTES_DEFAULT = 64L << 20;

  private PipelineDraft() {}

  /** A proposed key or sequence: the column(s) and why. */
  public record Candidate(List<String> columns, String evidence) {
    public Candidate {
      columns = List.copyOf(columns);
    }
  }

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
      List<Candidate> sequences) {

    /**
     * The commented pipeline file. {@code silver.keys} and {@code silver.sequenceBy} are left
     * empty, so the file is refused (naming them) until the user chooses from the candidates.
     */
    public String toYaml() {
      return DraftYaml.of(this);
    }
  }

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
    List<PendingFile> all =
        new ArrayList<>(PendingFiles.list(spark, path, Map.of("recursiveFileLookup", "true")));
    if (all.isEmpty()) {
      throw new ConfigException(
          "Cannot draft a pipeline from "
              + path
              + ": it holds no data files (or does not exist). Point --source at the directory"
              + " your JSON-lines files land in, with at least one file in it.");
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
    List<String> files = chosen.stream().map(PendingFile::path).sorted().toList();

    StructType inferred = inferSchema(spark, files);
    Set<String> reserved = new HashSet<>(Columns.PROVENANCE);
    reserved.add(Columns.CORRUPT_RECORD);
    reserved.add(SourceConfig.RESCUED_DATA_COLUMN_DEFAULT);
    StructType schema = new StructType();
    List<String> dropped = new ArrayList<>();
    for (StructField field : inferred.fields()) {
      if (!reserved.contains(field.name())) {
        schema = schema.add(field);
      } else if (!Columns.CORRUPT_RECORD.equals(field.name())) {
        dropped.add(field.name());
      }
    }
    if (schema.isEmpty()) {
      throw new ConfigException(
          "Cannot draft a schema from "
              + files.size()
              + " file(s) under "
              + path
              + ": no line is a JSON object with fields. replaysafe reads JSON lines (one object"
              + " per line); check the files' format.");
    }

    // Candidates are top-level atomic columns: parsing only those (the rest is rescued) is
    // cheaper and keeps nested values out of the statistics.
    StructType atomic = new StructType(CandidateFinder.atomic(schema).toArray(StructField[]::new));
    if (atomic.isEmpty()) {
      atomic = atomic.add("__replaysafe_probe", DataTypes.StringType);
    }
    SourceConfig sourceConfig =
        SourceConfig.of(path, "json", atomic.toDDL(), null, SchemaEvolutionMode.RESCUE, null);
    Dataset<Row> rows =
        SampleParse.bronzeRows(spark, sourceConfig, files)
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
          files,
          bytes,
          total,
          total - validRows,
          schema,
          dropped,
          candidates.keys(),
          candidates.sequences());
    } finally {
      rows.unpersist();
    }
  }

  /** Spark's own JSON schema inference over the files, default options. */
  public static StructType inferSchema(SparkSession spark, List<String> files) {
    return spark.read().format("json").load(files.toArray(String[]::new)).schema();
  }
}
