package io.replaysafe.bronze;

import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.StorageErrors;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.spark.ContinuousTrigger;
import io.replaysafe.common.spark.InterpretedMode;
import io.replaysafe.common.spark.SparkSessions;
import java.io.IOException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bronze run: new files under {@code source.path} are parsed against the explicit schema
 * (rescuing what does not fit, keeping malformed lines), stamped with provenance and appended to
 * the bronze Delta table under the pipeline's own checkpoint. {@link BronzeAppend} commits each
 * micro-batch with the query id and batch id, so a batch replayed after a crash is not appended
 * twice. The rows are {@link BronzeRows}', the table {@link BronzeTable}'s; what to do about a file
 * that cannot be read is {@link BadFileRecovery}'s. This class runs the query and sums it up; an
 * {@code availableNow} run that finds nothing new does not start it ({@link FirstLook}).
 */
public final class BronzeIngest {
  private static final Logger LOG = LoggerFactory.getLogger(BronzeIngest.class);

  /**
   * Name of the metrics each bronze micro-batch observes (rows, rescued, corrupt, oldest landed).
   */
  public static final String METRICS = "replaysafe_bronze";

  private final PipelineConfig config;
  private final SparkSession spark;
  // Null for an availableNow run.
  private final ContinuousTrigger continuous;

  private BronzeIngest(PipelineConfig config, SparkSession spark, ContinuousTrigger continuous) {
    this.config = config;
    this.spark = spark;
    this.continuous = continuous;
  }

  public static BronzeIngest from(PipelineConfig config, SparkSession spark) {
    return new BronzeIngest(config, spark, null);
  }

  /**
   * The same job running until {@code trigger} asks it to stop: its query starts a micro-batch
   * every interval, and a landing path that does not exist yet is looked for again every interval.
   * The result then sums only the batches Spark still keeps the progress of.
   */
  public BronzeIngest continuous(ContinuousTrigger trigger) {
    return new BronzeIngest(config, spark, trigger);
  }

  public BronzeResult execute() {
    long started = System.nanoTime();
    SparkSessions.applyStorage(spark, config.storage());
    SourceConfig source = config.source();
    String checkpoint = config.bronze().checkpoint();
    var hadoop = spark.sparkContext().hadoopConfiguration();
    SourceBinding.Check binding = SourceBinding.check(hadoop, checkpoint, source);
    long versionBefore = BronzeTable.ensure(spark, config);
    // The table evolves before the binding records the new version: a run stopped in between
    // finds the table already evolved and only records the version.
    SourceBinding.record(hadoop, binding, source, Instant.now());
    if (!source.notifications() && !awaitSource(source.path())) {
      return new BronzeResult(config.name(), 0, 0, 0, 0, 0, versionBefore, seconds(started));
    }

    BadFiles badFiles = new BadFiles(config, spark);
    BadFileRecovery recovery = new BadFileRecovery(config, spark, badFiles);
    Timestamp runStarted = new Timestamp(System.currentTimeMillis());
    long badFileRecordsBefore = badFiles.batchRecordsInThisJvm();
    long reingested = recovery.reingestRetriedFiles();
    OptionalLong committedBefore = lastCommitted(hadoop, checkpoint);
    List<StreamingQuery> runs;
    DiscoveryCounts counts;
    try (FileDiscovery discovery = Discoveries.open(config, spark)) {
      Optional<FirstLook> look = lookFirst(discovery, reingested, committedBefore);
      OptionalLong committedAfter;
      if (look.isPresent() && look.get().nothingNew()) {
        LOG.info(
            "Bronze {}: nothing new after batch {}; its query is not started",
            config.name(),
            look.get().after());
        runs = List.of();
        committedAfter = committedBefore;
      } else {
        Discoveries.register(
            checkpoint,
            continuous == null ? discovery : new TurnTakingDiscovery(discovery, continuous),
            look);
        // The run's look tells how much is new: a few small files are read and written with
        // Spark's interpreted evaluation (InterpretedMode), which a fresh JVM runs faster.
        Optional<Long> newBytes =
            look.map(l -> l.files().stream().mapToLong(FileState.Discovered::size).sum());
        try (InterpretedMode mode = InterpretedMode.forNewBytes(newBytes, spark)) {
          runs = runUntilCaughtUp(recovery);
        } finally {
          Discoveries.unregister(checkpoint);
        }
        committedAfter = lastCommitted(hadoop, checkpoint);
      }
      recordCommitted(committedBefore, committedAfter, checkpoint);
      cleanLastBatch(committedBefore, committedAfter, badFiles);
      discovery.committed(committedAfter.orElse(-1));
      counts = discovery.counts();
    }

    Totals totals = new Totals();
    runs.forEach(query -> totals.add(query.recentProgress()));
    // Skipped files were recorded where they were found: in a failed batch's tasks, or while a
    // batch was planned (CheckedFileStreamSource). The table is the one list of both; it is read
    // only when this run recorded any (on S3 a listing of its log, three requests while it does
    // not exist).
    List<String> skipped =
        badFiles.batchRecordsInThisJvm() == badFileRecordsBefore
            ? List.of()
            : badFiles.recordedSince(runStarted);
    // A run that started no query and re-read no file appended nothing: the version it found.
    Long version = runs.isEmpty() && reingested == 0 ? Long.valueOf(versionBefore) : tableVersion();
    BronzeResult result =
        new BronzeResult(
            config.name(),
            totals.batches,
            totals.files,
            totals.rows,
            totals.rescued,
            totals.corrupt,
            version,
            seconds(started),
            skipped,
            reingested,
            counts);
    LOG.info("{}", result.summary());
    // Crash matrix only (no-op unless armed): bronze committed, silver not started.
    CrashPoints.maybeCrash(CrashPoints.BRONZE_AFTER_CHECKPOINT_COMMIT);
    return result;
  }

