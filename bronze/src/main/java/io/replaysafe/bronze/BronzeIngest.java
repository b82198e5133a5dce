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
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
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

    StreamingQuery query;
    try {
      spark
          .sparkContext()
          .setJobGroup("replaysafe-bronze-" + config.name(), "bronze " + config.name(), false);
      query =
          bronzeRows()
              .writeStream()
              .format("delta")
              .queryName("replaysafe_bronze_" + config.name())
              .outputMode("append")
              .option("checkpointLocation", checkpoint)
              .trigger(trigger)
              .start(config.bronze().path());
      query.awaitTermination();
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
    BronzeResult result =
        new BronzeResult(
            config.name(),
            batches,
            files,
            rows,
            rescued,
            corrupt,
            tableVersion(),
            seconds(started));
    LOG.info("{}", result.summary());
    // Crash matrix only (no-op unless armed): bronze committed, silver not started.
    io.replaysafe.common.CrashPoints.maybeCrash(
        io.replaysafe.common.CrashPoints.BRONZE_AFTER_CHECKPOINT_COMMIT);
    return result;
  }

  /** The streaming bronze rows: parse, rescue, stamp provenance, count. */
  Dataset<Row> bronzeRows() {
    SourceConfig source = config.source();
    StructType schema = source.schema();
    StructType output = BronzeRowMapper.outputSchema(schema, source.rescuedDataColumn());
    Dataset<Row> lines =
        spark
            .readStream()
            .format("text")
            .options(source.options().sparkOptions())
            .load(source.path())
            .select(
                col("value"),
                col("_metadata.file_path"),
                col("_metadata.file_name"),
                col("_metadata.file_size"),
                col("_metadata.file_modification_time"));
    return lines
        .mapPartitions(
            new BronzeRowMapper(
                new RescuingJsonParser(schema, source.schemaEvolutionMode()), schema.size()),
            Encoders.row(output))
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
