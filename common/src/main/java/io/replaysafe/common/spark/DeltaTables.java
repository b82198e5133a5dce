package io.replaysafe.common.spark;

import com.fasterxml.jackson.databind.JsonNode;
import io.delta.tables.DeltaTable;
import io.replaysafe.common.io.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.SnapshotManagement;
import org.apache.spark.sql.delta.VersionChecksum;
import org.apache.spark.sql.delta.actions.AddFile;

/**
 * What a run asks of a Delta table by path, answered from its transaction log alone: its SQL name,
 * its table properties, its latest version and whether it is known to be empty. {@code
 * DeltaTable.detail()} would give the properties too, but it reports the table's size and file
 * count, which Delta computes by reconstructing the table's whole state: a Spark job, about half a
 * second on a small run's fixed path. {@code history(1)} would give the version, with a Spark job
 * over the latest commit file.
 *
 * <p>Each question goes to the table's {@link DeltaLog} directly, brought up to date with one
 * listing of its {@code _delta_log}. {@code DeltaTable.isDeltaTable} and {@code DeltaTable.forPath}
 * would first look for the table's root: a probe whether {@code _delta_log} exists (on S3A a HEAD
 * and a LIST), repeated for each parent directory up to the bucket when the table does not exist (6
 * requests for a side table under {@code s3a://bucket/dir/}), and a DataFrame over the table on
 * top.
 */
public final class DeltaTables {
  private DeltaTables() {}

  /** The SQL name of the Delta table at {@code path}: {@code delta.`path`}, backticks escaped. */
  public static String tableName(String path) {
    return "delta." + SqlNames.quote(path);
  }

  /** Every table property of the Delta table at {@code path}, in the order Delta lists them. */
  public static Map<String, String> properties(SparkSession spark, String path) {
    Map<String, String> properties = new LinkedHashMap<>();
    for (Row r : spark.sql("SHOW TBLPROPERTIES " + tableName(path)).collectAsList()) {
      properties.put(r.getString(0), r.getString(1));
    }
    return properties;
  }

  /**
   * The property {@code name} of the Delta table at {@code path}; null when it is not set. A table
   * property set on the table ({@code delta.enableChangeDataFeed}, {@code
   * delta.logRetentionDuration}...) is read from its latest metadata, as {@code SHOW TBLPROPERTIES}
   * reads it, without the statement's search for the table's root; the ones {@code SHOW
   * TBLPROPERTIES} derives from the protocol (reader and writer versions, features) from the
   * statement.
   */
  public static String property(SparkSession spark, String path, String name) {
    Optional<Snapshot> snapshot = fromProtocol(name) ? Optional.empty() : snapshot(spark, path);
    if (snapshot.isEmpty()) {
      return properties(spark, path).get(name);
    }
    scala.Option<String> value = snapshot.get().metadata().configuration().get(name);
    return value.isDefined() ? value.get() : null;
  }

  private static boolean fromProtocol(String name) {
    return name.equals("delta.minReaderVersion")
        || name.equals("delta.minWriterVersion")
        || name.startsWith("delta.feature.");
  }

  /**
   * The latest snapshot of the Delta table whose root is {@code path} (its log brought up to date),
   * or empty when no table is there: no commit under {@code path/_delta_log}. A fresh JVM reads the
   * log once (the latest checkpoint's pointer, a listing, the latest checksum); after that each
   * call costs one listing. Unlike {@code DeltaTable.isDeltaTable}, a directory inside another
   * table is not taken for that table: replaysafe addresses every table it owns by its own root.
   */
  public static Optional<Snapshot> snapshot(SparkSession spark, String path) {
    // forTableWithSnapshot lists the log once: a log it has just created for this path is not
    // brought up to date a second time.
    Snapshot snapshot = DeltaLog.forTableWithSnapshot(spark, path)._2();
    return snapshot.version() < 0 ? Optional.empty() : Optional.of(snapshot);
  }

  /**
   * The snapshot of the Delta table at {@code path} that this JVM holds already, without a read,
   * when it is at {@code version}: what a job that just wrote or read the table in this JVM left
   * (bronze's run before silver's). Otherwise, as {@link #snapshot}, the latest from the log. For a
   * caller that knows the table's newest version from that job, and that nobody else writes the
   * table in between (the pipeline's lease).
   */
  public static Optional<Snapshot> snapshotAt(SparkSession spark, String path, long version) {
    // A log this JVM has not opened yet is opened here, its snapshot read once, as snapshot()
    // would read it.
    Snapshot cached = DeltaLog.forTable(spark, path).unsafeVolatileSnapshot();
    if (cached.version() == version && version >= 0) {
      return Optional.of(cached);
    }
    return snapshot(spark, path);
  }

