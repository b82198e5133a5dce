package io.replaysafe.bronze;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.regexp_replace;
import static org.apache.spark.sql.functions.when;

import io.replaysafe.common.Columns;
import io.replaysafe.common.StorageErrors;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.DeltaTables;
import java.io.IOException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.fs.GlobPattern;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Each file's fate, as Auto Loader's {@code cloud_files_state} shows it, for {@code replaysafe
 * files}: the file state's row (discovered, batch, committed), the rows bronze holds from it, and
 * its bad-file record, whose decision sets the status ({@code bad} while open or waiting for a
 * retry, {@code dismissed}, {@code retried}). A file in a batch the query committed is {@code
 * ingested} even before a run recorded it so. Reads only; takes no lease.
 */
public final class FileStateView {
  /** The statuses a file can show, in the order of its life. */
  public static final List<String> STATUSES =
      List.of(FileState.DISCOVERED, FileState.INGESTED, "bad", "dismissed", "retried");

  /**
   * Which files to show: any may be absent.
   *
   * @param since files discovered at or after this instant
   * @param pathGlob a glob on the whole path ({@code *} and {@code ?} match within and across
   *     directories, as Hadoop's GlobPattern does)
   */
  public record Filter(
      Optional<String> status, Optional<Instant> since, Optional<String> pathGlob) {
    /** Every file. */
    public static final Filter ALL =
        new Filter(Optional.empty(), Optional.empty(), Optional.empty());

    public Filter {
      status.ifPresent(
          s -> {
            if (!STATUSES.contains(s)) {
              throw io.replaysafe.common.config.ConfigErrors.unknownValue("--status", s, STATUSES);
            }
          });
    }
  }

  private FileStateView() {}

  /** The files of the pipeline's bronze checkpoint, empty when it has no file state yet. */
  public static Optional<Dataset<Row>> files(
      SparkSession spark, PipelineConfig config, Filter filter) {
    String checkpoint = config.bronze().checkpoint();
    FileState state = FileState.of(spark, checkpoint);
    if (!state.exists()) {
      return Optional.empty();
    }
    long lastCommitted;
    try {
      lastCommitted =
          FileSourceLog.lastCommittedBatch(spark.sparkContext().hadoopConfiguration(), checkpoint)
              .orElse(-1);
    } catch (IOException e) {
      throw StorageErrors.cannotAccess("the bronze checkpoint", checkpoint, e);
    }
    Dataset<Row> files = state.read().as("f");
    if (filter.since().isPresent()) {
      files = files.where(col("discovered_at").geq(lit(Timestamp.from(filter.since().get()))));
    }
    if (filter.pathGlob().isPresent()) {
      files =
          files.where(
              col("path")
                  .rlike("^" + GlobPattern.compile(filter.pathGlob().get()).pattern() + "$"));
    }
    String badPath = BadFiles.pathFor(config);
    Column status = col("f.status");
    Column badFile = lit(null).cast("string");
    if (DeltaTables.exists(spark, badPath)) {
      Dataset<Row> bad =
          spark
              .read()
              .format("delta")
              .load(badPath)
              .select(
                  col("path").as("bad_path"),
                  col("status").as("bad_status"),
                  concat_ws(": ", col("error_class"), col("error_message")).as("bad_error"));
      files = files.join(bad, col("f.path").equalTo(col("bad_path")), "left");
      status =
          when(col("bad_status").isin(BadFiles.OPEN, BadFiles.RETRY), lit("bad"))
              .when(col("bad_status").equalTo(BadFiles.DISMISSED), lit("dismissed"))
              .when(col("bad_status").equalTo(BadFiles.RETRIED), lit("retried"))
              .otherwise(status);
      badFile = col("bad_error");
    }
    status =
        when(
                status.equalTo(FileState.DISCOVERED).and(col("f.batch_id").leq(lastCommitted)),
                lit(FileState.INGESTED))
            .otherwise(status);
    Dataset<Row> shown =
        files.select(
            col("f.path").as("path"),
            status.as("status"),
            col("f.batch_id").as("batch_id"),
            col("f.discovered_at").as("discovered_at"),
            col("f.discovered_by").as("discovered_by"),
            col("f.committed_at").as("committed_at"),
            col("f.size").as("size"),
            col("f.modification_time").as("modification_time"),
            col("f.etag").as("etag"),
            badFile.as("bad_file"),
            cleaned(config, status).as("cleaned"));
    if (filter.status().isPresent()) {
      shown = shown.where(col("status").equalTo(filter.status().get()));
    }
    return Optional.of(withRows(spark, config, shown));
  }

  /**
   * What {@code cleanSource} does with the file, by the pipeline's setting: {@code archived} or
   * {@code deleted} once it is ingested (a retried file once its retry ingested it), null while it
   * waits, is bad or was dismissed (those stay where they are), and with {@code cleanSource} off.
   * Derived, not observed: a move that failed is in the run's warnings, not here.
   */
  private static Column cleaned(PipelineConfig config, Column status) {
    String done = SourceCleaner.Mode.of(config.source().options().sparkOptions()).done();
    if (done == null) {
      return lit(null).cast("string");
    }
    return when(status.isin(FileState.INGESTED, "retried"), lit(done))
        .otherwise(lit(null).cast("string"));
  }

  private static Column localForm(Column path) {
    return regexp_replace(path, "^file:///", "file:/");
  }

  /**
   * The rows bronze holds from each file: 0 for an ingested file that holds none (an empty file),
   * null for a file bronze holds no rows of otherwise (a bad file, one not yet committed).
   */
  private static Dataset<Row> withRows(
      SparkSession spark, PipelineConfig config, Dataset<Row> files) {
    String bronze = config.bronze().path();
    if (!DeltaTables.exists(spark, bronze)) {
      return files.withColumn("rows", lit(null).cast("bigint"));
    }
    Dataset<Row> counts =
        spark
            .read()
            .format("delta")
            .load(bronze)
            .groupBy(col(Columns.SOURCE_FILE).as("counted_path"))
            .count();
    // Spark names a local file file:/x in _metadata and file:///x in its listings.
    return files
        .join(
            counts,
            localForm(files.col("path")).equalTo(localForm(counts.col("counted_path"))),
            "left")
        .withColumn(
            "rows",
            when(col("count").isNull().and(col("status").equalTo(FileState.INGESTED)), lit(0L))
                .otherwise(col("count")))
        .drop("counted_path", "count")
        .select(
            "path",
            "status",
            "batch_id",
            "rows",
            "discovered_at",
            "discovered_by",
            "committed_at",
            "size",
            "modification_time",
            "etag",
            "bad_file",
            "cleaned");
  }
}
