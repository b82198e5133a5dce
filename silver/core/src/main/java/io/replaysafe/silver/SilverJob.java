package io.replaysafe.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.not;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.Columns;
import io.replaysafe.common.CommitTags;
import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.FencedLogStore;
import io.replaysafe.common.lease.FrozenListings;
import io.replaysafe.common.spark.ContinuousTrigger;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.spark.InterpretedMode;
import io.replaysafe.common.spark.SparkSessions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.Snapshot;
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

  /** How often a continuous run purges expired tombstones between batches. */
  static final Duration PURGE_EVERY = Duration.ofHours(1);

  private final PipelineConfig config;
  private final SparkSession spark;
  // Null for an availableNow run.
  private final ContinuousTrigger continuous;
  private final BatchListener onBatch;
  // Null unless afterBronzeAt.
  private final Long bronzeVersionSeen;

  private SilverJob(
      PipelineConfig config,
      SparkSession spark,
      ContinuousTrigger continuous,
      BatchListener onBatch,
      Long bronzeVersionSeen) {
    this.config = config;
    this.spark = spark;
    this.continuous = continuous;
    this.onBatch = onBatch;
    this.bronzeVersionSeen = bronzeVersionSeen;
  }

  public static SilverJob from(PipelineConfig config, SparkSession spark) {
    config.requireSilver();
    return new SilverJob(config, spark, null, (report, landed) -> {}, null);
  }

  /**
   * The same job running until {@code trigger} asks it to stop, reading bronze's commits as they
   * land, one micro-batch every interval. Each batch's report goes to {@code onBatch} as the batch
   * ends and is not kept (a run of days would keep thousands): the result lists no batches. Expired
   * tombstones are purged between batches, at most every {@link #PURGE_EVERY}.
   */
  public SilverJob continuous(ContinuousTrigger trigger, BatchListener onBatch) {
    return new SilverJob(config, spark, trigger, onBatch, bronzeVersionSeen);
  }

  /** Told of each silver batch that read rows, as it ends. */
  @FunctionalInterface
  public interface BatchListener {
    /**
     * @param oldestLanded the modification time of the oldest source file among the batch's rows
     *     (its freshness is measured from there), or null when unknown
     */
    void batchDone(BatchReport report, Instant oldestLanded);
  }

  /**
   * The same job told the bronze version the bronze run just before it, in this JVM, ended at (its
   * {@code BronzeResult.bronzeVersion}): when Delta's cached snapshot of bronze is at that version,
   * silver takes bronze's schema, properties and version from it instead of listing bronze's log
   * again. Bronze is written only under the pipeline's lease, which this run holds.
   */
  public SilverJob afterBronzeAt(long bronzeVersion) {
    return new SilverJob(config, spark, continuous, onBatch, bronzeVersion);
  }

  public SilverResult execute() {
    // Every silver file the run writes (MERGE, compaction, quarantine, run log) in small pages.
    try (KeyPages pages = KeyPages.apply(spark)) {
      return run();
    }
  }

  private SilverResult run() {
    long started = System.nanoTime();
    SparkSessions.applyStorage(spark, config.storage());
    String bronzePath = config.bronze().path();
    Snapshot bronze =
        (bronzeVersionSeen == null
                ? DeltaTables.snapshot(spark, bronzePath)
                : DeltaTables.snapshotAt(spark, bronzePath, bronzeVersionSeen))
            .orElseThrow(() -> SilverErrors.noBronzeTable(config.name(), bronzePath));
    ContractHistory.Resolved resolved = ContractHistory.resolve(spark, config);
    SilverContract contract = resolved.contract();
    requireBronzeSchema(bronzePath, bronze);
    SilverTables tables = new SilverTables(spark, contract);
    if (resolved.toRecord().isPresent()) {
      // A contract version is recorded only after every table was created or evolved to it: when
      // the contract is the recorded one, they were, and looking (a read of each table's log)
      // would find nothing to do.
      tables.ensureExist();
    }
    SilverCheckpoint.Reading checkpoint =
        new SilverCheckpoint(
                config.requireSilver().checkpoint(), spark.sparkContext().hadoopConfiguration())
            .read();
    if (checkpoint.inFlightRecord()) {
      // Before any other write: a batch another command left part-way is undone across its
      // tables. The checkpoint's listing shows whether such a record exists.
      InFlightBatch.of(spark, config.requireSilver().checkpoint()).recover();
    }
    // Recorded after the tables evolved: a run stopped in between evolves nothing the next time
    // and records the version then.
    ContractHistory.record(spark, resolved);
    Truncates truncates = new Truncates(spark, contract);
    if (truncates.enabled()) {
      truncates.ensureExists();
    }
    TargetTable target = TargetTable.of(spark, contract, tables, truncates);
    long bronzeVersion = bronze.version();
    OptionalLong processed = checkpoint.processedThrough();
    List<BatchReport> reports;
    if (continuous == null && processed.isPresent() && processed.getAsLong() >= bronzeVersion) {
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
      Runnable purge = target::expireState;
      BronzeRetention.Start start = BronzeRetention.check(spark, config, checkpoint, bronze);
      Runnable compact = () -> SmallFiles.compact(spark, contract);
      // The commits the run's snapshot of bronze lists after the checkpoint: read once, for both
      // the run's size and (with bronze's change feed) its versions that are not events.
      Optional<BronzeCommits> unread =
          processed.isPresent()
              ? BronzeCommits.after(
                  bronze, processed.getAsLong(), spark.sparkContext().hadoopConfiguration())
              : Optional.empty();
      // A continuous query runs for days on one setting, and its batches' size is not known when
      // it starts: only a scheduled run of few new rows is interpreted.
      Optional<Long> newRows =
          continuous == null ? unread.flatMap(BronzeCommits::rowsAdded) : Optional.empty();
      try (InterpretedMode mode = InterpretedMode.forNewRows(newRows, spark);
          FrozenListings.Scope frozen = bronzeFrozenForScheduledRun()) {
        if (mode.interpreted()) {
          LOG.info(
              "silver {}: {} new bronze row(s), at most {}: Spark interprets this run's queries"
                  + " instead of generating code for them",
              config.name(),
              newRows.get(),
              InterpretedMode.maxRows());
        }
        reports = stream(processor, purge, compact, bronze, processed, start, unread);
      }
      if (continuous == null && !reports.isEmpty()) {
        // After the run's last checkpoint commit, under the lease the command holds: the small
        // files this run's batches added are compacted once enough of them gathered, so the next
        // run's MERGE opens fewer files. Nothing is read when there are too few.
        compact.run();
        io.replaysafe.common.CrashPoints.maybeCrash(
            io.replaysafe.common.CrashPoints.SILVER_AFTER_SMALL_FILES);
      }
    }
    long purged = target.expireState();
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

  /**
   * Bronze's log listed once while a scheduled run's query reads it: bronze cannot change while the
   * run holds the pipeline's lease and bronze's own query (in a {@code run}) has finished, and
   * Delta's streaming source otherwise lists it again at every step (17 LISTs on S3 in a fresh run
   * with one batch). A continuous query reads a bronze that grows beside it: nothing is frozen.
   */
  private FrozenListings.Scope bronzeFrozenForScheduledRun() {
    return continuous != null
        ? () -> {}
        : FencedLogStore.freezeListing(
            config.bronze().path(), spark.sessionState().newHadoopConf());
  }

  /** The availableNow query over bronze; the reports of the batches it ran. */
  private List<BatchReport> stream(
      SilverBatchProcessor processor,
      Runnable purge,
      Runnable compact,
      Snapshot bronzeSnapshot,
      OptionalLong processed,
      BronzeRetention.Start start,
      Optional<BronzeCommits> unread) {
    List<BatchReport> reports = Collections.synchronizedList(new ArrayList<>());
    String bronzePath = config.bronze().path();
    // Bronze's table properties, from the snapshot the run read, decide both the source options
    // and the filter.
    boolean changeFeed = changeFeedEnabled(bronzeSnapshot);
    var reader = spark.readStream().format("delta");
    if (changeFeed) {
      reader = reader.option("readChangeFeed", "true");
      if (start == BronzeRetention.Start.FROM_VERSION_0) {
        reader = reader.option("startingVersion", "0");
      } else if (start == BronzeRetention.Start.SNAPSHOT) {
        // Without a starting version Delta's change feed begins with the current snapshot, as
        // inserts: every event bronze holds, since bronze only appends.
        LOG.info(
            "silver {}: bronze's first versions are gone from its log; a new checkpoint starts"
                + " from bronze's current snapshot",
            config.name());
      }
    }
    Dataset<Row> bronze = reader.load(bronzePath);
    // Only the contract's columns and bronze's own reach a batch: a column bronze's table gained
    // some other way (an earlier pipeline file, a hand-made ALTER TABLE) cannot steer a decision.
    bronze = bronze.select(columnsRead(bronze.columns()));
    if (changeFeed) {
      // Bronze only appends events. The changes replaysafe itself makes to bronze rows, the
      // backfill of rescued values (bronze --promote-rescued) and an erase, are not events, so
      // they are skipped here. Any other update or delete reaches the batch, which stops on it
      // unless ignoreBronzeChanges.
      Column backfill =
          col(ReservedNames.CHANGE_TYPE)
              .notEqual("insert")
              .and(
                  col(ReservedNames.COMMIT_VERSION)
                      .isin(notEventVersions(bronzeSnapshot, processed, unread).toArray()));
      bronze = bronze.where(not(backfill));
    }
    long[] lastPurge = {System.nanoTime()};
    // Whether a batch of this continuous run was processed since the last compaction check.
    boolean[] batchSinceCompaction = {false};
    VoidFunction2<Dataset<Row>, Long> perBatch =
        (batch, batchId) -> {
          if (continuous != null) {
            // Housekeeping (maintenance:) holds the batch here, before anything is written.
            continuous.awaitTurn("silver");
            // Before anything is written: a process that may no longer write stops here.
            continuous.checkBeforeBatch();
            // Between batches: the previous batch's checkpoint commit is done and this one has
            // written nothing yet, so the compaction's commit sits between two batches' commits.
            if (batchSinceCompaction[0]) {
              batchSinceCompaction[0] = false;
              compact.run();
            }
          }
          // Freshness is measured from landing, so only a continuous run, which reports it per
          // batch, pays for this read of the batch's provenance.
          Instant landed = continuous == null ? null : oldestLanded(batch);
          String runId = spark.sparkContext().getLocalProperty("sql.streaming.queryId");
          spark
              .sparkContext()
              .setJobGroup(
                  "replaysafe-silver-" + config.name(),
                  "silver " + config.name() + " batch " + batchId,
                  false);
          BatchReport report;
          // A continuous run's batches are small as a rule: each is interpreted when the size of
          // the bronze files it reads says it is (a scheduled run decided once, for the run).
          try (InterpretedMode mode =
              InterpretedMode.forBatchBytes(
                  continuous == null ? Optional.empty() : BatchBytes.of(batch),
                  spark,
                  batch.sparkSession())) {
            report = processor.process(batch, batchId, runId == null ? "unknown" : runId);
          }
          if (report != null) {
            batchSinceCompaction[0] = true;
            onBatch.batchDone(report, landed);
            if (continuous == null) {
              reports.add(report);
            }
          }
          if (continuous != null && System.nanoTime() - lastPurge[0] > PURGE_EVERY.toNanos()) {
            lastPurge[0] = System.nanoTime();
            purge.run();
          }
        };
    try {
      StreamingQuery query =
          bronze
              .writeStream()
              .queryName("replaysafe_silver_" + config.name())
              .option("checkpointLocation", config.requireSilver().checkpoint())
              .trigger(continuous == null ? Trigger.AvailableNow() : continuous.readerTrigger())
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

  private Column[] columnsRead(String[] present) {
    // Bronze holds the source columns; derived columns (silver.columns) are computed from them.
    List<String> read = new ArrayList<>(config.sourceColumns());
    read.add(config.source().rescuedDataColumn());
    read.addAll(
        List.of(
            ReservedNames.CORRUPT_RECORD,
            ReservedNames.CORRUPT_RECORD_BASE64,
            ReservedNames.CHANGE_TYPE,
            ReservedNames.COMMIT_VERSION,
            ReservedNames.COMMIT_TIMESTAMP));
    read.addAll(ReservedNames.provenance());
    List<String> available = List.of(present);
    return read.stream()
        .filter(available::contains)
        .map(c -> col(SilverContract.q(c)))
        .toArray(Column[]::new);
  }

  private static Instant oldestLanded(Dataset<Row> batch) {
    if (!List.of(batch.columns()).contains(Columns.SOURCE_FILE_MTIME)) {
      return null;
    }
    Row oldest = batch.agg(min(col(Columns.SOURCE_FILE_MTIME))).first();
    return oldest.isNullAt(0) ? null : oldest.getTimestamp(0).toInstant();
  }

  private long latestVersion(String path) {
    return DeltaTables.latestVersion(spark, path);
  }

  /**
   * The bronze table must hold source.schema's columns at their types: after a schema change,
   * bronze evolves its table on its next run, and silver cannot read a column bronze does not have
   * yet.
   */
  private void requireBronzeSchema(String bronzePath, Snapshot snapshot) {
    // Bronze's latest metadata tells without a DataFrame over the table (on S3, a search for its
    // root and a listing of its log) when every column is there at its type, as on nearly every
    // run. Its schema may carry Delta's internal field metadata, which the DataFrame's drops and
    // which a nested struct's equality would see: anything short of a match is decided on the
    // DataFrame's schema, as before.
    if (holdsSourceColumns(snapshot.schema())) {
      return;
    }
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

  private boolean holdsSourceColumns(StructType bronze) {
    for (StructField f : config.source().schema().fields()) {
      var index = bronze.getFieldIndex(f.name());
      if (index.isEmpty()
          || !bronze.fields()[(Integer) index.get()].dataType().equals(f.dataType())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Bronze versions written by {@code bronze --promote-rescued} (tagged in their commit info) among
   * those the stream can read: after {@code processed} when the checkpoint tells how far it got,
   * else all. Read from the commit files {@code snapshot} lists ({@link BronzeCommits}) when it
   * lists all of them; otherwise from Delta's history. Only those commits are read: bronze's whole
   * history grows by a commit per run (a run every five minutes keeps 8,640 within Delta's default
   * 30-day log retention), and reading it all was a Spark job over every commit file on each silver
   * run. {@code history(n)} reads the newest n commits when it runs: when bronze committed since
   * {@code latest} was read and they no longer reach back to the first unprocessed version, the
   * whole history is read instead. A version committed after the look is not in the list: its
   * backfill rows then stop the batch as a bronze change, and the next run reads it.
   */
  private List<Long> notEventVersions(
      Snapshot snapshot, OptionalLong processed, Optional<BronzeCommits> listed) {
    if (listed.isPresent()) {
      // The commits the run's snapshot of bronze lists: one GET each, nothing else.
      return listed.get().notEventVersions();
    }
    String bronzePath = config.bronze().path();
    long latest = snapshot.version();
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
            .filter(r -> r.getLong(0) > after && CommitTags.isNotAnEvent(r.getString(1)))
            .map(r -> r.getLong(0))
            .toList();
      }
    }
    // history() reads every commit eagerly.
    return bronze.history().select("version", "userMetadata").collectAsList().stream()
        .filter(r -> CommitTags.isNotAnEvent(r.getString(1)))
        .map(r -> r.getLong(0))
        .toList();
  }

  private static boolean changeFeedEnabled(Snapshot bronze) {
    scala.Option<String> value =
        bronze.metadata().configuration().get("delta.enableChangeDataFeed");
    return value.isDefined() && "true".equals(value.get());
  }
}
