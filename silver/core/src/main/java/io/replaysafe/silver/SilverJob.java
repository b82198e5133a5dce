package io.replaysafe.silver;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.ConfigException;
import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One silver run: bronze is read incrementally (its change feed, under silver's own checkpoint,
 * availableNow) and every micro-batch goes through {@link SilverBatchProcessor}. A rejected batch
 * stops the run with its report; the checkpoint then still points at that batch.
 */
public final class SilverJob {
  private static final Logger LOG = LoggerFactory.getLogger(SilverJob.class);

  private final PipelineConfig config;
  private final SparkSession spark;

  private SilverJob(PipelineConfig config, SparkSession spark) {
    this.config = config;
    this.spark = spark;
  }

  public static SilverJob from(PipelineConfig config, SparkSession spark) {
    config.requireSilver();
    return new SilverJob(config, spark);
  }

  public SilverResult execute() {
    long started = System.nanoTime();
    SparkSessions.applyStorage(spark, config.storage());
    String bronzePath = config.bronze().path();
    if (!DeltaTable.isDeltaTable(spark, bronzePath)) {
      throw new ConfigException(
          "Cannot run silver for pipeline '"
              + config.name()
              + "': there is no bronze table at "
              + bronzePath
              + " yet. Run 'replaysafe bronze' (or 'replaysafe run') first.");
    }
    ContractHistory.Resolved resolved = ContractHistory.resolve(spark, config);
    SilverContract contract = resolved.contract();
    requireBronzeSchema(bronzePath);
    SilverTables tables = new SilverTables(spark, contract);
    tables.ensureExist();
    // Recorded after the tables evolved: a run stopped in between evolves nothing the next time
    // and records the version then.
    ContractHistory.record(spark, resolved);
    Truncates truncates = new Truncates(spark, contract);
    if (truncates.enabled()) {
      truncates.ensureExists();
    }
    SilverBatchProcessor processor = new SilverBatchProcessor(spark, contract, tables);
    List<BatchReport> reports = Collections.synchronizedList(new ArrayList<>());

    var reader = spark.readStream().format("delta");
    if (changeFeedEnabled(bronzePath)) {
      reader = reader.option("readChangeFeed", "true").option("startingVersion", "0");
    }
    Dataset<Row> bronze = reader.load(bronzePath);
    VoidFunction2<Dataset<Row>, Long> perBatch =
        (batch, batchId) -> {
          String runId = spark.sparkContext().getLocalProperty("sql.streaming.queryId");
          spark
              .sparkContext()
              .setJobGroup(
                  "replaysafe-silver-" + config.name(),
                  "silver " + config.name() + " batch " + batchId,
                  false);
          BatchReport report = processor.process(batch, batchId, runId == null ? "unknown" : runId);
          if (report != null) {
            reports.add(report);
          }
        };
    try {
      StreamingQuery query =
          bronze
              .writeStream()
              .queryName("replaysafe_silver_" + config.name())
              .option("checkpointLocation", config.requireSilver().checkpoint())
              .trigger(Trigger.AvailableNow())
              .foreachBatch(perBatch)
              .start();
      query.awaitTermination();
    } catch (StreamingQueryException e) {
      throw failure(e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw failure(e);
    }
    long purged = contract.isHistory() ? 0 : purgeTombstones(tables, contract);
    SilverResult result =
        new SilverResult(
            config.name(),
            List.copyOf(reports),
            purged,
            DeltaTable.forPath(spark, config.requireSilver().path()).history(1).head().getLong(0),
            (System.nanoTime() - started) / 1e9);
    LOG.info("{}", result.summary());
    return result;
  }

  /**
   * The bronze table must hold source.schema's columns at their types: after a schema change,
   * bronze evolves its table on its next run, and silver cannot read a column bronze does not have
   * yet.
   */
  private void requireBronzeSchema(String bronzePath) {
    StructType bronze = DeltaTable.forPath(spark, bronzePath).toDF().schema();
    for (StructField f : config.source().schema().fields()) {
      var index = bronze.getFieldIndex(f.name());
      if (index.isEmpty()
          || !bronze.fields()[(Integer) index.get()].dataType().equals(f.dataType())) {
        throw new ConfigException(
            "Cannot run silver for pipeline '"
                + config.name()
                + "': source.schema declares "
                + f.name()
                + " "
                + f.dataType().sql()
                + ", and the bronze table at "
                + bronzePath
                + (index.isEmpty()
                    ? " has no such column yet"
                    : " has it as " + bronze.fields()[(Integer) index.get()].dataType().sql())
                + ". Run 'replaysafe bronze' (or 'replaysafe run') first: it evolves the bronze"
                + " table to the new schema.");
      }
    }
  }

  private boolean changeFeedEnabled(String bronzePath) {
    var properties =
        DeltaTable.forPath(spark, bronzePath).detail().select("properties").first().getJavaMap(0);
    return "true".equals(String.valueOf(properties.get("delta.enableChangeDataFeed")));
  }

  /**
   * Drops tombstones older than {@code tombstoneRetention}. After that, an insert older than the
   * delete that arrives later can bring the key back: retention must exceed the latest data.
   */
  private long purgeTombstones(SilverTables tables, SilverContract contract) {
    Timestamp cutoff =
        new Timestamp(
            System.currentTimeMillis() - contract.silver().tombstoneRetention().toMillis());
    String condition = "__deleted_at < timestamp'" + cutoff.toInstant() + "'";
    long expired = tables.tombstones().where(condition).count();
    if (expired > 0) {
      tables.tombstoneTable().delete(condition);
      LOG.info(
          "Purged {} tombstone(s) older than {}", expired, contract.silver().tombstoneRetention());
    }
    return expired;
  }

  private RuntimeException failure(Exception e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ReplaysafeException known) {
        return known;
      }
    }
    return new ReplaysafeException(
        "Silver run of pipeline '"
            + config.name()
            + "' failed reading "
            + config.bronze().path()
            + " into "
            + config.requireSilver().path()
            + ": "
            + e.getMessage()
            + ". The silver checkpoint did not advance past the failed batch; fix the cause and"
            + " run again.",
        e);
  }
}
