package io.replaysafe.bronze;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_set;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.Columns;
import io.replaysafe.common.StorageErrors;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.spark.DeltaSchemaEvolution;
import io.replaysafe.common.spark.SparkSessions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bronze run: new files under {@code source.path} are parsed against the explicit schema
 * (rescuing what does not fit, keeping malformed lines), stamped with provenance and appended to
 * the bronze Delta table under the pipeline's own checkpoint. The Delta sink commits each
 * micro-batch with the query id and batch id, so a batch replayed after a crash is not appended
 * twice.
 */
public final class BronzeIngest {
  private static final Logger LOG = LoggerFactory.getLogger(BronzeIngest.class);

  /** Name of the metrics each bronze micro-batch reports (rows, rescued, corrupt, files). */
  public static final String METRICS = "replaysafe_bronze";

  private final PipelineConfig config;
  private final SparkSession spark;
  private final Trigger trigger;

  private BronzeIngest(PipelineConfig config, SparkSession spark, Trigger trigger) {
    this.config = config;
    this.spark = spark;
    this.trigger = trigger;
  }

  public static BronzeIngest from(PipelineConfig config, SparkSession spark) {
    return new BronzeIngest(config, spark, Trigger.AvailableNow());
  }

  /** The same job with another trigger (processing-time for a continuously running bronze). */
  public BronzeIngest withTrigger(Trigger other) {
    return new BronzeIngest(config, spark, other);
  }

  public BronzeResult execute() {
    long started = System.nanoTime();
    SparkSessions.applyStorage(spark, config.storage());
    SourceConfig source = config.source();
    String checkpoint = config.bronze().checkpoint();
    var hadoop = spark.sparkContext().hadoopConfiguration();
    SourceBinding.Check binding = SourceBinding.check(hadoop, checkpoint, source);
    ensureTable();
    // The table evolves before the binding records the new version: a run stopped in between
    // finds the table already evolved and only records the version.
    SourceBinding.record(hadoop, binding, source, java.time.Instant.now());
    if (!sourceExists(source.path())) {
      LOG.warn("Source path {} does not exist yet; nothing to ingest", source.path());
      return new BronzeResult(config.name(), 0, 0, 0, 0, 0, tableVersion(), seconds(started));
    }

    BadFiles badFiles = new BadFiles(config, spark);
    java.sql.Timestamp runStarted = new java.sql.Timestamp(System.currentTimeMillis());
    long reingested = reingestRetriedFiles(badFiles);
    List<StreamingQuery> runs = new ArrayList<>();
    try {
      spark
          .sparkContext()
          .setJobGroup("replaysafe-bronze-" + config.name(), "bronze " + config.name(), false);
      Map<Long, Integer> attempts = new HashMap<>();
      while (true) {
        StreamingQuery query = start(false, List.of());
        runs.add(query);
        try {
          query.awaitTermination();
          break;
        } catch (StreamingQueryException e) {
          Skip skip = skipUnreadableFiles(e, badFiles, attempts);
          StreamingQuery tolerant = start(true, skip.wholeFiles());
          runs.add(tolerant);
          awaitBatch(tolerant, skip.batch());
        }
      }
    } catch (StreamingQueryException e) {
      throw BronzeErrors.runFailed(config, e);
    } finally {
      spark.sparkContext().clearJobGroup();
    }

    long batches = 0;
    long files = 0;
    long rows = 0;
    long rescued = 0;
    long corrupt = 0;
    for (StreamingQuery query : runs) {
      for (StreamingQueryProgress progress : query.recentProgress()) {
        Row metrics = progress.observedMetrics().get(METRICS);
        if (metrics == null || progress.numInputRows() == 0 && metrics.getLong(0) == 0) {
          continue;
        }
        batches++;
        rows += metrics.getLong(0);
        rescued += metrics.getLong(1);
        corrupt += metrics.getLong(2);
        files += metrics.getInt(3);
      }
    }
    // Skipped files were recorded where they were found: in a failed batch's tasks, or while a
    // batch was planned (CheckedFileStreamSource). The table is the one list of both.
    List<String> skipped = badFiles.recordedSince(runStarted);
    BronzeResult result =
        new BronzeResult(
            config.name(),
            batches,
            files,
            rows,
            rescued,
            corrupt,
            tableVersion(),
            seconds(started),
            skipped,
            reingested);
    LOG.info("{}", result.summary());
    // Crash matrix only (no-op unless armed): bronze committed, silver not started.
    io.replaysafe.common.CrashPoints.maybeCrash(
        io.replaysafe.common.CrashPoints.BRONZE_AFTER_CHECKPOINT_COMMIT);
    return result;
  }

