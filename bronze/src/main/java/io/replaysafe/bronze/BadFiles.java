package io.replaysafe.bronze;

import static org.apache.spark.sql.functions.col;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.ErrorKind;
import io.replaysafe.common.ErrorMessages;
import io.replaysafe.common.Interruptions;
import io.replaysafe.common.RetryableException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.DeltaTables;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The files bronze could not read (corrupt or truncated compression, a codec without its native
 * library, a file gone between listing and read, permission denied, a line longer than {@code
 * source.maxLineBytes}), in a Delta table next to bronze ({@code <bronze path>_bad_files}). Bronze
 * skips such a file instead of failing every run on it, and records it here; it stays {@code open}
 * (and {@code replaysafe status} exits 3) until someone decides: {@code retry} (the next bronze run
 * reads the file again, whole) or {@code dismiss}. Every decision records who and why.
 */
public final class BadFiles {
  public static final String SUFFIX = "_bad_files";
  public static final String OPEN = "open";
  public static final String RETRY = "retry";
  public static final String RETRIED = "retried";
  public static final String DISMISSED = "dismissed";

  static final StructType SCHEMA =
      new StructType()
          .add("path", DataTypes.StringType, false)
          .add("size", DataTypes.LongType, true)
          .add("mtime", DataTypes.TimestampType, true)
          .add("error_class", DataTypes.StringType, true)
          .add("error_message", DataTypes.StringType, true)
          .add("batch_id", DataTypes.LongType, true)
          .add("recorded_at", DataTypes.TimestampType, true)
          .add("status", DataTypes.StringType, false)
          .add("decided_by", DataTypes.StringType, true)
          .add("decided_reason", DataTypes.StringType, true)
          .add("decided_at", DataTypes.TimestampType, true);

  /** One unreadable file: what it was and why it could not be read. */
  public record BadFile(
      String path, Long size, Timestamp mtime, String errorClass, String errorMessage) {
    /** True when the file holds a line over the limit: bronze then skips it whole. */
    public boolean lineTooLong() {
      return LineTooLongException.class.getName().equals(errorClass);
    }
  }

  /**
   * Per table path, how many times this JVM recorded files a batch skipped: a run that recorded
   * none knows it skipped none without reading the table ({@link #batchRecordsInThisJvm}). Every
   * such record is made on the driver, by the run's own source or recovery; the writer's lease
   * keeps any other process from running bronze on the same tables meanwhile.
   */
  private static final Map<String, AtomicLong> BATCH_RECORDS = new ConcurrentHashMap<>();

  private final String path;
  private final String pipeline;
  private final SparkSession spark;

  public BadFiles(PipelineConfig config, SparkSession spark) {
    this(pathFor(config), config.name(), spark);
  }

  /** The table at {@code path}, for the file source, which knows the pipeline only by name. */
  BadFiles(String path, String pipeline, SparkSession spark) {
    this.path = path;
    this.pipeline = pipeline;
    this.spark = spark;
  }

  public static String pathFor(PipelineConfig config) {
    String bronze = config.bronze().path();
    return (bronze.endsWith("/") ? bronze.substring(0, bronze.length() - 1) : bronze) + SUFFIX;
  }

  public String path() {
    return path;
  }

  private boolean exists() {
    // A pipeline in good health has no bad files, and so no table: its missing log directory is
    // one request on S3A, where Delta's own look takes four.
    return DeltaTables.mayExist(spark, path()) && DeltaTables.exists(spark, path());
  }

