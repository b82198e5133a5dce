package io.replaysafe.silver;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.CommitTags;
import io.replaysafe.common.lease.LeaseFence;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.actions.AddFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction of the small files silver's batches leave in silver and its state table (tombstones or
 * events), after a run's batches are committed. Every batch of a scheduled run adds a file or two
 * to each table it changes; the next batch's stored-state read and MERGE open every file whose key
 * range overlaps the batch's keys, so without compaction a scheduled run's S3 requests grow run
 * after run (issue 28: silver's data files 18 -> 26 -> 34 requests, the tombstones' 3 -> 7 -> 11 in
 * three rounds at 2,000 rows).
 *
 * <p>When a table holds more than {@link #MOST_SMALL_FILES} files below {@link #SMALL_BYTES}, those
 * files (and only those) are rewritten into one by Delta's own OPTIMIZE, restricted to small files:
 * its commit is {@code dataChange=false} (no reader of the change feed sees it as rows), it keeps
 * the rows' deletion vectors applied, and it retries or gives up on a concurrent change to the
 * files it rewrote. Own code would have to do each of these again. Delta's OPTIMIZE also rewrites a
 * file of any size whose deletion vectors hide more than 5% of its rows; that setting is lifted
 * here, so a file of {@link #SMALL_BYTES} or more is never rewritten by this step ({@code
 * replaysafe maintain --optimize} and {@code maintenance:} still do).
 *
 * <p>Rare by design: the count comes from the snapshot this JVM's own last commit left (the
 * checksum's file list, no request), so a run that finds too few small files pays nothing, and
 * compaction comes once in about every {@link #MOST_SMALL_FILES} runs, not every run.
 */
public final class SmallFiles {
  private static final Logger LOG = LoggerFactory.getLogger(SmallFiles.class);

  /**
   * A file below this size is small. Delta's own OPTIMIZE aims at 1 GiB files; a table of small
   * batches needs far less to stop the growth: 16 MiB is a few seconds of S3 transfer, and a file
   * that big is never rewritten again by this step.
   */
  public static final long SMALL_BYTES = 16L * 1024 * 1024;

  /**
   * Up to this many small files are left alone: the MERGE of a small batch opens a handful of files
   * anyway, and compacting after every run would make every run pay the rewrite.
   */
  public static final int MOST_SMALL_FILES = 4;

  /** The action of the compaction's commit ({@code commitInfo.userMetadata}). */
  public static final String ACTION = "compact-small-files";

  private static final String MIN_FILE_SIZE = "spark.databricks.delta.optimize.minFileSize";
  private static final String MAX_DELETED_ROWS_RATIO =
      "spark.databricks.delta.optimize.maxDeletedRowsRatio";

  /** What one table's compaction did. */
  public record Compacted(String path, long filesRemoved, long filesAdded) {}

  private SmallFiles() {}

  /**
   * Compacts silver's tables (silver, or the history, and its state table) that hold more than
   * {@link #MOST_SMALL_FILES} small files. For a process holding the pipeline's lease, after its
   * batches' checkpoint commits (or between two batches), so nothing of its own commits meanwhile.
   */
  public static List<Compacted> compact(SparkSession spark, SilverContract contract) {
    List<Compacted> done = new ArrayList<>();
    for (String path : List.of(contract.silver().path(), contract.statePath())) {
      compactIfMany(spark, path).ifPresent(done::add);
    }
    return done;
  }

  /**
   * The number of small files in the snapshot of {@code path} this JVM holds, or -1 when it holds
   * none (it never opened the table) or its checksum does not list the files. The snapshot is the
   * one the JVM's own last commit left: no request is made. A table some other process changed
   * since is counted as this JVM last saw it; the compaction itself works on the newest version.
   */
  static int smallFilesKnown(SparkSession spark, String path) {
    Snapshot snapshot = DeltaLog.forTable(spark, path).unsafeVolatileSnapshot();
    if (snapshot.version() < 0) {
      return -1;
    }
    try {
      scala.Option<org.apache.spark.sql.delta.VersionChecksum> checksum = snapshot.checksumOpt();
      if (checksum.isEmpty() || checksum.get().allFiles().isEmpty()) {
        return smallFilesOfState(snapshot);
      }
      int small = 0;
      for (AddFile file :
          scala.jdk.javaapi.CollectionConverters.asJava(checksum.get().allFiles().get())) {
        if (file.size() < SMALL_BYTES) {
          small++;
        }
      }
      return small;
    } catch (LinkageError otherDelta) {
      return smallFilesOfState(snapshot);
    }
  }

  /**
   * The count from the snapshot's state (a Spark job over its log, which the batch's MERGE has
   * usually read already): for a table with more files than Delta lists in its checksum.
   */
  private static int smallFilesOfState(Snapshot snapshot) {
    return (int) snapshot.allFiles().filter("size < " + SMALL_BYTES).count();
  }

  /** Compacts the table's small files when it holds more than {@link #MOST_SMALL_FILES}. */
  public static Optional<Compacted> compactIfMany(SparkSession spark, String path) {
    int small = smallFilesKnown(spark, path);
    if (small <= MOST_SMALL_FILES) {
      return Optional.empty();
    }
    // Before any work: a process that lost the pipeline's lease rewrites nothing. The commit
    // itself goes through the fenced log store, which checks again just before it writes.
    LeaseFence.check("the compaction of small files in " + path);
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(MIN_FILE_SIZE, String.valueOf(SMALL_BYTES));
    // Files are chosen by size alone: a big file with many deleted rows is left to maintain.
    settings.put(MAX_DELETED_ROWS_RATIO, "1.0");
    Row metrics =
        withSettings(
            spark,
            settings,
            () ->
                CommitTags.withUserMetadata(
                    spark,
                    CommitTags.of(ACTION, Map.of("smallFiles", small)),
                    () -> DeltaTable.forPath(spark, path).optimize().executeCompaction().first()));
    Row m = metrics.getStruct(metrics.fieldIndex("metrics"));
    Compacted compacted =
        new Compacted(
            path,
            m.getLong(m.fieldIndex("numFilesRemoved")),
            m.getLong(m.fieldIndex("numFilesAdded")));
    LOG.info(
        "compacted {} small file(s) of {} into {}",
        compacted.filesRemoved(),
        path,
        compacted.filesAdded());
    return Optional.of(compacted);
  }

  private static <T> T withSettings(
      SparkSession spark, Map<String, String> settings, java.util.function.Supplier<T> body) {
    Map<String, String> previous = new LinkedHashMap<>();
    settings.forEach(
        (k, v) -> {
          previous.put(k, spark.conf().getOption(k).getOrElse(() -> null));
          spark.conf().set(k, v);
        });
    try {
      return body.get();
    } finally {
      previous.forEach(
          (k, v) -> {
            if (v == null) {
              spark.conf().unset(k);
            } else {
              spark.conf().set(k, v);
            }
          });
    }
  }
}
