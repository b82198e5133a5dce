package io.replaysafe.bronze;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaysafe.bronze.FileStateParquet.StateRow;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.spark.DeltaTables;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.sql.delta.actions.FileAction;
import org.apache.spark.sql.delta.constraints.Constraint;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The file state's two writes of a run with new files, each one Delta transaction of replaysafe's
 * own: the batch's files appended as planned, and, once the run's batches committed, their rows
 * rewritten as ingested together with the table's fresh small files (tiers below). Delta's own
 * commands cost a scheduled run 58 S3 requests more for the same two changes (measured,
 * 2026-12-03): the append's auto-compaction rewrote the table's files right after the append, in a
 * commit of its own, and the UPDATE looked for the table's root (four requests) and rebuilt its
 * state from every commit since its last checkpoint before either could choose a file (a HEAD and a
 * GET per commit, up to ten). Here the files come from the version's checksum, which lists each
 * with its statistics; the rows that change are chosen by those statistics, and the table stays
 * compacted by the mark alone.
 *
 * <p>The mark compacts in tiers, so that its cost follows the new rows, not the table's history:
 * every file below {@link Tiers#freshBytes} (64 KiB: the batches' appends and the marks' own output
 * until it grows past that) is rewritten by each mark, as the mark must rewrite the rows it changes
 * anyway; a file above it is left alone until its tier (sizes within a factor of {@link
 * Tiers#filesPerTier}, 16) holds that many files, which the mark then merges into one of the next
 * tier. A run with one new file therefore rewrites at most about 64 KiB of the file state (a few
 * thousand rows), and each row is rewritten about once per tier (a few times over the table's
 * life), while the table keeps at most {@code filesPerTier} files per tier (a mark's own output may
 * fill one, which the next mark merges), so a lookup opens few files. (Until 2026-12-05 every file
 * below 64 MiB was rewritten by every mark: at 100,000 files ingested, each run read and wrote the
 * whole table. Until 2026-12-06 the fresh files were those below 1 MiB, which 100,000 short paths
 * fit in: bench-discovery's run with one new file at 100,000 files rewrote all of them, with
 * Spark's sort, 32 MiB of live objects against 6.8 MiB at 1,000 files.)
 *
 * <p>Each write is one commit, atomic as Delta's own: a run stopped before it leaves the table as
 * it was (a data file written and never committed is no row of the table), after it the whole
 * change. The rewrite reads exactly the files it removes and writes all of their rows, so no row is
 * lost or doubled. Both start from the version this JVM holds (the run's last read or write of the
 * table); should another writer have committed since, Delta's commit sees it and checks the two for
 * conflicts as it does for its own commands, and the mark, which reads the whole table, fails
 * rather than overwrite it.
 *
 * <p>Each method answers false where it cannot write this way (no checksum listing the files, a
 * reader feature such as deletion vectors, another build of Delta's internals): the caller then
 * uses Delta's own command.
 */
final class FileStateCommits {
  /**
   * The mark's compaction tiers: files below {@code freshBytes} are rewritten by every mark; above
   * it, tier {@code t} holds the files from {@code freshBytes * filesPerTier^(t-1)} up to {@code
   * freshBytes * filesPerTier^t}, merged into one once it holds {@code filesPerTier} files.
   */
  record Tiers(long freshBytes, int filesPerTier) {
    static final Tiers DEFAULT = new Tiers(64L << 10, 16);

    Tiers {
      if (freshBytes < 1 || filesPerTier < 2) {
        throw new IllegalArgumentException("tiers " + freshBytes + " bytes, " + filesPerTier);
      }
    }

    /** 0 for a fresh file, else the tier of a file of {@code bytes}. */
    int tier(long bytes) {
      int tier = 0;
      long bound = freshBytes;
      while (bytes >= bound) {
        tier++;
        if (bound > Long.MAX_VALUE / filesPerTier) {
          break;
        }
        bound *= filesPerTier;
      }
      return tier;
    }

    /**
     * The files a mark rewrites besides those holding the rows it changes: every fresh file, and
     * every file of a tier that holds {@link #filesPerTier} or more.
     */
    List<AddFile> compacted(List<AddFile> files) {
      Map<Integer, List<AddFile>> byTier = new java.util.TreeMap<>();
      files.forEach(f -> byTier.computeIfAbsent(tier(f.size()), t -> new ArrayList<>()).add(f));
      List<AddFile> compacted = new ArrayList<>();
      byTier.forEach(
          (tier, inTier) -> {
            if (tier == 0 || inTier.size() >= filesPerTier) {
              compacted.addAll(inTier);
            }
          });
      return compacted;
    }
  }

  private FileStateCommits() {}

  /**
   * Appends {@code rows} to the file state at {@code path}, an existing table, in one commit
   * without Delta's post-commit auto-compaction: the mark that follows compacts. The file is
   * written on the driver ({@link FileStateParquet}) where the table allows it, else by Spark.
   */
  static boolean append(SparkSession spark, String path, List<StateRow> rows) {
    try {
      Optional<Snapshot> known = latestKnown(spark, path);
      if (known.isEmpty()) {
        return false;
      }
      Snapshot snapshot = known.get();
      OptimisticTransaction txn =
          snapshot.deltaLog().startTransaction(Option.empty(), Option.apply(snapshot));
      // One file: a batch's rows are few, and each file costs the next run's look a HEAD and a GET.
      List<Action> actions = new ArrayList<>();
      if (onDriver(snapshot)) {
        actions.add(FileStateParquet.write(hadoop(snapshot), snapshot, rows, spark.version()));
      } else {
        actions.addAll(written(txn, FileState.asDataset(spark, rows).coalesce(1)));
      }
      txn.commit(
          seq(actions),
          new DeltaOperations.Write(
              SaveMode.Append,
              Option.empty(),
              Option.empty(),
              Option.empty(),
              Option.empty(),
              Option.empty(),
              Option.empty(),
              Option.empty(),
              Option.empty()));
      return true;
    } catch (LinkageError otherDelta) {
      // Nothing was committed: a file written before the error is no row of the table.
      return false;
    }
  }

  /**
   * The most rows a mark reads and writes on the driver ({@link FileStateParquet}), held there
   * whole: about 25 MB of heap. A mark usually rewrites the fresh files alone (below {@link
   * Tiers#freshBytes}, tens of thousands of rows); a tier's merge of more is Spark's.
   */
  static final long MARK_ON_DRIVER_MAX_ROWS = 50_000;

  /**
   * Whether this table's small writes are made on the driver: {@link FileStateParquet#writable},
   * unless {@value SmallFileStateLookup#MAX_BYTES_PROPERTY} is 0 (then Spark reads and writes).
   */
  private static boolean onDriver(Snapshot snapshot) {
    return SmallFileStateLookup.maxBytes() > 0 && FileStateParquet.writable(snapshot);
  }

  private static Configuration hadoop(Snapshot snapshot) {
    return snapshot.deltaLog().newDeltaHadoopConf();
  }

  /**
   * Marks the rows of every batch up to {@code lastCommitted} that are still {@value
   * FileState#DISCOVERED} as {@value FileState#INGESTED}, with the time of the mark, in one commit
   * that rewrites the files that may hold such rows (by their statistics) and the files its
   * compaction tiers choose ({@link Tiers}) into one file ordered by path. Commits nothing when no
   * file may hold such a row.
   */
  static boolean markCommitted(SparkSession spark, String path, long lastCommitted) {
    return markCommitted(spark, path, lastCommitted, Tiers.DEFAULT);
  }

  /** {@link #markCommitted(SparkSession, String, long)} with the given compaction tiers. */
  static boolean markCommitted(SparkSession spark, String path, long lastCommitted, Tiers tiers) {
    try {
      Optional<Snapshot> known = latestKnown(spark, path);
      if (known.isEmpty()) {
        return false;
      }
      Snapshot snapshot = known.get();
      Optional<List<AddFile>> listed = DeltaTables.filesFromChecksum(snapshot);
      if (listed.isEmpty()) {
        return false;
      }
      List<AddFile> marked =
          listed.get().stream().filter(f -> mayHoldUnmarked(f, lastCommitted)).toList();
      if (marked.isEmpty()) {
        return true;
      }
      // By path: a file listed twice would be read twice.
      Map<String, AddFile> rewritten = new LinkedHashMap<>();
      marked.forEach(f -> rewritten.put(f.path(), f));
      tiers.compacted(listed.get()).forEach(f -> rewritten.putIfAbsent(f.path(), f));
      List<AddFile> files = List.copyOf(rewritten.values());

      OptimisticTransaction txn =
          snapshot.deltaLog().startTransaction(Option.empty(), Option.apply(snapshot));
      // Every row is read and written back: a concurrent commit of any kind is a conflict.
      txn.readWholeTable();
      List<Action> actions = new ArrayList<>();
      long now = System.currentTimeMillis();
      for (AddFile f : files) {
        actions.add(f.removeWithTimestamp(now, true));
      }
      if (onDriver(snapshot)
          && FileStateParquet.rowCount(files).orElse(Long.MAX_VALUE) <= MARK_ON_DRIVER_MAX_ROWS) {
        Configuration hadoop = hadoop(snapshot);
        long at = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
        List<StateRow> rows = new ArrayList<>();
        for (StateRow r : FileStateParquet.read(hadoop, snapshot, files)) {
          boolean mark = FileState.DISCOVERED.equals(r.status()) && r.batchId() <= lastCommitted;
          rows.add(mark ? r.committed(at) : r);
        }
        if (!rows.isEmpty()) {
          actions.add(FileStateParquet.write(hadoop, snapshot, rows, spark.version()));
        }
      } else {
        actions.addAll(written(txn, markedBySpark(snapshot, files, lastCommitted)));
      }
      txn.commit(seq(actions), new DeltaOperations.Update(Option.empty()));
      return true;
    } catch (LinkageError otherDelta) {
      // Nothing was committed: a file written before the error is no row of the table.
      return false;
    }
  }

  /** The rows of {@code files} with the mark applied, one partition in path order, by Spark. */
  private static Dataset<Row> markedBySpark(
      Snapshot snapshot, List<AddFile> files, long lastCommitted) {
    Dataset<Row> rows =
        snapshot
            .deltaLog()
            .createDataFrame(
                snapshot, CollectionConverters.asScala(files).toSeq(), false, Option.empty());
    Column mark =
        col("status").equalTo(FileState.DISCOVERED).and(col("batch_id").leq(lastCommitted));
    List<Column> columns = new ArrayList<>();
    for (String name : FileState.SCHEMA.fieldNames()) {
      Column value =
          switch (name) {
            case "status" -> when(mark, lit(FileState.INGESTED)).otherwise(col(name));
            case "committed_at" -> when(mark, current_timestamp()).otherwise(col(name));
            default -> col(name);
          };
      columns.add(value.as(name));
    }
    return rows.select(columns.toArray(Column[]::new)).coalesce(1).sortWithinPartitions("path");
  }

  /**
   * Whether the version of the file state this JVM already read may hold a row of a batch up to
   * {@code lastCommitted} not yet marked, by its files' statistics; false where this JVM read no
   * version, or its checksum does not list the files. Asks the store nothing: a run with nothing
   * new calls it after its look, which read that version.
   */
  static boolean knownToHoldUnmarked(SparkSession spark, String path, long lastCommitted) {
    try {
      Snapshot cached = DeltaLog.forTable(spark, path).unsafeVolatileSnapshot();
      if (cached.version() < 0) {
        return false;
      }
      return DeltaTables.filesFromChecksum(cached)
          .map(files -> files.stream().anyMatch(f -> mayHoldUnmarked(f, lastCommitted)))
          .orElse(false);
    } catch (LinkageError otherDelta) {
      return false;
    }
  }

  /**
   * Whether {@code file} may hold a row of a batch up to {@code lastCommitted} not yet marked, by
   * its statistics: its least status is {@value FileState#DISCOVERED} ("discovered" sorts before
   * "ingested"), its least batch at most {@code lastCommitted}. True when they do not tell.
   */
  static boolean mayHoldUnmarked(AddFile file, long lastCommitted) {
    Optional<JsonNode> stats = Json.tryRead(file.stats());
    if (stats.isEmpty()) {
      return true;
    }
    if (stats.get().path("numRecords").asLong(-1) == 0) {
      return false;
    }
    JsonNode least = stats.get().path("minValues");
    JsonNode status = least.path("status");
    JsonNode batch = least.path("batch_id");
    if (!status.isTextual() || !batch.isIntegralNumber()) {
      return true;
    }
    return status.asText().compareTo(FileState.DISCOVERED) <= 0 && batch.asLong() <= lastCommitted;
  }

  /**
   * The latest version of the table this JVM knows, without a listing of its log when this JVM read
   * or wrote the table already (the run's look, its plan); empty where no table is there.
   */
  private static Optional<Snapshot> latestKnown(SparkSession spark, String path) {
    Snapshot cached = DeltaLog.forTable(spark, path).unsafeVolatileSnapshot();
    return cached.version() >= 0 ? Optional.of(cached) : DeltaTables.snapshot(spark, path);
  }

  /** The rows written as data files of the transaction's table, without its post-commit hooks. */
  private static List<FileAction> written(OptimisticTransaction txn, Dataset<Row> rows) {
    // isOptimize: Delta registers its auto-compaction after any other write of files.
    scala.collection.immutable.Seq<Constraint> none =
        CollectionConverters.asScala(List.<Constraint>of()).toSeq();
    return CollectionConverters.asJava(txn.writeFiles(rows, Option.empty(), true, none));
  }

  private static scala.collection.immutable.Seq<Action> seq(List<Action> actions) {
    return CollectionConverters.asScala(actions).toSeq();
  }
}
