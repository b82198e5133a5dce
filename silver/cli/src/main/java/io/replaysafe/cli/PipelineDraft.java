package io.replaysafe.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.lag;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.monotonically_increasing_id;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

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
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;
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

  /** Share of consecutive rows (arrival order) in which a sequence must not decrease. */
  static final double INCREASING_SHARE = 0.9;

  private static final int MAX_PAIRS = 40;
  private static final String ARRIVAL = "__arrival";

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
      StringBuilder y = new StringBuilder();
      y.append("# Drafted by 'replaysafe init' from ")
          .append(sampledFiles.size())
          .append(" sample file(s) (")
          .append(sampleBytes)
          .append(" bytes, ")
          .append(rows)
          .append(" rows")
          .append(corruptRows > 0 ? ", " + corruptRows + " of them not JSON objects" : "")
          .append(") under ")
          .append(source)
          .append(".\n");
      y.append(
          "# THIS FILE DOES NOT RUN YET: choose silver.keys and silver.sequenceBy below (the\n");
      y.append(
          "# candidates found in the sample are listed above each, with the evidence), then\n");
      y.append("# dry-run it: replaysafe plan --config <this file>\n");
      y.append("name: ").append(name).append('\n');
      if (storage.isPresent()) {
        StorageConfig s = storage.get();
        y.append("storage:\n");
        if (s.endpoint() != null) {
          y.append("  endpoint: ").append(s.endpoint()).append('\n');
        }
        y.append("  region: ").append(s.region()).append('\n');
        y.append("  pathStyleAccess: ").append(s.pathStyleAccess()).append('\n');
      } else if (StoragePaths.isS3(source)) {
        y.append("storage:                 # AWS itself; add endpoint: for an emulator\n");
        y.append("  region: ").append(StorageConfig.REGION_DEFAULT).append('\n');
      }
      y.append("source:\n");
      y.append("  path: ").append(source).append('\n');
      y.append("  format: json             # JSON lines\n");
      y.append(
          "  # Spark's JSON schema inference over the sample, as DDL: review it. Whole numbers\n");
      y.append("  # are BIGINT, fractions DOUBLE; timestamps stay STRING until you declare them\n");
      y.append("  # TIMESTAMP. A field the schema does not declare is kept in _rescued_data.\n");
      if (!reservedDropped.isEmpty()) {
        y.append(
                "  # Left out (the names are reserved by bronze; their values land in _rescued_data): ")
            .append(String.join(", ", reservedDropped))
            .append('\n');
      }
      y.append("  schema: >-\n");
      StructField[] fields = schema.fields();
      for (int i = 0; i < fields.length; i++) {
        y.append("    ")
            .append(new StructType(new StructField[] {fields[i]}).toDDL())
            .append(i < fields.length - 1 ? ",\n" : "\n");
      }
      y.append("  rescuedDataColumn: _rescued_data\n");
      y.append("  schemaEvolutionMode: rescue   # or failOnNewColumns\n");
      y.append("# The lake: bronze and silver tables, each with its own checkpoint. Nothing is\n");
      y.append("# written until the first 'replaysafe run'.\n");
      y.append("bronze:\n");
      y.append("  path: ").append(lake).append("/bronze/").append(name).append('\n');
      y.append("  checkpoint: ")
          .append(lake)
          .append("/_checkpoints/bronze/")
          .append(name)
          .append('\n');
      y.append("silver:\n");
      y.append("  path: ").append(lake).append("/silver/").append(name).append('\n');
      y.append("  checkpoint: ")
          .append(lake)
          .append("/_checkpoints/silver/")
          .append(name)
          .append('\n');
      y.append("  # keys: the column(s) that identify a row. Candidates in the sample:\n");
      appendCandidates(y, keys, "no column is unique, alone or with an increasing column");
      y.append("  keys: []                # CHOOSE, e.g. keys: [")
          .append(keys.isEmpty() ? "id" : keys.get(0).columns().get(0))
          .append("]\n");
      y.append("  # sequenceBy: the column(s) that order versions of a key (the higher wins).\n");
      y.append("  # Candidates in the sample:\n");
      appendCandidates(y, sequences, "no numeric or timestamp column increases in arrival order");
      y.append("  sequenceBy: []          # CHOOSE, e.g. sequenceBy: [")
          .append(
              sequences.stream()
                  .map(c -> c.columns().get(0))
                  .filter(c -> keys.isEmpty() || !keys.get(0).columns().contains(c))
                  .findFirst()
                  .orElse("version"))
          .append("]\n");
      y.append(
          "  onConflict: fail        # same key and sequence, different payload: fail | quarantine\n");
      y.append(
          "  onInvalid: fail         # null key or sequence, malformed line: fail | quarantine\n");
      y.append("  # applyAsDeletes: \"op = 'DELETE'\"   # optional: which rows are deletes\n");
      return y.toString();
    }

    private static void appendCandidates(StringBuilder y, List<Candidate> found, String none) {
      if (found.isEmpty()) {
        y.append("  #   (none: ").append(none).append(")\n");
      }
      for (Candidate c : found) {
        y.append("  #   [")
            .append(String.join(", ", c.columns()))
            .append("]  ")
            .append(c.evidence())
            .append('\n');
      }
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
    StructType atomic = new StructType();
    for (StructField field : schema.fields()) {
      if (isKeyType(field.dataType()) || isSequenceType(field.dataType())) {
        atomic = atomic.add(field);
      }
    }
    if (atomic.isEmpty()) {
      atomic = atomic.add("__replaysafe_probe", DataTypes.StringType);
    }
    SourceConfig sourceConfig =
        SourceConfig.of(path, "json", atomic.toDDL(), null, SchemaEvolutionMode.RESCUE, null);
    Dataset<Row> rows =
        SampleParse.bronzeRows(spark, sourceConfig, files)
            .withColumn(ARRIVAL, monotonically_increasing_id())
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      long total = rows.count();
      Dataset<Row> valid = rows.where(col(Columns.CORRUPT_RECORD).isNull());
      long validRows = valid.count();
      Candidates candidates = candidates(valid, atomic, validRows);
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
          candidates.keys,
          candidates.sequences);
    } finally {
      rows.unpersist();
    }
  }

  /** Spark's own JSON schema inference over the files, default options. */
  public static StructType inferSchema(SparkSession spark, List<String> files) {
    return spark.read().format("json").load(files.toArray(String[]::new)).schema();
  }

  private record Candidates(List<Candidate> keys, List<Candidate> sequences) {}

  /**
   * @param timestamps a string column whose every value reads as a timestamp
   */
  private record ColumnStats(
      String name, DataType type, long nonNull, long distinct, boolean timestamps) {
    boolean orderable() {
      return isSequenceType(type) || timestamps;
    }

    /** The value compared for order: timestamps held in strings compare as timestamps. */
    Column value() {
      return timestamps ? asTimestamp(name) : col(q(name));
    }
  }

  private static Column asTimestamp(String column) {
    return org.apache.spark.sql.functions.expr("try_cast(" + q(column) + " AS TIMESTAMP)");
  }

  private static Candidates candidates(Dataset<Row> valid, StructType schema, long rows) {
    if (rows == 0) {
      return new Candidates(List.of(), List.of());
    }
    List<StructField> atomic = new ArrayList<>();
    for (StructField f : schema.fields()) {
      if (isKeyType(f.dataType()) || isSequenceType(f.dataType())) {
        atomic.add(f);
      }
    }
    List<ColumnStats> stats = new ArrayList<>();
    if (!atomic.isEmpty()) {
      List<Column> aggs = new ArrayList<>();
      for (StructField f : atomic) {
        aggs.add(count(col(q(f.name()))));
        aggs.add(countDistinct(col(q(f.name()))));
        aggs.add(f.dataType() instanceof StringType ? count(asTimestamp(f.name())) : lit(-1L));
      }
      Row r = valid.agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(Column[]::new)).first();
      for (int i = 0; i < atomic.size(); i++) {
        long nonNull = r.getLong(3 * i);
        stats.add(
            new ColumnStats(
                atomic.get(i).name(),
                atomic.get(i).dataType(),
                nonNull,
                r.getLong(3 * i + 1),
                nonNull > 0 && r.getLong(3 * i + 2) == nonNull));
      }
    }
    Dataset<Row> ordered =
        valid.select(
            col("*"),
            struct(col(Columns.SOURCE_FILE_MTIME), col(Columns.SOURCE_FILE), col(ARRIVAL))
                .as("__order"));

    // Sequence columns: orderable, never null, and not decreasing in arrival order (overall or
    // within a repeating key).
    List<ColumnStats> orderable =
        stats.stream().filter(s -> s.orderable() && s.nonNull == rows).toList();
    // Timestamps identify moments, not rows: unique ones are a coincidence of the sample.
    List<ColumnStats> identifying =
        stats.stream()
            .filter(s -> isKeyType(s.type) && !s.timestamps && !isTimeType(s.type))
            .filter(s -> s.nonNull == rows)
            .toList();
    List<ColumnStats> repeating =
        identifying.stream().filter(s -> s.distinct > 1 && s.distinct < rows).toList();
    List<Candidate> keys = new ArrayList<>();
    for (ColumnStats s : identifying) {
      if (s.distinct == rows) {
        keys.add(
            new Candidate(
                List.of(s.name),
                "unique in the sample: " + s.distinct + " distinct values in " + rows + " rows"));
      }
    }
    List<Candidate> sequences = new ArrayList<>();
    // (key, sequence) pairs unique together, where the sequence never decreases within the key.
    List<String[]> versioned = new ArrayList<>();
    for (String[] pair : uniquePairs(valid, repeating, orderable, rows)) {
      ColumnStats seq = orderable.stream().filter(o -> o.name.equals(pair[1])).findFirst().get();
      if (decreases(ordered, seq.value(), pair[0]) == 0) {
        versioned.add(pair);
      }
    }
    // Both ways round (a, b) and (b, a): a key has more distinct values than its versions.
    List<String[]> oneWay = new ArrayList<>();
    for (String[] pair : versioned) {
      boolean reverse =
          versioned.stream().anyMatch(p -> p[0].equals(pair[1]) && p[1].equals(pair[0]));
      if (!reverse || distinct(stats, pair[0]) >= distinct(stats, pair[1])) {
        oneWay.add(pair);
      }
    }
    versioned = oneWay;
    for (ColumnStats seq : orderable) {
      long globalDrops = decreases(ordered, seq.value(), null);
      List<String> within = new ArrayList<>();
      for (String[] pair : versioned) {
        if (pair[1].equals(seq.name)) {
          within.add(pair[0]);
        }
      }
      String typeNote =
          seq.timestamps
              ? "STRING holding timestamps (declare it TIMESTAMP in the schema to order by time); "
              : seq.type.sql() + "; ";
      if (!within.isEmpty()) {
        // Within a key is what the contract compares: listed first, and said so even when it
        // also holds overall.
        sequences.add(
            (int) sequences.stream().filter(c -> c.evidence().contains("within each")).count(),
            new Candidate(
                List.of(seq.name),
                typeNote
                    + "never decreases within each "
                    + String.join(" or ", within)
                    + " in arrival order; no nulls"));
      } else if (globalDrops == 0) {
        sequences.add(
            new Candidate(
                List.of(seq.name), typeNote + "never decreases in arrival order; no nulls"));
      } else if (rows > 1 && 1.0 - (double) globalDrops / (rows - 1) >= INCREASING_SHARE) {
        sequences.add(
            new Candidate(
                List.of(seq.name),
                typeNote
                    + "mostly increasing: decreases "
                    + globalDrops
                    + " time(s) in "
                    + (rows - 1)
                    + " consecutive rows of arrival order (late or replayed data?); no nulls"));
      }
    }
    for (String[] pair : versioned) {
      ColumnStats key = repeating.stream().filter(s -> s.name.equals(pair[0])).findFirst().get();
      boolean sequenceListed =
          sequences.stream().anyMatch(c -> c.columns().equals(List.of(pair[1])));
      if (sequenceListed) {
        keys.add(
            new Candidate(
                List.of(pair[0]),
                "repeats ("
                    + key.distinct
                    + " distinct values in "
                    + rows
                    + " rows) and is unique together with sequence "
                    + pair[1]
                    + ": one row per version"));
      }
    }
    // One entry per key column: the first evidence found is the strongest.
    List<Candidate> distinctKeys = new ArrayList<>();
    Set<List<String>> seenKeys = new HashSet<>();
    for (Candidate c : keys) {
      if (seenKeys.add(c.columns())) {
        distinctKeys.add(c);
      }
    }
    return new Candidates(distinctKeys, sequences);
  }

  private static long distinct(List<ColumnStats> stats, String column) {
    return stats.stream().filter(s -> s.name.equals(column)).findFirst().get().distinct;
  }

  /** (key, sequence) column pairs that are unique together in the sample. */
  private static List<String[]> uniquePairs(
      Dataset<Row> valid, List<ColumnStats> keys, List<ColumnStats> sequences, long rows) {
    List<String[]> pairs = new ArrayList<>();
    for (ColumnStats k : keys) {
      for (ColumnStats s : sequences) {
        // A sequence unique on its own makes every pair unique: no evidence about the key.
        if (!k.name.equals(s.name) && s.distinct < rows && pairs.size() < MAX_PAIRS) {
          pairs.add(new String[] {k.name, s.name});
        }
      }
    }
    if (pairs.isEmpty()) {
      return List.of();
    }
    List<Column> aggs = new ArrayList<>();
    for (String[] p : pairs) {
      aggs.add(countDistinct(col(q(p[0])), col(q(p[1]))));
    }
    Row r = valid.agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(Column[]::new)).first();
    List<String[]> unique = new ArrayList<>();
    for (int i = 0; i < pairs.size(); i++) {
      if (r.getLong(i) == rows) {
        unique.add(pairs.get(i));
      }
    }
    return unique;
  }

  /** How often the column decreases from one row to the next in arrival order (within a key). */
  private static long decreases(Dataset<Row> ordered, Column value, String partitionKey) {
    var window =
        partitionKey == null
            ? Window.orderBy(col("__order"))
            : Window.partitionBy(col(q(partitionKey))).orderBy(col("__order"));
    Row r =
        ordered
            .select(when(value.lt(lag(value, 1).over(window)), lit(1)).otherwise(lit(0)).as("d"))
            .agg(sum(col("d")))
            .first();
    return r.isNullAt(0) ? 0 : r.getLong(0);
  }

  private static boolean isKeyType(DataType type) {
    return !(type instanceof FloatType
            || type instanceof DoubleType
            || type instanceof BooleanType
            || type instanceof BinaryType)
        && (type instanceof StringType
            || type == DataTypes.LongType
            || type == DataTypes.IntegerType
            || type == DataTypes.ShortType
            || type == DataTypes.ByteType
            || type instanceof DecimalType
            || type instanceof DateType
            || type instanceof TimestampType);
  }

  private static boolean isTimeType(DataType type) {
    return type instanceof DateType || type instanceof TimestampType;
  }

  private static boolean isSequenceType(DataType type) {
    return type == DataTypes.LongType
        || type == DataTypes.IntegerType
        || type == DataTypes.ShortType
        || type == DataTypes.ByteType
        || type instanceof DecimalType
        || type instanceof DoubleType
        || type instanceof FloatType
        || type instanceof DateType
        || type instanceof TimestampType;
  }

  static String q(String column) {
    return "`" + column.replace("`", "``") + "`";
  }
}
