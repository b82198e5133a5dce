package io.replaysafe.common.spark;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.classic.Dataset$;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.datasources.FileStatusCache;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.InMemoryFileIndex;
import org.apache.spark.sql.execution.datasources.LogicalRelation$;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Parquet files whose sizes and times are known already (a Delta table's files, from its log), read
 * without looking them up again. {@code spark.read().parquet(paths)} first asks whether each path
 * exists, then lists it to learn whether it is a directory: on S3A three requests a file before its
 * reader opens it. Here the file index is handed the files as they are, so it lists nothing: a
 * small table's read costs its reader's own requests only.
 */
final class ListedParquet {
  private ListedParquet() {}

  /** One known file: absolute path, size in bytes, modification time in ms. */
  record File(Path path, long size, long modifiedMs) {}

  /** The rows of {@code files}, read with {@code schema}; none of them is looked up first. */
  static Dataset<Row> read(
      org.apache.spark.sql.SparkSession session, StructType schema, List<File> files) {
    SparkSession spark = (SparkSession) session;
    List<Path> paths = new ArrayList<>();
    Map<Path, FileStatus[]> known = new HashMap<>();
    for (File f : files) {
      paths.add(f.path());
      known.put(
          f.path(),
          new FileStatus[] {new FileStatus(f.size(), false, 1, 0, f.modifiedMs(), f.path())});
    }
    scala.collection.immutable.Map<String, String> options =
        scala.collection.immutable.Map$.MODULE$.empty();
    InMemoryFileIndex index =
        new InMemoryFileIndex(
            spark,
            CollectionConverters.asScala(paths).toList(),
            options,
            Option.apply(schema),
            new Known(known),
            Option.empty(),
            Option.empty());
    HadoopFsRelation relation =
        new HadoopFsRelation(
            index,
            index.partitionSchema(),
            schema,
            Option.empty(),
            new ParquetFileFormat(),
            options,
            spark);
    return Dataset$.MODULE$.ofRows(spark, LogicalRelation$.MODULE$.apply(relation, false));
  }

  /** The index's cache of listings, holding each file as its own listing: nothing is listed. */
  private static final class Known extends FileStatusCache {
    private final Map<Path, FileStatus[]> files;

    Known(Map<Path, FileStatus[]> files) {
      this.files = files;
    }

    @Override
    public Option<FileStatus[]> getLeafFiles(Path path) {
      return Option.apply(files.get(path));
    }

    @Override
    public void putLeafFiles(Path path, FileStatus[] leafFiles) {
      // Only the known files are held; a listing made for any other path is not kept.
    }

    @Override
    public void invalidateAll() {
      // Nothing to refresh: the files are those of one version of the table.
    }
  }
}