  /**
   * The latest version of the Delta table at {@code path} as a DataFrame: the one {@code
   * spark.read().format("delta").load(path)} gives, without its search for the table's root (on S3A
   * a HEAD and a LIST of {@code _delta_log}). Delta's reader makes it from the table's log once it
   * has found the root; here the log is the table's own (see {@link #snapshot}). Where there is no
   * table, or Delta's internals differ from open-source Delta's, it is that load, errors included.
   */
  public static Dataset<Row> read(SparkSession spark, String path) {
    Optional<Snapshot> snapshot = snapshot(spark, path);
    if (snapshot.isPresent()) {
      try {
        return dataFrame(spark, snapshot.get());
      } catch (LinkageError otherDelta) {
        // As in readSmall: another build of Delta may lack these internals.
      }
    }
    return spark.read().format("delta").load(path);
  }

  /**
   * The Delta table at {@code path} for a MERGE, DELETE or RESTORE: what {@code
   * DeltaTable.forPath(spark, path)} gives, without its two searches for the table's root (its own
   * check that a table is there, then its reader's: on S3A a HEAD and a LIST of {@code _delta_log}
   * each, 8 requests per silver batch for silver and its tombstones). The table's DataFrame is
   * {@link #read}'s; Delta's commands follow the log to its latest version when they run, as they
   * do for a table {@code forPath} made. Where there is no table, or Delta's internals differ, it
   * is {@code forPath}, errors included.
   */
  public static DeltaTable table(SparkSession spark, String path) {
    Optional<Snapshot> snapshot = snapshot(spark, path);
    if (snapshot.isPresent()) {
      try {
        return new DeltaTable(
            dataFrame(spark, snapshot.get()),
            org.apache.spark.sql.delta.catalog.DeltaTableV2.apply(
                spark,
                new Path(path),
                scala.Option.empty(),
                scala.Option.empty(),
                scala.collection.immutable.Map$.MODULE$.<String, String>empty(),
                scala.Option.empty()));
      } catch (LinkageError otherDelta) {
        // As in readSmall: another build of Delta may lack these internals.
      }
    }
    return DeltaTable.forPath(spark, path);
  }

  /**
   * The DataFrame Delta's reader makes of a path-addressed table once it found its root: the log's
   * relation at {@code snapshot}, with no partition filter, catalog table or time travel.
   */
  private static Dataset<Row> dataFrame(SparkSession spark, Snapshot snapshot) {
    scala.collection.immutable.Seq<org.apache.spark.sql.catalyst.expressions.Expression> none =
        scala.jdk.javaapi.CollectionConverters.asScala(
                List.<org.apache.spark.sql.catalyst.expressions.Expression>of())
            .toSeq();
    return spark.baseRelationToDataFrame(
        snapshot
            .deltaLog()
            .createRelation(none, scala.Option.apply(snapshot), scala.Option.empty(), false));
  }

  /**
   * False when no Delta table can be at {@code path}: its {@code _delta_log} directory does not
   * exist. One probe for a directory (on S3A a LIST), where Delta's own look at a missing table
   * takes four requests (its last checkpoint, a listing of the log, and the directory twice). For a
   * table that is usually missing (a pipeline's bad files): ask this first, then {@link #exists}.
   * An I/O error answers true, and Delta's look then decides.
   */
  public static boolean mayExist(SparkSession spark, String path) {
    Path log = new Path(path, "_delta_log");
    try {
      @SuppressWarnings("deprecation")
      boolean found =
          log.getFileSystem(spark.sparkContext().hadoopConfiguration()).isDirectory(log);
      return found;
    } catch (java.io.IOException | RuntimeException e) {
      return true;
    }
  }

  /** Whether a Delta table (one commit at least) has its root at {@code path}; see snapshot. */
  public static boolean exists(SparkSession spark, String path) {
    return snapshot(spark, path).isPresent();
  }

  /** The latest version of the Delta table at {@code path} (the log brought up to date first). */
  public static long latestVersion(SparkSession spark, String path) {
    return latest(spark, path).version();
  }

  /** The latest version of {@code table} (its log brought up to date first). */
  public static long latestVersion(DeltaTable table) {
    return latest(table).version();
  }

  /**
   * Whether the latest version of the Delta table at {@code path} is known to hold no data file:
   * the version's checksum file, which Delta writes with each commit, says so. False when it holds
   * files, and when no checksum tells (the caller then reads the table): an empty table skipped on
   * this answer costs nothing, a table read on a false answer only its usual price.
   */
  public static boolean knownEmpty(SparkSession spark, String path) {
    Snapshot snapshot = latest(spark, path);
    try {
      scala.Option<VersionChecksum> checksum = snapshot.checksumOpt();
      return checksum.isDefined() && checksum.get().numFiles() == 0;
    } catch (LinkageError otherDelta) {
      // As in readSmall: another build of Delta may lack these internals; then nothing is known.
      return false;
    }
  }