  private StreamingQuery start(boolean skipUnreadableFiles, List<String> skipWholeFiles) {
    try {
      return bronzeRows(skipUnreadableFiles, skipWholeFiles)
          .writeStream()
          .format("delta")
          .queryName("replaysafe_bronze_" + config.name())
          .outputMode("append")
          .option("checkpointLocation", config.bronze().checkpoint())
          .trigger(trigger)
          .start(config.bronze().path());
    } catch (Exception e) { // TimeoutException, declared by Scala, not by the Java signature
      throw failure(e);
    }
  }

  /**
   * The batch to run once more, skipping its unreadable files.
   *
   * @param wholeFiles files with a line over {@code source.maxLineBytes}: not read at all (other
   *     unreadable files keep the lines read before the damage)
   */
  private record Skip(long batch, List<String> wholeFiles) {}

  /**
   * A batch failed. When a file could not be read, every file of that batch is read to its end the
   * way the text source reads it (with the line-length limit); the unreadable ones are recorded as
   * bad files. Returns the batch, which is then run once more with unreadable files skipped. Any
   * other failure, or the same batch failing again and again, fails the run.
   */
  private Skip skipUnreadableFiles(
      StreamingQueryException e, BadFiles badFiles, Map<Long, Integer> attempts) {
    Optional<String> unreadable = unreadableFile(e);
    if (unreadable.isEmpty()) {
      throw failure(e);
    }
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    String checkpoint = config.bronze().checkpoint();
    try {
      OptionalLong planned = FileSourceLog.lastPlannedBatch(conf, checkpoint);
      if (planned.isEmpty() || attempts.merge(planned.getAsLong(), 1, Integer::sum) > 3) {
        throw failure(e);
      }
      long batch = planned.getAsLong();
      List<BadFiles.BadFile> bad = new ArrayList<>();
      for (String file : FileSourceLog.filesOf(conf, checkpoint, batch)) {
        BadFiles.check(conf, file, config.source().maxLineBytes()).ifPresent(bad::add);
      }
      if (bad.isEmpty()) {
        // Read whole now: what failed was not the file (or no longer is). Fail, naming it.
        throw failure(e);
      }
      badFiles.record(bad, batch);
      List<String> wholeFiles = new ArrayList<>();
      for (BadFiles.BadFile f : bad) {
        if (f.lineTooLong()) {
          wholeFiles.add(f.path());
        }
        LOG.warn(
            "Skipping unreadable file {} in bronze batch {}: {}: {} (recorded in {})",
            f.path(),
            batch,
            f.errorClass(),
            f.errorMessage(),
            badFiles.path());
      }
      return new Skip(batch, wholeFiles);
    } catch (IOException io) {
      throw failure(io);
    }
  }

  /**
   * The path Spark names in FAILED_READ_FILE, or the file with a line over the limit, if that is
   * what failed.
   */
  static Optional<String> unreadableFile(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof LineTooLongException tooLong) {
        return Optional.of(tooLong.path());
      }
      if (t instanceof SparkThrowable st
          && st.getCondition() != null
          && st.getCondition().startsWith("FAILED_READ_FILE")) {
        return Optional.ofNullable(st.getMessageParameters().get("path"));
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return Optional.empty();
  }

  /** Waits until the batch committed, then stops: later batches run without skipping again. */
  private static void awaitBatch(StreamingQuery query, long batch) throws StreamingQueryException {
    while (!query.awaitTermination(250)) {
      StreamingQueryProgress progress = query.lastProgress();
      if (progress != null && progress.batchId() >= batch) {
        try {
          query.stop();
        } catch (java.util.concurrent.TimeoutException e) {
          throw new io.replaysafe.common.ReplaysafeException(
              "Cannot stop the bronze query after batch " + batch + ": " + e.getMessage(), e);
        }
        query.awaitTermination();
        return;
      }
    }
  }

