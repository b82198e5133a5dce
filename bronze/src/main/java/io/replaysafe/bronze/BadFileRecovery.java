package io.replaysafe.bronze;

import io.replaysafe.common.ErrorKind;
import io.replaysafe.common.config.PipelineConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a bronze run does about files it could not read once a batch ran (a file that fails its
 * lookup while the batch is planned never gets that far: {@link CheckedFileStreamSource}), and
 * about bad files someone asked to retry. Kept apart from the run itself: this is the only part
 * that reads files outside Spark's tasks and decides what to skip.
 */
final class BadFileRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(BadFileRecovery.class);

  /** A batch that keeps failing after its files were checked is not a bad file's doing. */
  private static final int MAX_ATTEMPTS = 3;

  private final PipelineConfig config;
  private final SparkSession spark;
  private final BadFiles badFiles;
  private final Map<Long, Integer> attempts = new HashMap<>();

  BadFileRecovery(PipelineConfig config, SparkSession spark, BadFiles badFiles) {
    this.config = config;
    this.spark = spark;
    this.badFiles = badFiles;
  }

  /**
   * The batch to run once more, skipping its unreadable files.
   *
   * @param wholeFiles files with a line over {@code source.maxLineBytes}: not read at all (other
   *     unreadable files keep the lines read before the damage)
   * @param recorded every file of the batch recorded as a bad file (not counted as read)
   */
  record Skip(long batch, List<String> wholeFiles, List<String> recorded) {}

  /**
   * A batch failed. When a file could not be read, every file of that batch is read to its end the
   * way the text source reads it (with the line-length limit); the unreadable ones are recorded as
   * bad files. Returns the batch, which is then run once more with unreadable files skipped. Any
   * other failure, or the same batch failing again and again, fails the run.
   */
  Skip afterFailedBatch(StreamingQueryException e) {
    // A CSV header's new column is raised while Spark reads the file, so Spark names the file as
    // unreadable; it is not, and checking it would not say so.
    if (io.replaysafe.common.ErrorMessages.raisedOnPurpose(e) instanceof NewColumnException fresh) {
      throw fresh;
    }
    // The store failing for a while (a read reset mid-response) is no bad file: the run ends
    // retryable, and no file is read again to check it.
    if (unreadableFile(e).isEmpty() || ErrorKind.storeFailedForAWhile(e)) {
      throw BronzeErrors.runFailed(config, e);
    }
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    String checkpoint = config.bronze().checkpoint();
    try {
      OptionalLong planned = FileSourceLog.lastPlannedBatch(conf, checkpoint);
      if (planned.isEmpty()
          || attempts.merge(planned.getAsLong(), 1, Integer::sum) > MAX_ATTEMPTS) {
        throw BronzeErrors.runFailed(config, e);
      }
      long batch = planned.getAsLong();
      List<BadFiles.BadFile> bad = new ArrayList<>();
      for (String file : FileState.of(spark, checkpoint).filesOf(batch - 1, batch)) {
        check(conf, file).ifPresent(bad::add);
      }
      if (bad.isEmpty()) {
        // Read whole now: what failed was not the file (or no longer is). Fail, naming it.
        throw BronzeErrors.runFailed(config, e);
      }
      badFiles.record(bad, batch);
      List<String> wholeFiles = new ArrayList<>();
      for (BadFiles.BadFile f : bad) {
        if (f.lineTooLong()) {
          wholeFiles.add(f.path());
        }
        LOG.warn(
            "Skipping unreadable file {} in bronze batch {}: {}: {} (recorded in {})",
            f.path(),
            batch,
            f.errorClass(),
            f.errorMessage(),
            badFiles.path());
      }
      return new Skip(batch, wholeFiles, bad.stream().map(BadFiles.BadFile::path).toList());
    } catch (IOException io) {
      throw BronzeErrors.runFailed(config, io);
    }
  }

  /** Reads the file to its end as bronze reads its format; what went wrong, if anything. */
  private Optional<BadFiles.BadFile> check(Configuration conf, String file) {
    var format = config.source().fileFormat();
    return switch (format) {
      case JSON -> BadFiles.check(conf, file, config.source().maxLineBytes());
      case CSV -> CsvFileFormat.check(conf, file, config.source());
      case PARQUET, AVRO -> FileSchemas.check(spark, format, file);
    };
  }

  /**
   * The path Spark names in FAILED_READ_FILE, or the file with a line over the limit, if that is
   * what failed.
   */
  static Optional<String> unreadableFile(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof LineTooLongException tooLong) {
        return Optional.of(tooLong.path());
      }
      if (t instanceof SparkThrowable st
          && st.getCondition() != null
          && st.getCondition().startsWith("FAILED_READ_FILE")) {
        return Optional.ofNullable(st.getMessageParameters().get("path"));
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return Optional.empty();
  }

  /**
   * Files someone asked to retry ({@code replaysafe bad-files retry}) are read again, whole, in one
   * Delta append whose transaction version is the latest decision time: a crash before they are
   * marked retried makes the next run's append a no-op instead of a duplicate. A file still
   * unreadable is opened again with its new error.
   *
   * @return how many files were read again
   */
  long reingestRetriedFiles() {
    List<Row> requested = badFiles.retryRequested();
    if (requested.isEmpty()) {
      return 0;
    }
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    List<String> readable = new ArrayList<>();
    long version = 0;
    for (Row r : requested) {
      String path = r.getString(0);
      Optional<BadFiles.BadFile> still = check(conf, path);
      if (still.isPresent()) {
        badFiles.record(List.of(still.get()), -1);
      } else {
        readable.add(path);
        version = Math.max(version, r.getTimestamp(1).getTime());
      }
    }
    if (readable.isEmpty()) {
      return 0;
    }
    BronzeRows.read(spark, config.source(), readable)
        .write()
        .format("delta")
        .mode("append")
        .option("txnAppId", "replaysafe-bad-file-retry-" + config.name())
        .option("txnVersion", version)
        .save(config.bronze().path());
    readable.forEach(badFiles::markRetried);
    LOG.info("Re-ingested {} file(s) marked for retry: {}", readable.size(), readable);
    // Ingested now, so cleanSource applies to them as to any batch's files; it passed them over
    // while they were bad (CheckedFileStreamSource.commit).
    SourceCleaner.of(config, conf).clean(readable);
    return readable.size();
  }
}