  /**
   * Whether the latest version of the Delta table at {@code path} is known to hold no row whose
   * timestamp {@code column} is before {@code before}: its checksum lists no file, or lists every
   * file with statistics whose minimum of {@code column} is not before it (or that count only nulls
   * there). False when a file may hold such a row, and when nothing tells (no checksum, a table too
   * large for the checksum to list its files, a file without statistics): the caller then does what
   * it would have done without this answer. Delta truncates a timestamp's statistics to the
   * millisecond, downwards for a minimum, so a minimum read here is never later than the true one.
   */
  public static boolean knownNoneBefore(
      SparkSession spark, String path, String column, java.time.Instant before) {
    Snapshot snapshot = latest(spark, path);
    try {
      scala.Option<VersionChecksum> checksum = snapshot.checksumOpt();
      if (checksum.isEmpty()) {
        return false;
      }
      if (checksum.get().numFiles() == 0) {
        return true;
      }
      if (checksum.get().allFiles().isEmpty()) {
        return false;
      }
      List<AddFile> listed =
          scala.jdk.javaapi.CollectionConverters.asJava(checksum.get().allFiles().get());
      if (listed.size() != checksum.get().numFiles()) {
        return false;
      }
      for (AddFile file : listed) {
        if (!FileStatistics.noneBefore(file.stats(), column, before)) {
          return false;
        }
      }
      return true;
    } catch (LinkageError otherDelta) {
      // As in readSmall: another build of Delta may lack these internals; then nothing is known.
      return false;
    }
  }

  /**
   * The latest version of a small Delta table at {@code path}, read from the data files its
   * checksum lists. Delta writes the list of a small table's files into each version's checksum
   * file, but its own reads do not use it: they reconstruct the table's state first (three Spark
   * jobs on every silver run for a table of a few rows; measured, about 2.9 s of an idle run's
   * silver in a fresh JVM; read this way, silver's whole contract check took 0.14-0.22 s). Read
   * here as plain Parquet with the table's schema, which gives the same rows only when nothing but
   * the files decides them (see {@link #listedPlainFiles(Snapshot)}); otherwise, and where Delta's
   * internal classes differ from open-source Delta's, this is Delta's own read.
   */
  public static Dataset<Row> readSmall(SparkSession spark, String path) {
    return readSmall(spark, path, latest(spark, path));
  }

  /**
   * As {@link #readSmall(SparkSession, String)}, or empty when there is no table at {@code path}:
   * one look at the log answers both.
   */
  public static Optional<Dataset<Row>> readSmallIfExists(SparkSession spark, String path) {
    return snapshot(spark, path).map(s -> readSmall(spark, path, s));
  }

  /**
   * As {@link #readSmall(SparkSession, String)}, at {@code snapshot}, which the caller has just
   * taken: a caller with several questions for one version of the table asks them all of one
   * snapshot, and its log is not listed again for each.
   */
  public static Dataset<Row> readSmall(SparkSession spark, String path, Snapshot snapshot) {
    List<AddFile> files;
    try {
      files = listedFiles(snapshot);
    } catch (LinkageError otherDelta) {
      // Snapshot, VersionChecksum and AddFile are Delta's internals: another build of Delta (a
      // vendor's runtime) may lack a method used here. Then nothing is known.
      files = null;
    }
    if (files == null) {
      return spark.read().format("delta").load(path);
    }
    if (files.isEmpty()) {
      return spark.createDataFrame(List.of(), snapshot.metadata().schema());
    }
    return readFiles(snapshot, files);
  }

  /**
   * Delta's own DataFrame over exactly {@code files} of {@code snapshot}, with their sizes from the
   * checksum: no listing and no existence probes of the files, which a plain Parquet read of their
   * paths makes (on S3 seven requests for a one-file table, two this way). Delta applies the files'
   * deletion vectors.
   */
  public static Dataset<Row> readFiles(Snapshot snapshot, List<AddFile> files) {
    return snapshot
        .deltaLog()
        .createDataFrame(
            snapshot,
            scala.jdk.javaapi.CollectionConverters.asScala(files).toSeq(),
            false,
            scala.Option.empty());
  }

  /** As {@link #listedPlainFiles(Snapshot)} for the latest version of the table at {@code path}. */
  static List<String> listedPlainFiles(SparkSession spark, String path) {
    return listedPlainFiles(latest(spark, path));
  }

