package io.replaysafe.common.spark;

import io.delta.tables.DeltaTable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.SnapshotManagement;
import org.apache.spark.sql.delta.VersionChecksum;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.sql.types.StructType;

/**
 * What a run asks of a Delta table by path, answered from its transaction log alone: its SQL name,
 * its table properties, its latest version and whether it is known to be empty. {@code
 * DeltaTable.detail()} would give the properties too, but it reports the table's size and file
 * count, which Delta computes by reconstructing the table's whole state: a Spark job, about half a
 * second on a small run's fixed path. {@code history(1)} would give the version, with a Spark job
 * over the latest commit file.
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

  /** The property {@code name} of the Delta table at {@code path}; null when it is not set. */
  public static String property(SparkSession spark, String path, String name) {
    return properties(spark, path).get(name);
  }

  /** The latest version of the Delta table at {@code path} (the log brought up to date first). */
  public static long latestVersion(SparkSession spark, String path) {
    return latestVersion(DeltaTable.forPath(spark, path));
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
    Snapshot snapshot = latest(DeltaTable.forPath(spark, path));
    try {
      scala.Option<VersionChecksum> checksum = snapshot.checksumOpt();
      return checksum.isDefined() && checksum.get().numFiles() == 0;
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
    Snapshot snapshot = latest(DeltaTable.forPath(spark, path));
    List<String> files;
    try {
      files = listedPlainFiles(snapshot);
    } catch (LinkageError otherDelta) {
      // Snapshot, VersionChecksum and AddFile are Delta's internals: another build of Delta (a
      // vendor's runtime) may lack a method used here. Then nothing is known.
      files = null;
    }
    if (files == null) {
      return spark.read().format("delta").load(path);
    }
    StructType schema = snapshot.metadata().schema();
    return files.isEmpty()
        ? spark.createDataFrame(List.of(), schema)
        : spark.read().schema(schema).parquet(files.toArray(String[]::new));
  }

  /** As {@link #listedPlainFiles(Snapshot)} for the latest version of the table at {@code path}. */
  static List<String> listedPlainFiles(SparkSession spark, String path) {
    return listedPlainFiles(latest(DeltaTable.forPath(spark, path)));
  }

  /**
   * The absolute paths of {@code snapshot}'s files, or null when plain Parquet cannot tell. Only at
   * reader version 1, where nothing but the Parquet files decides a row (no column mapping,
   * deletion vectors or other reader feature), and without partition columns, whose values are not
   * in the files.
   */
  static List<String> listedPlainFiles(Snapshot snapshot) {
    if (snapshot.protocol().minReaderVersion() != 1
        || !snapshot.metadata().partitionColumns().isEmpty()) {
      return null;
    }
    scala.Option<VersionChecksum> checksum = snapshot.checksumOpt();
    if (checksum.isEmpty() || checksum.get().allFiles().isEmpty()) {
      return null;
    }
    List<AddFile> listed =
        scala.jdk.javaapi.CollectionConverters.asJava(checksum.get().allFiles().get());
    if (listed.size() != checksum.get().numFiles()) {
      return null;
    }
    List<String> files = new ArrayList<>();
    for (AddFile file : listed) {
      files.add(file.absolutePath(snapshot.deltaLog()).toString());
    }
    return files;
  }

  private static Snapshot latest(DeltaTable table) {
    SnapshotManagement log = table.deltaLog();
    return log.update(log.update$default$1(), log.update$default$2(), log.update$default$3());
  }
}
