package io.replaysafe.bronze;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.classic.Dataset;
import org.apache.spark.sql.classic.Dataset$;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.apache.spark.sql.execution.datasources.DataSource$;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation$;
import org.apache.spark.sql.execution.datasources.PartitioningAwareFileIndex;
import org.apache.spark.sql.execution.streaming.Offset;
import org.apache.spark.sql.execution.streaming.Source;
import org.apache.spark.sql.execution.streaming.runtime.FileStreamSource;
import org.apache.spark.sql.execution.streaming.runtime.FileStreamSourceOffset$;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's file stream source, checked where it plans a batch. The source lists new files and writes
 * them to its log; only when the batch runs does it look each one up (a HEAD on S3) to build the
 * batch's file index. There a file gone since the listing is dropped with nothing but a warning in
 * Spark's log, and a file whose lookup fails otherwise (a 403 on S3) fails the planning, so every
 * run, without naming the file. By bronze's rule both are bad files: each is recorded in the
 * bad-files table, with the lookup's own error, and left out of that batch; the run goes on.
 *
 * <p>They are recorded before the batch is handed to the query, so before it commits: a run stopped
 * in between plans the same batch again and records the same files again (the table merges on
 * path), and none is lost. The usual batch costs nothing more than Spark's own planning: the
 * planned files are compared with the files the index found, both already in memory.
 */
final class CheckedFileStreamSource implements Source, SupportsTriggerAvailableNow {
  private static final Logger LOG = LoggerFactory.getLogger(CheckedFileStreamSource.class);

  private final FileStreamSource files;
  private final SparkSession spark;
  private final Path sourceLog;
  private final StructType schema;
  private final Map<String, String> batchOptions;
  private final BadFiles badFiles;

  /**
   * True until the first batch when the query restarts after a committed batch: Spark then asks for
   * that batch once more and discards it (a Kafka source needs the call; see MicroBatchExecution).
   * Planning it would look every one of its files up again, the denied ones too, for nothing.
   */
  private boolean committedBatchReplay;

  private CheckedFileStreamSource(
      FileStreamSource files,
      SparkSession spark,
      Path sourceLog,
      StructType schema,
      Map<String, String> batchOptions,
      BadFiles badFiles,
      boolean committedBatchReplay) {
    this.committedBatchReplay = committedBatchReplay;
    this.files = files;
    this.spark = spark;
    this.sourceLog = sourceLog;
    this.schema = schema;
    this.batchOptions = Map.copyOf(batchOptions);
    this.badFiles = badFiles;
  }

  /**
   * The source over {@code path}, reading with {@link BoundedTextFormat}. The options reach the
   * file source without {@code path}: Spark would then set {@code basePath} and add the
   * directories' {@code key=value} names as partition columns, which bronze never reads (it keeps
   * only the line and {@code _metadata}).
   *
   * @param badFilesTable where lookup failures are recorded; without it they fail the batch
   */
  static CheckedFileStreamSource create(
      org.apache.spark.sql.SparkSession session,
      String metadataPath,
      StructType schema,
      Map<String, String> options,
      String badFilesTable,
      String pipeline) {
    SparkSession spark = (SparkSession) session;
    Map<String, String> withoutPath = new LinkedHashMap<>();
    String path = null;
    for (Map.Entry<String, String> option : options.entrySet()) {
      if (option.getKey().equalsIgnoreCase("path")) {
        path = option.getValue();
      } else {
        withoutPath.put(option.getKey(), option.getValue());
      }
    }
    if (path == null) {
      throw new IllegalArgumentException("The bronze file source needs a path");
    }
    FileStreamSource files =
        new FileStreamSource(
            spark,
            path,
            BoundedTextFormat.class.getName(),
            schema,
            scala.collection.immutable.Seq$.MODULE$.<String>empty(),
            metadataPath,
            scalaMap(withoutPath));
    // What the file source gives the batch's own data source: globs are not expanded again.
    Map<String, String> batchOptions = new HashMap<>(withoutPath);
    batchOptions.put(DataSource$.MODULE$.GLOB_PATHS_KEY(), "false");
    return new CheckedFileStreamSource(
        files,
        spark,
        new Path(metadataPath),
        schema,
        batchOptions,
        badFilesTable == null ? null : new BadFiles(badFilesTable, pipeline, spark),
        lastBatchCommitted(spark, new Path(metadataPath)));
  }