  /** Records the files as open (a file recorded before is opened again with the new error). */
  void record(List<BadFile> files, long batchId) {
    if (files.isEmpty()) {
      return;
    }
    Timestamp now = new Timestamp(System.currentTimeMillis());
    List<Row> rows = new ArrayList<>();
    for (BadFile f : files) {
      rows.add(
          RowFactory.create(
              f.path(),
              f.size(),
              f.mtime(),
              f.errorClass(),
              f.errorMessage(),
              batchId,
              now,
              OPEN,
              null,
              null,
              null));
    }
    if (batchId >= 0) {
      // Counted before the write: a record that fails half way is read back, never missed.
      BATCH_RECORDS.computeIfAbsent(path, p -> new AtomicLong()).incrementAndGet();
    }
    Dataset<Row> incoming = spark.createDataFrame(rows, SCHEMA);
    if (!exists()) {
      DeltaTable.createIfNotExists(spark)
          .location(path())
          .addColumns(SCHEMA)
          .comment("replaysafe: files bronze of pipeline " + pipeline + " could not read")
          .execute();
    }
    DeltaTable.forPath(spark, path())
        .as("t")
        .merge(incoming.as("s"), "t.path = s.path")
        .whenMatched()
        .updateAll()
        .whenNotMatched()
        .insertAll()
        .execute();
  }

  /** How many times this JVM recorded files skipped by a batch into this table so far. */
  long batchRecordsInThisJvm() {
    AtomicLong records = BATCH_RECORDS.get(path);
    return records == null ? 0 : records.get();
  }

  /** Files waiting for a decision ({@code open}) or for the next run ({@code retry}). */
  public Dataset<Row> unresolved() {
    if (!exists()) {
      return spark.createDataFrame(List.of(), SCHEMA);
    }
    return spark
        .read()
        .format("delta")
        .load(path())
        .where(col("status").isin(OPEN, RETRY))
        .orderBy("path");
  }

  /**
   * Those of {@code paths} that are recorded and undecided ({@code open} or {@code retry}): files
   * {@code cleanSource} must leave where they are.
   */
  Set<String> unresolvedAmong(List<String> paths) {
    if (paths.isEmpty() || !exists()) {
      return Set.of();
    }
    return new HashSet<>(
        unresolved()
            .where(col("path").isin(paths.toArray()))
            .select("path")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList());
  }

  /** Open files, for status: path to error. */
  public Map<String, String> open() {
    Map<String, String> open = new LinkedHashMap<>();
    if (!exists()) {
      return open;
    }
    for (Row r :
        spark
            .read()
            .format("delta")
            .load(path())
            .where(col("status").equalTo(OPEN))
            .orderBy("path")
            .collectAsList()) {
      open.put(r.getString(0), r.getString(3) + ": " + r.getString(4));
    }
    return open;
  }

  /**
   * Files recorded by a bronze batch since {@code since} (not the retried files still unreadable,
   * recorded with no batch), in the order recorded: what this run skipped, wherever it found them.
   */
  List<String> recordedSince(Timestamp since) {
    if (!exists()) {
      return List.of();
    }
    return spark
        .read()
        .format("delta")
        .load(path())
        .where(col("recorded_at").geq(since).and(col("batch_id").geq(0)))
        .orderBy("recorded_at", "path")
        .select("path")
        .as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList();
  }

  /** Files marked for retry: path and decision time, oldest decision first. */
  List<Row> retryRequested() {
    if (!exists()) {
      return List.of();
    }
    return spark
        .read()
        .format("delta")
        .load(path())
        .where(col("status").equalTo(RETRY))
        .orderBy("decided_at", "path")
        .select("path", "decided_at")
        .collectAsList();
  }

  /**
   * Records a decision on unresolved files: {@code retry} or {@code dismiss}. Refuses paths that
   * are not unresolved bad files, naming them, so a typo never passes for a decision.
   */
  public long decide(List<String> paths, String decision, String by, String reason) {
    String status =
        switch (decision.toLowerCase(Locale.ROOT)) {
          case "retry" -> RETRY;
          case "dismiss" -> DISMISSED;
          default -> throw new IllegalArgumentException("decision " + decision);
        };
    if (by == null || by.isBlank() || reason == null || reason.isBlank()) {
      throw BronzeErrors.badFileDecisionWithoutAuthor();
    }
    List<String> known =
        unresolved().select("path").as(org.apache.spark.sql.Encoders.STRING()).collectAsList();
    List<String> unknown = paths.stream().filter(p -> !known.contains(p)).toList();
    if (!unknown.isEmpty()) {
      throw BronzeErrors.notUnresolvedBadFiles(pipeline, unknown);
    }
    Map<String, String> set = new LinkedHashMap<>();
    set.put("status", "'" + status + "'");
    set.put("decided_by", sqlString(by));
    set.put("decided_reason", sqlString(reason));
    set.put("decided_at", "current_timestamp()");
    DeltaTable.forPath(spark, path()).updateExpr(inList(paths), set);
    return paths.size();
  }

