package io.replaysafe.bronze;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_set;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.Columns;
import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SourceConfig;
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
  static final String METRICS = "replaysafe_bronze";

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
    SourceBinding.verifyOrCreate(spark.sparkContext().hadoopConfiguration(), checkpoint, source);
    ensureTable();
    if (!sourceExists(source.path())) {
      LOG.warn("Source path {} does not exist yet; nothing to ingest", source.path());
      return new BronzeResult(config.name(), 0, 0, 0, 0, 0, tableVersion(), seconds(started));
    }

    BadFiles badFiles = new BadFiles(config, spark);
    long reingested = reingestRetriedFiles(badFiles);
    List<StreamingQuery> runs = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    try {
      spark
          .sparkContext()
          .setJobGroup("replaysafe-bronze-" + config.name(), "bronze " + config.name(), false);
      Map<Long, Integer> attempts = new HashMap<>();
      while (true) {
        StreamingQuery query = start(false);
        runs.add(query);
        try {
          query.awaitTermination();
          break;
        } catch (StreamingQueryException e) {
          long batch = skipUnreadableFiles(e, badFiles, skipped, attempts);
          StreamingQuery tolerant = start(true);
          runs.add(tolerant);
          awaitBatch(tolerant, batch);
        }
      }
    } catch (StreamingQueryException e) {
      throw failure(e);
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
    return result;
  }

  private StreamingQuery start(boolean skipUnreadableFiles) {
    try {
      return bronzeRows(skipUnreadableFiles)
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
   * A batch failed. When a file could not be read, every file of that batch is read to its end the
   * way the text source reads it; the unreadable ones are recorded as bad files. Returns the batch,
   * which is then run once more with unreadable files skipped. Any other failure, or the same batch
   * failing again and again, fails the run.
   */
  private long skipUnreadableFiles(
      StreamingQueryException e,
      BadFiles badFiles,
      List<String> skipped,
      Map<Long, Integer> attempts) {
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
        BadFiles.check(conf, file).ifPresent(bad::add);
      }
      if (bad.isEmpty()) {
        // Read whole now: what failed was not the file (or no longer is). Fail, naming it.
        throw failure(e);
      }
      badFiles.record(bad, batch);
      for (BadFiles.BadFile f : bad) {
        LOG.warn(
            "Skipping unreadable file {} in bronze batch {}: {}: {} (recorded in {})",
            f.path(),
            batch,
            f.errorClass(),
            f.errorMessage(),
            badFiles.path());
        if (!skipped.contains(f.path())) {
          skipped.add(f.path());
        }
      }
      return batch;
    } catch (IOException io) {
      throw failure(io);
    }
  }

  /** The path Spark names in FAILED_READ_FILE, if that is what failed. */
  static Optional<String> unreadableFile(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
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
          throw new ReplaysafeException(
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
      Optional<BadFiles.BadFile> still = BadFiles.check(conf, path);
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
        spark.read().format("text").load(readable.toArray(new String[0])).select(METADATA_COLUMNS);
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
    SourceConfig source = config.source();
    StructType schema = source.schema();
    StructType output = BronzeRowMapper.outputSchema(schema, source.rescuedDataColumn());
    String zone = spark.conf().get("spark.sql.session.timeZone");
    return lines
        .as(InternalRowEncoder.of(lines.schema()))
        .mapPartitions(
            new BronzeRowMapper(
                new RescuingJsonParser(schema, source.schemaEvolutionMode(), zone), schema.size()),
            InternalRowEncoder.of(output))
        .toDF();
  }

  /** The streaming bronze rows: parse, rescue, stamp provenance, count. */
  Dataset<Row> bronzeRows(boolean skipUnreadableFiles) {
    SourceConfig source = config.source();
    var reader = spark.readStream().format("text").options(source.options().sparkOptions());
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
   * Creates the bronze table on first use with the change data feed on: silver reads it as a stream
   * of inserts that carry their bronze commit version, for provenance in quarantine.
   */
  private void ensureTable() {
    SourceConfig source = config.source();
    StructType columns =
        BronzeRowMapper.outputSchema(source.schema(), source.rescuedDataColumn())
            .add(Columns.INGESTED_AT, org.apache.spark.sql.types.DataTypes.TimestampType, true);
    StructType nullable = new StructType();
    for (var field : columns.fields()) {
      nullable = nullable.add(field.name(), field.dataType(), true);
    }
    DeltaTable.createIfNotExists(spark)
        .location(config.bronze().path())
        .addColumns(nullable)
        .property("delta.enableChangeDataFeed", "true")
        .comment("replaysafe bronze table of pipeline " + config.name())
        .execute();
    // Tables created before the column existed get it (null in their older rows).
    String path = config.bronze().path();
    if (!java.util.Arrays.asList(DeltaTable.forPath(spark, path).toDF().columns())
        .contains(Columns.CORRUPT_RECORD_BASE64)) {
      spark.sql(
          "ALTER TABLE delta.`"
              + path
              + "` ADD COLUMNS (`"
              + Columns.CORRUPT_RECORD_BASE64
              + "` STRING)");
    }
  }

  private RuntimeException failure(Exception e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ReplaysafeException known) {
        return known;
      }
    }
    return new ReplaysafeException(
        "Bronze run of pipeline '"
            + config.name()
            + "' failed reading "
            + unreadableFile(e).map(f -> "file " + f + " of ").orElse("")
            + config.source().path()
            + " into "
            + config.bronze().path()
            + ": "
            + rootMessage(e)
            + ". The checkpoint "
            + config.bronze().checkpoint()
            + " did not advance past the failed batch; fix the cause and run again.",
        e);
  }

  static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = String.valueOf(root.getMessage());
    int newline = message.indexOf('\n');
    return root.getClass().getSimpleName()
        + ": "
        + (newline < 0 ? message : message.substring(0, newline));
  }

  private boolean sourceExists(String path) {
    try {
      Path p = new Path(path);
      FileSystem fs = p.getFileSystem(spark.sparkContext().hadoopConfiguration());
      return fs.exists(p);
    } catch (IOException e) {
      throw new ReplaysafeException("Cannot list source.path " + path + ": " + e.getMessage(), e);
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
