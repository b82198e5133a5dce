package io.replaysafe.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.not;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.CommitTags;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.spark.SparkSessions;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Column;
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
      throw SilverErrors.noBronzeTable(config.name(), bronzePath);
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
    long bronzeVersion = latestVersion(bronzePath);
    SilverCheckpoint.Reading checkpoint =
        new SilverCheckpoint(
                config.requireSilver().checkpoint(), spark.sparkContext().hadoopConfiguration())
            .read();
    OptionalLong processed = checkpoint.processedThrough();
    List<BatchReport> reports;
    if (processed.isPresent() && processed.getAsLong() >= bronzeVersion) {
      // A scheduled run with nothing new: starting the query would only find that out slowly.
      LOG.info(
          "silver {}: the checkpoint has processed bronze through version {}, the newest; no"
              + " stream started",
          config.name(),
          processed.getAsLong());
      reports = List.of();
    } else {
      SilverBatchProcessor processor = new SilverBatchProcessor(spark, contract, tables);
      if (!checkpoint.batchPending()) {
        processor.noInterruptedAttempt();
      }
      reports = stream(processor, bronzePath, processed, bronzeVersion);
    }
    long purged = contract.isHistory() ? 0 : purgeTombstones(tables, contract);
    SilverResult result =
        new SilverResult(
            config.name(),
            reports,
            purged,
            latestVersion(config.requireSilver().path()),
            (System.nanoTime() - started) / 1e9);
    LOG.info("{}", result.summary());
    return result;
  }

  /** The availableNow query over bronze; the reports of the batches it ran. */
  private List<BatchReport> stream(
      SilverBatchProcessor processor,
      String bronzePath,
      OptionalLong processed,
      long bronzeVersion) {
    List<BatchReport> reports = Collections.synchronizedList(new ArrayList<>());

    // One read of bronze's table properties decides both the source options and the filter.
    boolean changeFeed = changeFeedEnabled(bronzePath);
    var reader = spark.readStream().format("delta");
    if (changeFeed) {
      reader = reader.option("readChangeFeed", "true").option("startingVersion", "0");
    }
    Dataset<Row> bronze = reader.load(bronzePath);
    if (changeFeed) {
      // Bronze only appends events. The one change replaysafe itself makes to bronze rows is the
      // backfill of rescued values (bronze --promote-rescued): not an event, so skipped here. Any
      // other update or delete reaches the batch, which stops on it unless ignoreBronzeChanges.
      Column backfill =
          col("_change_type")
              .notEqual("insert")
              .and(
                  col("_commit_version")
                      .isin(promotionVersions(bronzePath, processed, bronzeVersion).toArray()));
      bronze = bronze.where(not(backfill));
    }
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
      throw SilverErrors.runFailed(config, e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw SilverErrors.runFailed(config, e);
    }
    return List.copyOf(reports);
  }

  private long latestVersion(String path) {
    return DeltaTables.latestVersion(spark, path);
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
        throw SilverErrors.bronzeNotEvolved(
            config.name(),
            f.name() + " " + f.dataType().sql(),
            bronzePath,
            index.isEmpty()
                ? "has no such column yet"
                : "has it as " + bronze.fields()[(Integer) index.get()].dataType().sql());
      }
    }
  }

  /**
   * Bronze versions written by {@code bronze --promote-rescued} (tagged in their commit info) among
   * those the stream can read: after {@code processed} when the checkpoint tells how far it got,
   * else all. Only those commits are read: bronze's whole history grows by a commit per run (a run
   * every five minutes keeps 8,640 within Delta's default 30-day log retention), and reading it all
   * was a Spark job over every commit file on each silver run. {@code history(n)} reads the newest
   * n commits when it runs: when bronze committed since {@code latest} was read and they no longer
   * reach back to the first unprocessed version, the whole history is read instead. A version
   * committed after the look is not in the list: its backfill rows then stop the batch as a bronze
   * change, and the next run reads it.
   */
  private List<Long> promotionVersions(String bronzePath, OptionalLong processed, long latest) {
    DeltaTable bronze = DeltaTable.forPath(spark, bronzePath);
    if (processed.isPresent()) {
      long after = processed.getAsLong();
      List<Row> unread =
          bronze
              .history((int) Math.min(Integer.MAX_VALUE, Math.max(1, latest - after)))
              .select("version", "userMetadata")
              .collectAsList();
      if (unread.stream().anyMatch(r -> r.getLong(0) <= after + 1)) {
        return unread.stream()
            .filter(r -> r.getLong(0) > after && promotion(r.getString(1)))
            .map(r -> r.getLong(0))
            .toList();
      }
    }
    // history() reads every commit eagerly.
    return bronze.history().select("version", "userMetadata").collectAsList().stream()
        .filter(r -> promotion(r.getString(1)))
        .map(r -> r.getLong(0))
        .toList();
  }

  private static boolean promotion(String userMetadata) {
    return userMetadata != null && userMetadata.contains(CommitTags.PROMOTE_RESCUED);
  }

  private boolean changeFeedEnabled(String bronzePath) {
    return "true".equals(DeltaTables.property(spark, bronzePath, "delta.enableChangeDataFeed"));
  }

  /**
   * Drops tombstones older than {@code tombstoneRetention}. After that, an insert older than the
   * delete that arrives later can bring the key back: retention must exceed the latest data.
   */
  private long purgeTombstones(SilverTables tables, SilverContract contract) {
    if (!tables.mayHoldTombstones()) {
      return 0;
    }
    Timestamp cutoff =
        new Timestamp(
            System.currentTimeMillis() - contract.silver().tombstoneRetention().toMillis());
    String condition = "__deleted_at < timestamp'" + cutoff.toInstant() + "'";
    // One DELETE, no count before it: Delta skips every file whose statistics hold no expired
    // tombstone, and a DELETE that removes nothing commits nothing.
    long expired =
        spark
            .sql(
                "DELETE FROM "
                    + DeltaTables.tableName(contract.tombstonePath())
                    + " WHERE "
                    + condition)
            .first()
            .getLong(0);
    if (expired > 0) {
      LOG.info(
          "Purged {} tombstone(s) older than {}", expired, contract.silver().tombstoneRetention());
    }
    return Math.max(expired, 0);
  }
}