  /** Whether the query's last planned batch committed (the source log is checkpoint/sources/N). */
  private static boolean lastBatchCommitted(SparkSession spark, Path sourceLog) {
    Configuration conf = spark.sessionState().newHadoopConf();
    String checkpoint = sourceLog.getParent().getParent().toString();
    try {
      var planned = FileSourceLog.lastPlannedBatch(conf, checkpoint);
      return planned.isPresent()
          && planned.equals(FileSourceLog.lastCommittedBatch(conf, checkpoint));
    } catch (IOException e) {
      return false; // then the replayed batch is planned as Spark plans it
    }
  }

  @Override
  public org.apache.spark.sql.Dataset<Row> getBatch(Option<Offset> start, Offset end) {
    if (committedBatchReplay) {
      committedBatchReplay = false;
      return relation(List.of()); // discarded unread: see committedBatchReplay
    }
    long last = FileStreamSourceOffset$.MODULE$.apply(end).logOffset();
    Dataset<Row> batch;
    try {
      batch = files.getBatch(start, end);
    } catch (Exception e) { // the lookup's IOException, thrown by Scala without declaring it
      if (badFiles == null || !causedByIo(e)) {
        throw e;
      }
      return withoutFilesFailingLookup(start, last, e);
    }
    if (badFiles != null) {
      recordDropped(batch, last);
    }
    return batch;
  }

  /**
   * Planning failed on a lookup. Each planned file is looked up again, alone; those that fail are
   * recorded and the batch is planned over the others. When every lookup succeeds now, the failure
   * was not one file's: the batch fails as it did.
   */
  private Dataset<Row> withoutFilesFailingLookup(Option<Offset> start, long last, Exception e) {
    long first =
        start.isDefined() ? FileStreamSourceOffset$.MODULE$.apply(start.get()).logOffset() + 1 : 0;
    Configuration conf = spark.sessionState().newHadoopConf();
    List<String> readable = new ArrayList<>();
    Map<Long, List<BadFiles.BadFile>> failed = new LinkedHashMap<>();
    try {
      for (long b = first; b <= last; b++) {
        for (String file : FileSourceLog.filesIn(conf, sourceLog, b)) {
          Optional<BadFiles.BadFile> bad = BadFiles.lookUp(conf, file);
          if (bad.isPresent()) {
            failed.computeIfAbsent(b, k -> new ArrayList<>()).add(bad.get());
          } else {
            readable.add(new Path(URI.create(file)).toString());
          }
        }
      }
    } catch (IOException io) {
      e.addSuppressed(io);
      throw sneaky(e);
    }
    if (failed.isEmpty()) {
      throw sneaky(e);
    }
    failed.forEach(this::record);
    return relation(readable);
  }