  /**
   * The run's look for new files before it starts its query ({@link FirstLook}). Only an {@code
   * availableNow} run looks: a continuous run's query keeps looking, trigger after trigger. A run
   * that re-read retried bad files starts its query as before: it is no idle run, the one this look
   * saves the query's start for.
   */
  private Optional<FirstLook> lookFirst(
      FileDiscovery discovery, long reingested, OptionalLong committedBefore) {
    if (continuous != null || reingested > 0) {
      return Optional.empty();
    }
    try {
      spark
          .sparkContext()
          .setJobGroup("replaysafe-bronze-" + config.name(), "bronze " + config.name(), false);
      return FirstLook.take(spark, config, discovery, committedBefore);
    } finally {
      spark.sparkContext().clearJobGroup();
    }
  }

  /**
   * The batches the query committed in this run are recorded in the file state (a run that
   * committed none writes nothing). A run stopped before this leaves them {@value
   * FileState#DISCOVERED}, which {@code replaysafe files} shows as ingested from the checkpoint's
   * commit log, and the next run records them too, even one with nothing new: nothing is read
   * again, the table's commit is the one that counts.
   */
  private void recordCommitted(OptionalLong before, OptionalLong after, String checkpoint) {
    if (after.isPresent() && after.getAsLong() > before.orElse(-1)) {
      FileState.of(spark, checkpoint).markCommitted(after.getAsLong());
    } else if (after.isPresent()) {
      FileState.of(spark, checkpoint).markLeftUnmarked(after.getAsLong());
    }
    // Crash matrix only: batches and file state committed, notifications not yet deleted.
    CrashPoints.maybeCrash(CrashPoints.BRONZE_AFTER_FILE_STATE_COMMIT);
  }

  /**
   * {@code cleanSource} for the run's last batch: Spark cleans a batch's files only when it plans
   * the next one, which an {@code availableNow} run never does for its last.
   */
  private void cleanLastBatch(OptionalLong before, OptionalLong after, BadFiles badFiles) {
    if (after.isPresent() && after.getAsLong() > before.orElse(-1)) {
      SourceCleaner.of(config, spark.sparkContext().hadoopConfiguration())
          .cleanBatch(
              FileState.of(spark, config.bronze().checkpoint()), badFiles, after.getAsLong());
    }
  }

  private static OptionalLong lastCommitted(Configuration hadoop, String checkpoint) {
    try {
      return FileSourceLog.lastCommittedBatch(hadoop, checkpoint);
    } catch (IOException e) {
      throw StorageErrors.cannotAccess("the bronze checkpoint", checkpoint, e);
    }
  }

