package io.replaysafe.bronze;

import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.StorageErrors;
import io.replaysafe.common.config.SourceFormat;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.classic.Dataset;
import org.apache.spark.sql.classic.Dataset$;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReportsSourceMetrics;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.apache.spark.sql.execution.datasources.DataSource$;
import org.apache.spark.sql.execution.datasources.FileFormat;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.InMemoryFileIndex;
import org.apache.spark.sql.execution.datasources.LogicalRelation$;
import org.apache.spark.sql.execution.streaming.Offset;
import org.apache.spark.sql.execution.streaming.Source;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Bronze's file stream source. Each batch is planned from a {@link FileDiscovery} (a listing of
 * {@code source.path}, or S3 notifications) against the {@link FileState}: the candidates the
 * discovery found that no planned batch holds are the new files, taken oldest first (newest with
 * {@code latestFirst}) up to {@code maxFilesPerTrigger} or {@code maxBytesPerTrigger}, written to
 * the file state under the next batch number, and only then returned as the batch's offset, which
 * Spark writes to its offset log. A run stopped in between finds them in a batch it never planned
 * and plans them again; a batch planned but not committed is read again from the file state, with
 * the same files. Memory and time follow the files a run considers, never the files ever seen.
 *
 * <p>When the batch runs, each file is looked up once (a HEAD on S3), and the batch's file index is
 * built from those lookups ({@link BatchFiles}): Spark's file source looked each file up by listing
 * it, a LIST and a HEAD on S3. A file gone since it was found, or whose lookup fails otherwise (a
 * 403 on S3), is a bad file by bronze's rule: it is recorded in the bad-files table, with the
 * lookup's own error, and left out of that batch; the run goes on. They are recorded before the
 * batch is handed to the query, so before it commits: a run stopped in between plans the same batch
 * again and records the same files again (the table merges on path), and none is lost.
 *
 * <p>Parquet and Avro files are read on their own schemas ({@link RescuingFileFormat}): each file's
 * schema is read from its footer or header while the batch is planned ({@link FileSchemas}), and a
 * file whose schema cannot be read is recorded and left out the same way.
 */
