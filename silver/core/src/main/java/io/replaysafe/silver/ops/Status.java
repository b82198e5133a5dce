package io.replaysafe.silver.ops;

import static org.apache.spark.sql.functions.col;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.Columns;
import io.replaysafe.common.StorageErrors;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.ContractHistory;
import io.replaysafe.silver.SilverCheckpoint;
import java.io.IOException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What a green job does not say (seed 004): how fresh the source is, what has not been ingested or
 * promoted yet, how the last runs ended, and what waits in quarantine. With a maximum lag it says
 * whether an alert is due.
 */
public final class Status {
  private final PipelineConfig config;
  private final SparkSession spark;

  public Status(PipelineConfig config, SparkSession spark) {
    this.config = config;
    this.spark = spark;
  }

  /**
   * @param oldestPending the oldest input not yet in silver: a file not ingested or a bronze commit
   *     not processed (null when everything is promoted)
   */
  public record Report(
      Instant newestSourceFile,
      long sourceFiles,
      long filesNotIngested,
      Long bronzeVersion,
      Long silverProcessedVersion,
      long bronzeVersionsPending,
      Instant oldestPending,
      List<String> lastRuns,
      Map<String, Long> openQuarantine,
      List<String> alerts,
      List<String> contractHistory) {}

  public Report execute(Duration maxLag, Instant now) {
    SparkSessions.applyStorage(spark, config.storage());
    List<Instant> pendingTimes = new ArrayList<>();
    Set<String> ingested = new HashSet<>();
    Long bronzeVersion = null;
    String bronzePath = config.bronze().path();
    if (DeltaTables.exists(spark, bronzePath)) {
      spark
          .read()
          .format("delta")
          .load(bronzePath)
          .select(Columns.SOURCE_FILE)
          .distinct()
          .collectAsList()
          .forEach(r -> ingested.add(normalize(r.getString(0))));
      bronzeVersion = DeltaTables.latestVersion(spark, bronzePath);
    }
    long files = 0;
    long notIngested = 0;
    Instant newest = null;
    try {
      Path source = new Path(config.source().path());
      FileSystem fs = source.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (fs.exists(source)) {
        RemoteIterator<LocatedFileStatus> it = fs.listFiles(source, true);
        while (it.hasNext()) {
          LocatedFileStatus f = it.next();
          files++;
          Instant mtime = Instant.ofEpochMilli(f.getModificationTime());
          newest = newest == null || mtime.isAfter(newest) ? mtime : newest;
          if (!ingested.contains(normalize(f.getPath().toString()))) {
            notIngested++;
            pendingTimes.add(mtime);
          }
        }
      }
    } catch (IOException e) {
      throw StorageErrors.cannotList("source.path", config.source().path(), e);
    }

    Long processed = null;
    long pendingVersions = 0;
    List<String> lastRuns = new ArrayList<>();
    Map<String, Long> quarantine = new LinkedHashMap<>();
    List<String> alerts = new ArrayList<>();
    if (config.silver().isPresent()) {
      // What silver has processed is what its stream's checkpoint says, not the run log: an
      // operation (repair, reconcile, a release) logs applied rows at bronze's newest version
      // while the stream may be stuck behind a rejected batch.
      var checkpoint =
          new SilverCheckpoint(
                  config.requireSilver().checkpoint(), spark.sparkContext().hadoopConfiguration())
              .read()
              .committedThrough();
      processed = checkpoint.isPresent() ? checkpoint.getAsLong() : null;
      String runsPath = config.requireSilver().runsPath();
      if (DeltaTables.exists(spark, runsPath)) {
        var runs = spark.read().format("delta").load(runsPath);
        runs.orderBy(col("started_at").desc())
            .limit(5)
            .select("started_at", "batch_id", "status", "input_rows", "quarantined", "message")
            .toJSON()
            .collectAsList()
            .forEach(lastRuns::add);
        // A rejection stays an alert until the stream has applied the versions it rejected,
        // whatever was logged after it.
        var stillRejected = runs.where(col("status").equalTo("REJECTED"));
        if (processed != null) {
          stillRejected = stillRejected.where(col("bronze_version_max").gt(processed));
        }
        Row rejected =
            stillRejected
                .orderBy(col("started_at").desc())
                .select("bronze_version_min", "bronze_version_max", "started_at")
                .limit(1)
                .collectAsList()
                .stream()
                .findFirst()
                .orElse(null);
        if (rejected != null) {
          alerts.add(
              "silver REJECTED bronze versions "
                  + rejected.get(0)
                  + "-"
                  + rejected.get(1)
                  + " at "
                  + ((Timestamp) rejected.get(2)).toInstant()
                  + " and its stream has not applied them since (processed through "
                  + (processed == null ? "none" : "version " + processed)
                  + "): see 'replaysafe export --layer runs'");
        }
      }
      if (bronzeVersion != null) {
        long from = processed == null ? 0 : processed + 1;
        for (Row commit :
            DeltaTable.forPath(spark, bronzePath)
                .history()
                .where(
                    col("version")
                        .geq(from)
                        .and(col("operation").isin("STREAMING UPDATE", "WRITE")))
                .select("version", "timestamp")
                .collectAsList()) {
          pendingVersions++;
          pendingTimes.add(((Timestamp) commit.get(1)).toInstant());
        }
      }
      String quarantinePath = config.requireSilver().quarantinePath();
      if (DeltaTables.exists(spark, quarantinePath)) {
        spark
            .read()
            .format("delta")
            .load(quarantinePath)
            .where(col("status").equalTo("OPEN"))
            .groupBy("reason")
            .count()
            .orderBy("reason")
            .collectAsList()
            .forEach(r -> quarantine.put(r.getString(0), r.getLong(1)));
      }
    }
    Instant oldest = pendingTimes.stream().min(Instant::compareTo).orElse(null);
    if (maxLag != null) {
      if (oldest != null && Duration.between(oldest, now).compareTo(maxLag) > 0) {
        alerts.add("input waiting since " + oldest + " is older than --max-lag " + maxLag);
      }
      if (newest == null || Duration.between(newest, now).compareTo(maxLag) > 0) {
        alerts.add("no new source file within --max-lag " + maxLag + " (newest: " + newest + ")");
      }
    }
    return new Report(
        newest,
        files,
        notIngested,
        bronzeVersion,
        processed,
        pendingVersions,
        oldest,
        lastRuns,
        quarantine,
        alerts,
        contractHistory());
  }

  /** One line per contract version: number, rule version, when first used, what changed. */
  private List<String> contractHistory() {
    if (config.silver().isEmpty()) {
      return List.of();
    }
    return ContractHistory.read(spark, config).stream()
        .map(
            v ->
                "version "
                    + v.version()
                    + " ("
                    + v.ruleVersion()
                    + "): first used "
                    + v.firstUsedAt().toInstant()
                    + "; "
                    + v.changes())
        .toList();
  }

  private static String normalize(String path) {
    return new Path(path).toUri().normalize().toString();
  }
}