  void markRetried(String path) {
    Map<String, String> set = new LinkedHashMap<>();
    set.put("status", "'" + RETRIED + "'");
    DeltaTable.forPath(spark, path()).updateExpr(inList(List.of(path)), set);
  }

  private static String inList(List<String> paths) {
    return "path IN (" + String.join(", ", paths.stream().map(BadFiles::sqlString).toList()) + ")";
  }

  private static String sqlString(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /**
   * Reads the file to its end the way bronze reads it (Hadoop file system, codec by extension,
   * lines of at most {@code maxLineBytes}) and returns what went wrong, if anything. A line over
   * the limit is named by its number and byte offset.
   */
  static Optional<BadFile> check(Configuration conf, String path, long maxLineBytes) {
    Path p = new Path(URI.create(path));
    FileStatus status = null;
    try {
      FileSystem fs = p.getFileSystem(conf);
      status = fs.getFileStatus(p);
      try (BoundedLineReader lines =
          BoundedLineReader.open(conf, p, path, 0, status.getLen(), maxLineBytes)) {
        while (lines.next()) {
          // reading to the end is the check
        }
      }
      return Optional.empty();
    } catch (FileNotFoundException e) {
      return Optional.of(bad(path, status, e));
    } catch (IOException | RuntimeException e) {
      return Optional.of(bad(path, status, e));
    }
  }

  /**
   * Looks the file up the way Spark's file index does when it plans a batch (a HEAD on S3): the
   * error, if that fails, names the file (S3A's {@code AccessDeniedException} for a 403, its {@code
   * FileNotFoundException} for a 404).
   */
  static Optional<BadFile> lookUp(Configuration conf, String path) {
    Path p = new Path(URI.create(path));
    try {
      p.getFileSystem(conf).getFileStatus(p);
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.of(bad(path, null, e));
    }
  }

  /**
   * The error recorded is the innermost I/O error: it names the file and the kind of failure (the
   * S3 client's {@code IOException} naming the object and the 403, S3A's {@code
   * FileNotFoundException}, a codec's {@code EOFException}); a cause below it is the SDK's
   * exception, which does not name the file.
   *
   * <p>Only a failure of the file is one: the store or the network failing for a while (a 503 after
   * S3A's retries, a connection reset, a timeout) or the thread being interrupted (a query stopped)
   * is thrown on, retryable or as the interruption Spark looks for ({@link Interruptions}), and the
   * file is not recorded. Recorded, a file read whole by a rerun stayed listed as bad (CI of stop
   * 42: a JSON file whose check was reset mid-response).
   */
  static BadFile bad(String path, FileStatus status, Throwable e) {
    if (ErrorKind.storeFailedForAWhile(e)) {
      Interruptions.rethrowIfInterrupted("reading " + path, e);
      throw new RetryableException(
          "Reading "
              + path
              + " failed for a while: "
              + ErrorMessages.rootMessage(e)
              + ". The store or the network failed, not the file: it is not recorded as a bad"
              + " file. Run again.",
          e);
    }
    Throwable root = e;
    while (root.getCause() != null
        && root.getCause() != root
        && (root.getCause() instanceof IOException || !(root instanceof IOException))) {
      root = root.getCause();
    }
    return new BadFile(
        path,
        status == null ? null : status.getLen(),
        status == null ? null : new Timestamp(status.getModificationTime()),
        root.getClass().getName(),
        String.valueOf(root.getMessage()));
  }
}