final class CheckedFileStreamSource
    implements Source, SupportsTriggerAvailableNow, ReportsSourceMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(CheckedFileStreamSource.class);

  /**
   * The source's metric in each batch's progress: how many files the batch read, those recorded as
   * bad files not counted ({@link BronzeBatch}). Counted here, where the batch's files are known,
   * and not by the query: a distinct count of each row's path cost a per-row copy and hash of that
   * path, about 2 s of a 7 s run of 5,000,000 Parquet events (scripts/bench-bronze --append).
   */
  static final String FILES_METRIC = "files";

  /**
   * Option: a JSON list of the files recorded as bad files of the batch a query runs again skipping
   * them ({@link BadFileRecovery}). They are read as Spark skips them, and not counted as read.
   */
  static final String RECORDED_BAD = "recordedBadFiles";

  private final SparkSession spark;
  private final StructType schema;
  private final Map<String, String> batchOptions;
  private final BadFiles badFiles;
  private final FileState state;
  private final FileDiscovery discovery;
  private final BatchLimits limits;
  private final SourceCleaner cleaner;
  private final SourceFormat format;

  /** The files {@value #RECORDED_BAD} names; empty for any query but that one. */
  private final Set<String> recordedBad;

  /**
   * True until the first batch when the query restarts after a committed batch: Spark then asks for
   * that batch once more and discards it (a Kafka source needs the call; see MicroBatchExecution).
   * Planning it would look every one of its files up again, the denied ones too, for nothing.
   */
  private boolean committedBatchReplay;

  /** With Trigger.AvailableNow: the files found when the run began, not yet planned. */
  private boolean availableNow;

  private Deque<FileState.Discovered> remaining;

  /** Whether files recorded in a batch Spark never planned (a stop in between) were removed. */
  private boolean unplannedForgotten;

  /**
   * The run's look for new files before it started this query ({@link FirstLook}), until the first
   * batch is planned; null when it took none.
   */
  private FirstLook look;

  /** The batch this source planned last, while it runs; null before. */
  private PlannedBatch planned;

  /** The last batch handed to the query and how many files it reads ({@link #FILES_METRIC}). */
  private long countedBatch = -1;

  private int countedFiles;

  private CheckedFileStreamSource(
      SparkSession spark,
      StructType schema,
      Map<String, String> batchOptions,
      BadFiles badFiles,
      FileState state,
      FileDiscovery discovery,
      BatchLimits limits,
      SourceCleaner cleaner,
      SourceFormat format,
      Set<String> recordedBad,
      boolean committedBatchReplay,
      FirstLook look) {
    this.spark = spark;
    this.schema = schema;
    this.batchOptions = Map.copyOf(batchOptions);
    this.badFiles = badFiles;
    this.state = state;
    this.discovery = discovery;
    this.limits = limits;
    this.cleaner = cleaner;
    this.format = format;
    this.recordedBad = Set.copyOf(recordedBad);
    this.committedBatchReplay = committedBatchReplay;
    this.look = look;
  }

  /**
   * The source over {@code path}, reading with {@link BoundedTextFormat} (JSON lines), {@link
   * CsvFileFormat} (CSV) or {@link RescuingFileFormat} (Parquet, Avro). The batch's data source
   * gets the options without {@code path}: Spark would then set {@code basePath} and add the
   * directories' {@code key=value} names as partition columns, which bronze never reads (it keeps
   * only the line and {@code _metadata}). A checkpoint written by Spark's file source is adopted
   * here, on its first run after the upgrade ({@link FileState#adopt}).
   *
   * @param metadataPath the checkpoint's {@code sources/0}
   * @param badFilesTable where lookup failures are recorded; without it they fail the batch
   * @param format the files' format
   */
  static CheckedFileStreamSource create(
      org.apache.spark.sql.SparkSession session,
      String metadataPath,
      StructType schema,
      Map<String, String> options,
      String badFilesTable,
      String pipeline,
      SourceFormat format) {
    SparkSession spark = (SparkSession) session;
    // Spark hands a source its options in a case-insensitive map whose keys come out lowercased
    // ("maxfilespertrigger"): read by their names, maxFilesPerTrigger, cleanSource and the rest
    // went unseen. Looked up as Spark looks them up.
    Map<String, String> withoutPath = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
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
    Configuration conf = spark.sessionState().newHadoopConf();
    String checkpoint = new Path(metadataPath).getParent().getParent().toString();
    FileState state = FileState.of(spark, checkpoint);
    // A run's look was taken on a file state that exists, after the last planned batch, which
    // committed (FirstLook): nothing to adopt, and Spark replays that committed batch.
    Optional<FirstLook> look = Discoveries.takeFirstLook(checkpoint);
    if (look.isEmpty()) {
      adoptIfNeeded(conf, checkpoint, state, pipeline);
    }
    boolean committedBatchReplay =
        look.isPresent() ? look.get().after() >= 0 : lastBatchCommitted(conf, checkpoint);
    String sourcePath = path;
    FileDiscovery discovery =
        Discoveries.forCheckpoint(checkpoint)
            .orElseGet(() -> new ListingDiscovery(conf, sourcePath, withoutPath));
    // What the batch's own data source gets: globs are not expanded again.
    Map<String, String> batchOptions = new HashMap<>(withoutPath);
    batchOptions.put(DataSource$.MODULE$.GLOB_PATHS_KEY(), "false");
    return new CheckedFileStreamSource(
        spark,
        schema,
        batchOptions,
        badFilesTable == null ? null : new BadFiles(badFilesTable, pipeline, spark),
        state,
        discovery,
        BatchLimits.of(withoutPath),
        new SourceCleaner(conf, withoutPath),
        format,
        recordedBad(withoutPath),
        committedBatchReplay,
        look.orElse(null));
  }

  private static Set<String> recordedBad(Map<String, String> options) {
    String json = options.get(RECORDED_BAD);
    return json == null ? Set.of() : PathListOption.decode(RECORDED_BAD, json);
  }

  /**
   * A checkpoint without a file state was written by a release that ran Spark's file source (or is
   * new): its log is read whole, this once, into the file state, each file in the batch it went
   * into, so nothing is ingested twice and nothing is skipped.
   */
  private static void adoptIfNeeded(
      Configuration conf, String checkpoint, FileState state, String pipeline) {
    if (state.exists()) {
      return;
    }
    try {
      List<FileSourceLog.Entry> entries = FileSourceLog.allEntries(conf, checkpoint);
      long committed = FileSourceLog.lastCommittedBatch(conf, checkpoint).orElse(-1);
      state.adopt(entries, committed, pipeline);
      if (!entries.isEmpty()) {
        LOG.info(
            "Adopted the file log of bronze checkpoint {}: {} file(s) into {}",
            checkpoint,
            entries.size(),
            state.path());
      }
    } catch (IOException e) {
      throw StorageErrors.cannotAccess("the bronze checkpoint", checkpoint, e);
    }
  }

  /** Whether the query's last planned batch committed. */
  private static boolean lastBatchCommitted(Configuration conf, String checkpoint) {
    try {
      var planned = FileSourceLog.lastPlannedBatch(conf, checkpoint);
      return planned.isPresent()
          && planned.equals(FileSourceLog.lastCommittedBatch(conf, checkpoint));
    } catch (IOException e) {
      return false; // then the replayed batch is planned as any other
    }
  }

  @Override
  public org.apache.spark.sql.connector.read.streaming.Offset latestOffset(
      org.apache.spark.sql.connector.read.streaming.Offset start, ReadLimit limit) {
    long last = start == null ? -1 : BatchOffset.of(start);
    if (!availableNow) {
      // A query that runs for days lets each notification go once its file's batch is in the
      // offset log (an availableNow run lets them go at its end: FileDiscovery#committed).
      discovery.release(last);
    }
    List<FileState.Discovered> looked = lookedAfter(last);
    // The file state's version this batch is decided on, read when the run's look does not
    // decide it: its log is listed once for both questions below.
    FileState.Version version = null;
    if (!unplannedForgotten) {
      // The look found no batch after the last planned one to forget.
      if (looked == null) {
        version = state.latest();
        if (version.lastPlanned().orElse(-1) > last) {
          state.forgetAfter(last);
          version = null; // the table changed
        }
      }
      unplannedForgotten = true;
    }
    if (remaining == null || !availableNow) {
      remaining =
          new ArrayDeque<>(
              looked != null ? looked : newFiles(last, version != null ? version : state.latest()));
    }
    List<FileState.Discovered> next = limits.take(remaining);
    if (next.isEmpty()) {
      discovery.planned(last + 1, List.of(), paths(remaining));
      return start;
    }
    state.plan(next, last + 1, discovery);
    discovery.planned(last + 1, paths(next), paths(remaining));
    planned = PlannedBatch.of(last + 1, next);
    // Crash matrix only: the batch's files recorded, its offset not yet in Spark's log.
    CrashPoints.maybeCrash(CrashPoints.BRONZE_AFTER_FILE_STATE_PLAN);
    return new BatchOffset(last + 1);
  }

  private static List<String> paths(java.util.Collection<FileState.Discovered> files) {
    return files.stream().map(FileState.Discovered::path).toList();
  }

  /** The discovery's candidates that no planned batch holds, in the order they are taken. */
  private List<FileState.Discovered> newFiles(long lastPlanned, FileState.Version version) {
    return NewFiles.among(discovery, lastPlanned, version, limits);
  }

  /**
   * The files of {@code (first, last]}, in path order: those this source just planned into {@code
   * last} when that is the one batch asked for (they are what the file state holds for it: written
   * by this source, after nothing was left above {@code first}), else the file state's.
   */
  private List<String> filesOf(long first, long last) {
    if (planned != null && planned.batch() == last && first == last - 1) {
      return planned.paths();
    }
    return state.filesOf(first, last);
  }

  /** The batch this source planned last and its files. */
  private record PlannedBatch(long batch, List<String> paths) {
    static PlannedBatch of(long batch, List<FileState.Discovered> files) {
      return new PlannedBatch(
          batch, files.stream().map(FileState.Discovered::path).sorted().toList());
    }
  }

  /**
   * The run's look, once, when this query's first batch follows the batch it was taken after;
   * otherwise null (and the look is dropped): the source then discovers as it always does.
   */
  private List<FileState.Discovered> lookedAfter(long last) {
    FirstLook taken = look;
    look = null;
    if (taken == null) {
      return null;
    }
    if (taken.after() != last) {
      LOG.warn(
          "Bronze source {} starts after batch {}, its run looked for new files after batch {}:"
              + " discovering again",
          state.path(),
          last,
          taken.after());
      return null;
    }
    return taken.files();
  }

  @Override
  public org.apache.spark.sql.Dataset<Row> getBatch(Option<Offset> start, Offset end) {
    if (committedBatchReplay) {
      committedBatchReplay = false;
      return relation(Map.of(), Map.of(), newFormat()); // discarded unread: committedBatchReplay
    }
    long first = start.isDefined() ? BatchOffset.of(start.get()) : -1;
    long last = BatchOffset.of(end);
    List<String> files = filesOf(first, last);
    Map<String, String> fileOptions = Map.of();
    FileFormat fileFormat = newFormat();
    if (format.selfDescribing()) {
      FileSchemas.Read schemas = FileSchemas.read(spark, format, files);
      leaveOut(schemas.unreadable(), last);
      files = schemas.readable();
      fileOptions = Map.of(RescuingFileFormat.FILE_SCHEMAS, schemas.option());
      // Columnar when a Parquet file's footer allows it: decided on the footers just read.
      fileFormat = RescuingFileFormat.forBatch(spark, format, declaredSchema(), schemas);
    }
    BatchFiles.LookedUp looked = BatchFiles.lookUp(spark, files);
    leaveOut(looked.failed(), last);
    countedBatch = last;
    countedFiles =
        (int) looked.found().keySet().stream().filter(f -> !recordedBad.contains(f)).count();
    return relation(looked.found(), fileOptions, fileFormat);
  }

  /**
   * The files of the batch this progress reports ({@link #FILES_METRIC}), once: a continuous
   * query's idle triggers report the same offset again, and read no file.
   */
  @Override
  public Map<String, String> metrics(
      Optional<org.apache.spark.sql.connector.read.streaming.Offset> latestConsumed) {
    if (latestConsumed.isEmpty() || BatchOffset.of(latestConsumed.get()) != countedBatch) {
      return Map.of();
    }
    countedBatch = -1;
    return Map.of(FILES_METRIC, Integer.toString(countedFiles));
  }

  /** The source's declared schema, as the batch options give it to the format. */
  private StructType declaredSchema() {
    return (StructType)
        org.apache.spark.sql.types.DataType.fromJson(batchOptions.get(RescuingFileFormat.SCHEMA));
  }

  /**
   * Records the files that could not be looked up or opened, before the batch is handed to the
   * query; without a bad-files table (a read outside a bronze run) the batch fails on the first.
   */
  private void leaveOut(List<BadFiles.BadFile> bad, long batch) {
    if (bad.isEmpty()) {
      return;
    }
    if (badFiles == null) {
      throw BronzeErrors.unreadableFile(bad.get(0));
    }
    record(batch, bad);
  }

  /**
   * The batch over these files as Spark's file source plans it, a streaming relation over exactly
   * these files (globs not expanded), but with a file index built from the batch's own lookups
   * ({@link BatchFiles}): Spark's would look every file up again, by listing it.
   *
   * @param files each file's status, by the file as the file state names it
   */
  private Dataset<Row> relation(
      Map<String, FileStatus> files, Map<String, String> fileOptions, FileFormat fileFormat) {
    var options = scalaMap(withFileOptions(fileOptions));
    InMemoryFileIndex index = BatchFiles.index(spark, files, options, schema);
    HadoopFsRelation relation =
        new HadoopFsRelation(
            index, index.partitionSchema(), schema, Option.empty(), fileFormat, options, spark);
    return Dataset$.MODULE$.ofRows(spark, LogicalRelation$.MODULE$.apply(relation, true));
  }

  private FileFormat newFormat() {
    return switch (format) {
      case JSON -> new BoundedTextFormat();
      case CSV -> new CsvFileFormat();
      case PARQUET, AVRO -> new RescuingFileFormat();
    };
  }

  /** The batch's options and, for Parquet and Avro, its files' schemas. */
  private Map<String, String> withFileOptions(Map<String, String> fileOptions) {
    if (fileOptions.isEmpty()) {
      return batchOptions;
    }
    Map<String, String> options = new HashMap<>(batchOptions);
    options.putAll(fileOptions);
    return options;
  }

  private void record(long batch, List<BadFiles.BadFile> bad) {
    badFiles.record(bad, batch);
    for (BadFiles.BadFile f : bad) {
      LOG.warn(
          "File {} could not be looked up or opened for bronze batch {}: {}: {} (left out of the"
              + " batch, recorded in {})",
          f.path(),
          batch,
          f.errorClass(),
          f.errorMessage(),
          badFiles.path());
    }
  }

  private static scala.collection.immutable.Map<String, String> scalaMap(Map<String, String> map) {
    return scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(map));
  }

  @Override
  public StructType schema() {
    return schema;
  }

  @Override
  public Option<Offset> getOffset() {
    throw new UnsupportedOperationException("The bronze source plans batches with latestOffset");
  }

  @Override
  public ReadLimit getDefaultReadLimit() {
    return ReadLimit.allAvailable(); // the limits are the source's own: BatchLimits
  }

  @Override
  public void prepareForTriggerAvailableNow() {
    availableNow = true;
  }

  @Override
  public void commit(Offset end) {
    long batch = BatchOffset.of(end);
    // Spark commits a batch to its source when it plans the next one. A continuous query runs for
    // hours: its batches are marked as they go, so the file state holds no unmarked day of files
    // and its small files are compacted by the marks (an availableNow run marks once, at its end).
    if (!availableNow) {
      state.markCommitted(batch);
    }
    cleaner.cleanBatch(state, badFiles, batch);
  }

  @Override
  public void stop() {}

  @Override
  public String toString() {
    return "BronzeFileSource[" + state.path() + "]";
  }
}