  /**
   * Files someone asked to retry ({@code replaysafe bad-files retry}) are read again, whole, in one
   * Delta append whose transaction version is the latest decision time: a crash before they are
   * marked retried makes the next run's append a no-op instead of a duplicate. A file still
   * unreadable is opened again with its new error.
   */
  private long reingestRetriedFiles(BadFiles badFiles) {
    List<Row> requested = badFiles.retryRequested();
    if (requested.isEmpty()) {
      return 0;
    }
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    List<String> readable = new ArrayList<>();
    long version = 0;
    for (Row r : requested) {
      String path = r.getString(0);
      Optional<BadFiles.BadFile> still = BadFiles.check(conf, path, config.source().maxLineBytes());
      if (still.isPresent()) {
        badFiles.record(List.of(still.get()), -1);
      } else {
        readable.add(path);
        version = Math.max(version, r.getTimestamp(1).getTime());
      }
    }
    if (readable.isEmpty()) {
      return 0;
    }
    Dataset<Row> lines =
        BoundedTextFormat.read(spark, config.source().maxLineBytes())
            .load(readable.toArray(new String[0]))
            .select(METADATA_COLUMNS);
    parsed(lines)
        .withColumn(Columns.INGESTED_AT, current_timestamp())
        .write()
        .format("delta")
        .mode("append")
        .option("txnAppId", "replaysafe-bad-file-retry-" + config.name())
        .option("txnVersion", version)
        .save(config.bronze().path());
    readable.forEach(badFiles::markRetried);
    LOG.info("Re-ingested {} file(s) marked for retry: {}", readable.size(), readable);
    return readable.size();
  }

  private static final Column[] METADATA_COLUMNS = {
    col("value"),
    col("_metadata.file_path"),
    col("_metadata.file_name"),
    col("_metadata.file_size"),
    col("_metadata.file_modification_time")
  };

  /** The lines parsed into bronze rows (without ingestion time). */
  private Dataset<Row> parsed(Dataset<Row> lines) {
    return parseSelected(lines, config.source());
  }

  /**
   * The streaming bronze rows: parse, rescue, stamp provenance, count. Lines are read with the
   * line-length limit ({@link BoundedTextFormat}); {@code skipWholeFiles} are read as empty.
   */
  Dataset<Row> bronzeRows(boolean skipUnreadableFiles, List<String> skipWholeFiles) {
    SourceConfig source = config.source();
    var reader =
        BoundedTextFormat.readStream(spark, source.maxLineBytes(), skipWholeFiles)
            .options(source.options().sparkOptions())
            .option(BoundedTextFormat.BAD_FILES, BadFiles.pathFor(config))
            .option(BoundedTextFormat.PIPELINE, config.name());
    if (skipUnreadableFiles) {
      // Only for the one batch whose unreadable files were just recorded (see execute).
      reader = reader.option("ignoreCorruptFiles", "true").option("ignoreMissingFiles", "true");
    }
    Dataset<Row> lines = reader.load(source.path()).select(METADATA_COLUMNS);
    return parsed(lines)
        .withColumn(Columns.INGESTED_AT, current_timestamp())
        .observe(
            METRICS,
            count(lit(1)).as("rows"),
            count(col(source.rescuedDataColumn())).as("rescued"),
            count(col(Columns.CORRUPT_RECORD)).as("corrupt"),
            size(collect_set(col(Columns.SOURCE_FILE))).as("files"));
  }

  /**
   * The text source's lines parsed into bronze rows. The streaming job and {@code replaysafe
   * plan}'s dry run both go through here, so a plan's sample is parsed exactly as the next run will
   * parse it.
   */
  static Dataset<Row> parse(Dataset<Row> text, SourceConfig source) {
    return parseSelected(text.select(METADATA_COLUMNS), source);
  }

  /** Lines already narrowed to {@link #METADATA_COLUMNS}, parsed into bronze rows. */
  private static Dataset<Row> parseSelected(Dataset<Row> lines, SourceConfig source) {
    StructType schema = source.schema();
    StructType output = BronzeRowMapper.outputSchema(schema, source.rescuedDataColumn());
    String zone = lines.sparkSession().conf().get("spark.sql.session.timeZone");
    return lines
        .as(InternalRowEncoder.of(lines.schema()))
        .mapPartitions(
            new BronzeRowMapper(
                new RescuingJsonParser(schema, source.schemaEvolutionMode(), zone), schema.size()),
            InternalRowEncoder.of(output))
        .toDF();
  }