  /**
   * The index drops a planned file whose lookup found nothing (Spark's HadoopFSUtils ignores a
   * FileNotFoundException on a root path). Each planned file missing from the index is recorded:
   * with the error of looking it up now, or, should it be back already, as not found at planning.
   */
  private void recordDropped(Dataset<Row> batch, long last) {
    LogicalPlan plan = batch.queryExecution().analyzed();
    if (!(plan instanceof LogicalRelation relation)
        || !(relation.relation() instanceof HadoopFsRelation fsRelation)
        || !(fsRelation.location() instanceof PartitioningAwareFileIndex index)) {
      return;
    }
    Set<Path> found = new LinkedHashSet<>();
    CollectionConverters.asJava(index.allFiles()).forEach(status -> found.add(status.getPath()));
    List<Path> planned = CollectionConverters.asJava(index.rootPaths());
    if (found.size() >= planned.size()) {
      return; // every planned file is in the index: the usual case costs no lookup
    }
    Configuration conf = spark.sessionState().newHadoopConf();
    List<BadFiles.BadFile> dropped = new ArrayList<>();
    for (Path p : planned) {
      String file = p.toUri().toString();
      if (!found.contains(p)) {
        dropped.add(
            BadFiles.lookUp(conf, file)
                .orElseGet(
                    () ->
                        BadFiles.bad(
                            file,
                            null,
                            new java.io.FileNotFoundException(
                                file
                                    + " was not found when bronze batch "
                                    + last
                                    + " was planned"))));
      }
    }
    record(last, dropped);
  }

  private void record(long batch, List<BadFiles.BadFile> bad) {
    badFiles.record(bad, batch);
    for (BadFiles.BadFile f : bad) {
      LOG.warn(
          "File {} could not be looked up for bronze batch {}: {}: {} (left out of the batch,"
              + " recorded in {})",
          f.path(),
          batch,
          f.errorClass(),
          f.errorMessage(),
          badFiles.path());
    }
  }

  /**
   * The batch over these files, planned as the file source plans it: a relation over exactly these
   * paths (globs not expanded), marked streaming. Built through the public reader and
   * LogicalRelation's (relation, isStreaming) factory, whose signatures are the same on Spark 4.1
   * and 4.2; DataSource's own factory and resolveRelation are not (the cluster jar runs on both).
   */
  private Dataset<Row> relation(List<String> paths) {
    LogicalPlan read =
        spark
            .read()
            .format(BoundedTextFormat.class.getName())
            .schema(schema)
            .options(batchOptions)
            .load(paths.toArray(String[]::new))
            .queryExecution()
            .analyzed();
    if (!(read instanceof LogicalRelation files)) {
      throw new IllegalStateException(
          "Bronze expected a file relation for the batch's readable files, got " + read.nodeName());
    }
    return Dataset$.MODULE$.ofRows(spark, LogicalRelation$.MODULE$.apply(files.relation(), true));
  }

  private static boolean causedByIo(Throwable e) {
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
    throw (E) e;
  }

  private static scala.collection.immutable.Map<String, String> scalaMap(Map<String, String> map) {
    return scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(map));
  }

  // Everything else is the file source's own.

  @Override
  public StructType schema() {
    return files.schema();
  }

  @Override
  public Option<Offset> getOffset() {
    return files.getOffset();
  }

  @Override
  public org.apache.spark.sql.connector.read.streaming.Offset latestOffset(
      org.apache.spark.sql.connector.read.streaming.Offset start, ReadLimit limit) {
    return files.latestOffset(start, limit);
  }

  @Override
  public ReadLimit getDefaultReadLimit() {
    return files.getDefaultReadLimit();
  }

  @Override
  public org.apache.spark.sql.connector.read.streaming.Offset reportLatestOffset() {
    return files.reportLatestOffset();
  }

  @Override
  public void prepareForTriggerAvailableNow() {
    files.prepareForTriggerAvailableNow();
  }

  @Override
  public org.apache.spark.sql.connector.read.streaming.Offset initialOffset() {
    return files.initialOffset();
  }

  @Override
  public org.apache.spark.sql.connector.read.streaming.Offset deserializeOffset(String json) {
    return files.deserializeOffset(json);
  }

  @Override
  public void commit(Offset end) {
    files.commit(end);
  }

  @Override
  public void commit(org.apache.spark.sql.connector.read.streaming.Offset end) {
    files.commit(end);
  }

  @Override
  public void stop() {
    files.stop();
  }

  @Override
  public String toString() {
    return files.toString();
  }
}