  /**
   * The absolute paths of {@code snapshot}'s files, or null when plain Parquet cannot tell. Only at
   * reader version 1, where nothing but the Parquet files decides a row (no column mapping,
   * deletion vectors or other reader feature), and without partition columns, whose values are not
   * in the files.
   */
  static List<String> listedPlainFiles(Snapshot snapshot) {
    List<AddFile> listed = listedFiles(snapshot);
    if (listed == null) {
      return null;
    }
    List<String> files = new ArrayList<>();
    for (AddFile file : listed) {
      files.add(file.absolutePath(snapshot.deltaLog()).toString());
    }
    return files;
  }

  /**
   * Every data file of {@code snapshot} as its checksum lists them, with each file's size and
   * statistics: what a writer that rewrites some of a small table's files needs, without Delta's
   * reconstruction of the table's state (on S3 a HEAD and a GET per commit since the last
   * checkpoint). Empty when that list cannot stand for the rows (see below) or when Delta's
   * internal classes differ from open-source Delta's.
   */
  public static Optional<List<AddFile>> filesFromChecksum(Snapshot snapshot) {
    try {
      return Optional.ofNullable(listedFiles(snapshot));
    } catch (LinkageError otherDelta) {
      return Optional.empty(); // as in readSmall
    }
  }

  /**
   * Every data file of {@code snapshot} as its checksum lists them, with their statistics and
   * deletion vectors, whatever the table's reader features; empty when the checksum does not list
   * every file (Delta lists up to 50) or Delta's internal classes differ. For a caller that reads
   * the files through Delta, which applies their deletion vectors, or writes them.
   */
  public static Optional<List<AddFile>> filesListedInChecksum(Snapshot snapshot) {
    try {
      scala.Option<VersionChecksum> checksum = snapshot.checksumOpt();
      if (checksum.isEmpty() || checksum.get().allFiles().isEmpty()) {
        return Optional.empty();
      }
      List<AddFile> listed =
          scala.jdk.javaapi.CollectionConverters.asJava(checksum.get().allFiles().get());
      return listed.size() == checksum.get().numFiles()
          ? Optional.of(List.copyOf(listed))
          : Optional.empty();
    } catch (LinkageError otherDelta) {
      return Optional.empty(); // as in readSmall
    }
  }

  /**
   * Every data file of {@code snapshot} as its checksum lists them, or null when that list cannot
   * stand for the rows: only at reader version 1 (no deletion vectors or other reader feature) and
   * without partition columns, and only when the checksum lists every file.
   */
  private static List<AddFile> listedFiles(Snapshot snapshot) {
    if (snapshot.protocol().minReaderVersion() != 1
        || !snapshot.metadata().partitionColumns().isEmpty()) {
      return null;
    }
    return filesListedInChecksum(snapshot).orElse(null);
  }

  /**
   * The largest value of the integral column {@code column} over the rows of {@code snapshot}, from
   * the statistics Delta writes for each data file (the checksum lists every file with them): no
   * data file is read, no request made. An empty {@code OptionalLong} when the snapshot holds no
   * row. Empty when the statistics cannot tell: no checksum listing the files (see listedFiles), a
   * file without statistics or without the column's maximum (all its values null, or the column
   * beyond {@code delta.dataSkippingNumIndexedCols}); the caller then reads the rows. The maxima
   * are exact for integral columns: Delta truncates only strings.
   */
  public static Optional<OptionalLong> maxFromStatistics(Snapshot snapshot, String column) {
    List<AddFile> listed;
    try {
      listed = listedFiles(snapshot);
    } catch (LinkageError otherDelta) {
      return Optional.empty(); // as in readSmall: another build of Delta's internals
    }
    if (listed == null) {
      return Optional.empty();
    }
    long max = Long.MIN_VALUE;
    boolean anyRow = false;
    for (AddFile file : listed) {
      Optional<JsonNode> stats = Json.tryRead(file.stats());
      if (stats.isEmpty()) {
        return Optional.empty();
      }
      if (stats.get().path("numRecords").asLong(-1) == 0) {
        continue;
      }
      JsonNode value = stats.get().path("maxValues").path(column);
      if (!value.isIntegralNumber()) {
        return Optional.empty();
      }
      max = Math.max(max, value.asLong());
      anyRow = true;
    }
    return Optional.of(anyRow ? OptionalLong.of(max) : OptionalLong.empty());
  }

  /** The latest snapshot; where there is no table, Delta's own "not a Delta table" error. */
  private static Snapshot latest(SparkSession spark, String path) {
    Optional<Snapshot> snapshot = snapshot(spark, path);
    return snapshot.isPresent() ? snapshot.get() : latest(DeltaTable.forPath(spark, path));
  }

  private static Snapshot latest(DeltaTable table) {
    SnapshotManagement log = table.deltaLog();
    return log.update(log.update$default$1(), log.update$default$2(), log.update$default$3());
  }
}