  /**
   * Creates the bronze table on first use with the change data feed on: silver reads it as a stream
   * of inserts that carry their bronze commit version, for provenance in quarantine. An existing
   * table is evolved to the source's schema (columns added, types widened); the binding check
   * refused every other change before. Delta keeps file statistics only for the schema's own
   * columns ({@link #STATS_COLUMNS_PROPERTY}): nobody skips files on provenance, rescued or corrupt
   * text, and their statistics cost about a quarter of bronze's CPU. The property is the user's to
   * change afterwards ({@code ALTER TABLE ... SET TBLPROPERTIES}); an existing table keeps what it
   * has.
   */
  private void ensureTable() {
    StructType nullable = tableSchema(config.source());
    if (DeltaTable.isDeltaTable(spark, config.bronze().path())) {
      DeltaSchemaEvolution.evolve(spark, config.bronze().path(), nullable, "bronze table");
      return;
    }
    DeltaTable.createIfNotExists(spark)
        .location(config.bronze().path())
        .addColumns(nullable)
        .property("delta.enableChangeDataFeed", "true")
        .property(STATS_COLUMNS_PROPERTY, statsColumns(config.source().schema()))
        .comment("replaysafe bronze table of pipeline " + config.name())
        .execute();
  }

  /** The bronze table's columns for this source, every one nullable. */
  static StructType tableSchema(SourceConfig source) {
    StructType columns =
        BronzeRowMapper.outputSchema(source.schema(), source.rescuedDataColumn())
            .add(Columns.INGESTED_AT, org.apache.spark.sql.types.DataTypes.TimestampType, true);
    StructType nullable = new StructType();
    for (var field : columns.fields()) {
      nullable = nullable.add(field.name(), field.dataType(), true);
    }
    return nullable;
  }

  /** The Delta table property naming the columns Delta collects file statistics on. */
  public static final String STATS_COLUMNS_PROPERTY = "delta.dataSkippingStatsColumns";

  private RuntimeException failure(Exception e) {
    return BronzeErrors.runFailed(config, e);
  }

  /**
   * The schema's top-level columns Delta can collect statistics on, quoted for Delta's column-list
   * syntax. Delta refuses the property (and so the table) when it names a BOOLEAN, BINARY, VARIANT,
   * ARRAY or MAP column, or a struct holding one; with none left, {@code ingested_at}.
   */
  static String statsColumns(StructType schema) {
    String columns =
        java.util.Arrays.stream(schema.fields())
            .filter(f -> skippingEligible(f.dataType()))
            .map(f -> "`" + f.name().replace("`", "``") + "`")
            .collect(java.util.stream.Collectors.joining(","));
    return columns.isEmpty() ? Columns.INGESTED_AT : columns;
  }

  private static boolean skippingEligible(org.apache.spark.sql.types.DataType type) {
    if (type instanceof StructType struct) {
      return java.util.Arrays.stream(struct.fields()).allMatch(f -> skippingEligible(f.dataType()));
    }
    return type instanceof org.apache.spark.sql.types.NumericType
        || type instanceof org.apache.spark.sql.types.StringType
        || type instanceof org.apache.spark.sql.types.DateType
        || type instanceof org.apache.spark.sql.types.TimestampType
        || type instanceof org.apache.spark.sql.types.TimestampNTZType;
  }

  private boolean sourceExists(String path) {
    try {
      Path p = new Path(path);
      FileSystem fs = p.getFileSystem(spark.sparkContext().hadoopConfiguration());
      return fs.exists(p);
    } catch (IOException e) {
      throw StorageErrors.cannotList("source.path", path, e);
    }
  }

  private Long tableVersion() {
    String path = config.bronze().path();
    if (!DeltaTable.isDeltaTable(spark, path)) {
      return null;
    }
    return DeltaTable.forPath(spark, path).history(1).head().getLong(0);
  }

  private static double seconds(long started) {
    return (System.nanoTime() - started) / 1e9;
  }
}
