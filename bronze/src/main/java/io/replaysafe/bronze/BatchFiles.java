package io.replaysafe.bronze;

import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsDirectoryException;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.datasources.FileStatusCache;
import org.apache.spark.sql.execution.datasources.InMemoryFileIndex;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A batch's files, each looked up once (a HEAD on S3), and the file index the batch is read
 * through, built from those lookups. Spark's own index, given the files as its paths, would look
 * each one up again by listing it as if it were a directory: on S3A a LIST of the key as a prefix,
 * then a HEAD, for every file of every batch. In notification mode those were the only LISTs of the
 * landing bucket between backfills.
 *
 * <p>A file whose lookup fails (gone since it was found, denied, a directory now) is not in the
 * index: the caller records it as a bad file, with the lookup's own error.
 */
final class BatchFiles {
  /**
   * Up to this many files are looked up on the driver; more in one Spark job. Spark's index lists
   * its paths the same way ({@code spark.sql.sources.parallelPartitionDiscovery.threshold}, 32).
   */
  private static final int LOOK_UP_ON_DRIVER = 32;

  private BatchFiles() {}

  /**
   * The lookups of a batch's files, in the order given.
   *
   * @param found the status of each file looked up, by the file as given
   * @param failed the files whose lookup failed, each with the lookup's error
   */
  record LookedUp(Map<String, FileStatus> found, List<BadFiles.BadFile> failed) {}

  static LookedUp lookUp(SparkSession spark, List<String> files) {
    Configuration conf = spark.sessionState().newHadoopConf();
    List<Lookup> lookups;
    if (files.size() <= LOOK_UP_ON_DRIVER) {
      lookups = new ArrayList<>();
      for (String file : files) {
        lookups.add(lookUpOne(conf, file));
      }
    } else {
      Broadcast<SerializableConfiguration> shared =
          SerializableConfiguration.broadcast(spark.sparkContext(), conf);
      lookups =
          JavaSparkContext.fromSparkContext(spark.sparkContext())
              .parallelize(files, Math.min(files.size(), spark.sparkContext().defaultParallelism()))
              .map(new LookUpTask(shared))
              .collect();
    }
    Map<String, FileStatus> found = new LinkedHashMap<>();
    List<BadFiles.BadFile> failed = new ArrayList<>();
    for (Lookup l : lookups) {
      if (l.errorClass() != null) {
        failed.add(new BadFiles.BadFile(l.file(), null, null, l.errorClass(), l.errorMessage()));
      } else {
        found.put(
            l.file(),
            new FileStatus(
                l.length(), false, 1, l.blockSize(), l.modified(), new Path(URI.create(l.path()))));
      }
    }
    return new LookedUp(found, failed);
  }

  /**
   * The batch's file index over exactly these files, from their statuses: each file is its own
   * path, with itself as its only leaf, so the index lists nothing.
   *
   * @param files each file's status, by the file as given
   */
  static InMemoryFileIndex index(
      SparkSession spark,
      Map<String, FileStatus> files,
      scala.collection.immutable.Map<String, String> options,
      StructType schema) {
    List<Path> paths = new ArrayList<>();
    Map<Path, FileStatus[]> leaves = new HashMap<>();
    files.forEach(
        (file, status) -> {
          Path path = new Path(URI.create(file));
          paths.add(path);
          leaves.put(path, new FileStatus[] {status});
        });
    return new InMemoryFileIndex(
        spark,
        CollectionConverters.asScala(paths).toList(),
        options,
        Option.apply(schema),
        new KnownLeaves(leaves),
        Option.empty(),
        Option.empty());
  }

  /**
   * The index's file status cache, answering for every file of the batch with its status. The index
   * asks it for each of its paths before it lists any; a path it does not hold (none) would be
   * listed as Spark lists it.
   */
  private static final class KnownLeaves extends FileStatusCache {
    private final Map<Path, FileStatus[]> leaves;

    KnownLeaves(Map<Path, FileStatus[]> leaves) {
      this.leaves = leaves;
    }

    @Override
    public Option<FileStatus[]> getLeafFiles(Path path) {
      return Option.apply(leaves.get(path));
    }

    @Override
    public void putLeafFiles(Path path, FileStatus[] leafFiles) {}

    @Override
    public void invalidateAll() {}
  }

  /**
   * One file's lookup as a task's result: the status's path, length, modification time and block
   * size, or the error's class and message (what {@link BadFiles#bad} keeps).
   */
  record Lookup(
      String file,
      String path,
      long length,
      long modified,
      long blockSize,
      String errorClass,
      String errorMessage)
      implements Serializable {}

  private static Lookup lookUpOne(Configuration conf, String file) {
    Path path = new Path(URI.create(file));
    try {
      FileStatus status = path.getFileSystem(conf).getFileStatus(path);
      if (status.isDirectory()) {
        throw new PathIsDirectoryException(file);
      }
      return new Lookup(
          file,
          status.getPath().toUri().toString(),
          status.getLen(),
          status.getModificationTime(),
          status.getBlockSize(),
          null,
          null);
    } catch (IOException | RuntimeException e) {
      BadFiles.BadFile bad = BadFiles.bad(file, null, e);
      return new Lookup(file, null, 0, 0, 0, bad.errorClass(), bad.errorMessage());
    }
  }

  /** Looks files up in the tasks of the job above. */
  private static final class LookUpTask
      implements org.apache.spark.api.java.function.Function<String, Lookup> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<SerializableConfiguration> conf;

    LookUpTask(Broadcast<SerializableConfiguration> conf) {
      this.conf = conf;
    }

    @Override
    public Lookup call(String file) {
      return lookUpOne(conf.value().value(), file);
    }
  }
}