  /**
   * Runs the query until it has read everything. A batch that fails on an unreadable file is run
   * once more by a query that skips its unreadable files, and only that batch: later batches run
   * strict again, so a new bad file is checked and recorded too, never skipped unseen.
   *
   * @return every query started, for their progress
   */
  private List<StreamingQuery> runUntilCaughtUp(BadFileRecovery recovery) {
    List<StreamingQuery> runs = new ArrayList<>();
    try {
      spark
          .sparkContext()
          .setJobGroup("replaysafe-bronze-" + config.name(), "bronze " + config.name(), false);
      // A continuous run ends when asked to: its query is stopped from outside, and no query of
      // the recovery below may start after that.
      while (continuous == null || !continuous.stopRequested()) {
        StreamingQuery query = start(null);
        runs.add(query);
        try {
          query.awaitTermination();
          return runs;
        } catch (StreamingQueryException e) {
          BadFileRecovery.Skip skip = recovery.afterFailedBatch(e);
          StreamingQuery tolerant = start(skip);
          runs.add(tolerant);
          awaitBatch(tolerant, skip.batch());
        }
      }
      return runs;
    } catch (StreamingQueryException e) {
      throw BronzeErrors.runFailed(config, e);
    } finally {
      spark.sparkContext().clearJobGroup();
    }
  }

  /** The query, strict, or skipping what {@code skip} recorded as bad when it is not null. */
  private StreamingQuery start(BadFileRecovery.Skip skip) {
    try {
      return BronzeRows.stream(spark, config, skip)
          .writeStream()
          .queryName("replaysafe_bronze_" + config.name())
          .outputMode("append")
          .option("checkpointLocation", config.bronze().checkpoint())
          .trigger(continuous == null ? Trigger.AvailableNow() : continuous.trigger())
          .foreachBatch(new BronzeAppend(config.bronze().path()))
          .start();
    } catch (Exception e) { // TimeoutException, declared by Scala, not by the Java signature
      throw BronzeErrors.runFailed(config, e);
    }
  }

  /** Waits until the batch committed, then stops: later batches run without skipping again. */
  private static void awaitBatch(StreamingQuery query, long batch) throws StreamingQueryException {
    while (!query.awaitTermination(250)) {
      StreamingQueryProgress progress = query.lastProgress();
      if (progress != null && progress.batchId() >= batch) {
        try {
          query.stop();
        } catch (TimeoutException e) {
          throw BronzeErrors.cannotStopQuery(batch, e);
        }
        query.awaitTermination();
        return;
      }
    }
  }

  /**
   * The run's counts, summed over every query's batches from their {@link #METRICS}. A batch that
   * produced no row is not counted as a batch.
   */
  private static final class Totals {
    long batches;
    long files;
    long rows;
    long rescued;
    long corrupt;

    void add(StreamingQueryProgress[] progresses) {
      for (StreamingQueryProgress progress : progresses) {
        BronzeBatch.of(progress)
            .ifPresent(
                batch -> {
                  batches++;
                  rows += batch.rows();
                  rescued += batch.rescued();
                  corrupt += batch.corrupt();
                  files += batch.files();
                });
      }
    }
  }

  /**
   * Whether the landing path exists; a continuous run waits for it (an S3 prefix exists only once a
   * file landed under it), until asked to stop.
   */
  private boolean awaitSource(String path) {
    boolean warned = false;
    while (!sourceExists(path)) {
      if (!warned) {
        LOG.warn("Source path {} does not exist yet; nothing to ingest", path);
        warned = true;
      }
      if (continuous == null || !continuous.pause()) {
        return false;
      }
    }
    return true;
  }

  private boolean sourceExists(String path) {
    try {
      Path p = new Path(path);
      FileSystem fs = p.getFileSystem(spark.sparkContext().hadoopConfiguration());
      // A landing path is a directory: asked for first, it is found with one request on S3A, whose
      // plain exists() asks for an object of that name first (a HEAD), then for a directory (a
      // LIST). A file by that name is still found.
      @SuppressWarnings("deprecation")
      boolean found = fs.isDirectory(p) || fs.isFile(p);
      return found;
    } catch (IOException e) {
      throw StorageErrors.cannotList("source.path", path, e);
    }
  }

  private Long tableVersion() {
    return BronzeTable.version(spark, config.bronze().path());
  }

  private static double seconds(long started) {
    return (System.nanoTime() - started) / 1e9;
  }
}
