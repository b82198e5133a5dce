package io.replaysafe.bronze;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.ErrorMessages;
import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SchemaChange;
import io.replaysafe.common.config.SourceFormat;
import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Every error the bronze job raises on purpose, each saying what failed, why, and how to fix it. (A
 * new field under {@code failOnNewColumns} is {@link NewColumnException}: it is raised inside a
 * Spark task and recognised by its class.)
 */
public final class BronzeErrors {
  private BronzeErrors() {}

  /** A run failed for a reason replaysafe did not raise itself (S3, Spark, the Delta log). */
  public static RuntimeException runFailed(PipelineConfig config, Exception e) {
    return ErrorMessages.runFailed(
        "Bronze run of pipeline '" + config.name() + "'",
        // Every error names the file when Spark says which one it could not read.
        BadFileRecovery.unreadableFile(e).map(f -> "file " + f + " of ").orElse("")
            + config.source().path(),
        config.bronze().path(),
        ErrorMessages.rootMessage(e),
        "The checkpoint " + config.bronze().checkpoint(),
        e);
  }

  /** {@code source.format: avro} on a Spark without spark-avro (plain Spark does not ship it). */
  static ConfigException avroMissing(Throwable cause) {
    return new ConfigException(
        "Cannot read source.format 'avro': Spark's Avro reader (spark-avro) is not on the"
            + " classpath; plain Spark does not ship it (Databricks does). Add it to the job, e.g."
            + " spark-submit --packages org.apache.spark:spark-avro_2.13:<your Spark version>",
        cause);
  }

  /**
   * A line over {@code source.maxLineBytes}.
   *
   * @param lineNumber 1-based, or 0 when the reader did not start at the beginning of the file
   * @param offset the line's first byte in the (uncompressed) file, or -1 when not known
   * @param bytes the bytes the line took in the file, its line break included; a lower bound when
   *     {@code exact} is false (the reader stopped before the line's end)
   */
  static LineTooLongException lineTooLong(
      String path, long lineNumber, long offset, long bytes, boolean exact, long limit) {
    String where =
        (lineNumber > 0 ? "line " + lineNumber : "a line")
            + (offset >= 0 ? " (at byte " + offset + ")" : "");
    return new LineTooLongException(
        "Cannot read "
            + path
            + ": "
            + where
            + " is "
            + (exact ? "" : "at least ")
            + bytes
            + " bytes long"
            + (exact ? " with its line break" : "")
            + ", more than source.maxLineBytes ("
            + limit
            + " bytes). Bronze reads no line over that limit, since it holds a line in memory several"
            + " times over, and it never truncates one: it skips the whole file and records it in"
            + " the bad files. To ingest the file, raise source.maxLineBytes in the pipeline file"
            + " (and the heap with it; see the README, Big lines), then run 'replaysafe bad-files"
            + " retry --paths "
            + path
            + " --by WHO --reason WHY'.",
        path);
  }

  /**
   * A CSV record longer than {@code source.maxLineBytes} characters: a line, or the lines of one
   * quoted value (an unterminated quote runs on to the end of the file).
   */
  static LineTooLongException csvRecordTooLong(String path, long limit) {
    return new LineTooLongException(
        "Cannot read "
            + path
            + ": a record is more than source.maxLineBytes ("
            + limit
            + ") characters long (a line, or the lines of one quoted value; an unterminated quote"
            + " makes the rest of the file one value). Bronze never truncates a record: it skips"
            + " the whole file and records it in the bad files. To ingest it, fix the file or raise"
            + " source.maxLineBytes (and the heap with it; see the README, Big lines), then run"
            + " 'replaysafe bad-files retry --paths "
            + path
            + " --by WHO --reason WHY'.",
        path);
  }

  /** The checkpoint remembers another source than the pipeline file names. */
  static ConfigException checkpointOfAnotherSource(
      String checkpoint, String property, Object was, String is) {
    return new ConfigException(
        "Cannot use bronze.checkpoint "
            + checkpoint
            + ": it belongs to a source with "
            + property
            + " '"
            + was
            + "', and this pipeline's source has "
            + property
            + " '"
            + is
            + "'. A checkpoint tracks the files of one source only. Give this source its own"
            + " bronze.checkpoint (or, to start over on purpose, delete the checkpoint:"
            + " every file under source.path is then ingested again).");
  }

  /** A new column named like the rescued-data column an earlier version of the source had. */
  static ConfigException columnOfFormerRescuedName(String column) {
    return new ConfigException(
        "Cannot add column '"
            + column
            + "' to source.schema: bronze already holds a column of that name, the"
            + " rescued-data column of an earlier version of this source. Give the new"
            + " column another name.");
  }

  /** Schema changes the rows already in bronze cannot follow. */
  static ConfigException incompatibleSchema(String checkpoint, List<SchemaChange> refused) {
    return new ConfigException(
        "Cannot continue bronze.checkpoint "
            + checkpoint
            + " with the new source.schema: "
            + refused.stream().map(SchemaChange::describe).collect(Collectors.joining("; "))
            + ". Rows already in bronze were stored under the old schema, and this change would"
            + " lose or reinterpret them; only adding nullable columns (or struct fields) and"
            + " widening types (e.g. INT to BIGINT, FLOAT to DOUBLE, DECIMAL precision up, DATE to"
            + " TIMESTAMP_NTZ) are applied in place. To make this change, either (1) re-parse"
            + " every file into a new bronze table: set bronze.path and bronze.checkpoint to new"
            + " locations and run bronze (each file under source.path is read again with the new"
            + " schema), then give silver a new silver.checkpoint; or (2) start the new schema"
            + " with the files that land from now on: set new bronze.path and bronze.checkpoint"
            + " and point source.path at a new prefix (or narrow it with"
            + " source.options.pathGlobFilter) holding only the newer files. Or keep the old"
            + " schema in source.schema.");
  }

  /** A decision on bad files must say who made it and why. */
  static ConfigException badFileDecisionWithoutAuthor() {
    return new ConfigException("A bad-file decision needs --by (who) and --reason (why)");
  }

  /** A decision names paths that are not unresolved bad files (a typo, or already decided). */
  static ConfigException notUnresolvedBadFiles(String pipeline, List<String> paths) {
    return new ConfigException(
        "Not unresolved bad files of pipeline '"
            + pipeline
            + "': "
            + paths
            + ". See 'replaysafe bad-files list' for the paths (as recorded).");
  }

  /** Rescued data cannot be promoted before bronze has a table. */
  static ConfigException noBronzeTableToPromote(String pipeline, String bronzePath) {
    return new ConfigException(
        "Cannot promote rescued data of pipeline '"
            + pipeline
            + "': there is no bronze table at "
            + bronzePath
            + " yet. Run 'replaysafe bronze' first.");
  }

  /** A source.schema column the bronze table does not have (at that type) yet. */
  static ConfigException promotedColumnNotInBronze(
      String column, String bronzePath, String typeSql) {
    return new ConfigException(
        "Cannot promote rescued data into column '"
            + column
            + "': the bronze table at "
            + bronzePath
            + " does not have it as "
            + typeSql
            + " yet. Run 'replaysafe bronze' first: it evolves the table to source.schema.");
  }

  /** A rescued-data value bronze wrote does not parse as JSON. */
  static ReplaysafeException unreadableRescuedData(String shown, Exception cause) {
    return new ReplaysafeException(
        "Cannot read a rescued-data value as JSON (" + shown + ")", cause);
  }

  /** {@code replaysafe init} found no data file to sample. */
  static ConfigException nothingToSample(String path) {
    return new ConfigException(
        "Cannot draft a pipeline from "
            + path
            + ": it holds no data files (or does not exist). Point --source at the directory"
            + " your files land in, with at least one file in it.");
  }

  /**
   * {@code init} reads a sample in one format; the sample's file names say two (JSON lines being
   * any name without another format's extension).
   */
  static ConfigException mixedSample(
      String path, String format, String file, String otherFormat, String otherFile) {
    return new ConfigException(
        "Cannot draft a pipeline from "
            + path
            + ": its newest files are in more than one format ("
            + file
            + " is "
            + format
            + ", "
            + otherFile
            + " is "
            + otherFormat
            + "), and a pipeline reads one. Point --source at one format's directory, or pass"
            + " --format to read every sampled file as one format.");
  }

  /** The sampled files hold no JSON object with fields to draft a schema from. */
  static ConfigException noSchemaInSample(int files, String path, SourceFormat format) {
    return new ConfigException(
        "Cannot draft a schema from "
            + files
            + " file(s) under "
            + path
            + ": "
            + (format == SourceFormat.JSON
                ? "no line is a JSON object with fields. The files are read as JSON lines (one"
                    + " object per line); if they are in another format, pass --format"
                : "Spark's " + format.key() + " reader found no columns in them")
            + ".");
  }

  /** The plan cannot read the checkpoint's file log, which tells ingested files from new ones. */
  static ReplaysafeException unreadableFileLog(String checkpoint, IOException cause) {
    return new ReplaysafeException(
        "Cannot read the file log of bronze.checkpoint "
            + checkpoint
            + ": "
            + cause.getMessage()
            + ". The plan needs it to tell ingested files from new ones; check that the"
            + " checkpoint is readable.",
        cause);
  }

  /** Listing source.path failed. */
  static ReplaysafeException cannotListSource(String path, IOException cause) {
    return new ReplaysafeException(
        "Cannot list source path " + path + ": " + cause.getMessage(), cause);
  }

  /** The bronze query did not stop after the batch it was run for. */
  static ReplaysafeException cannotStopQuery(long batch, Exception cause) {
    return new ReplaysafeException(
        "Cannot stop the bronze query after batch " + batch + ": " + cause.getMessage(), cause);
  }

  /** source.options.pathGlobFilter is not a glob Hadoop can read. */
  static IllegalArgumentException badPathGlobFilter(IOException cause) {
    return new IllegalArgumentException(
        "source.options.pathGlobFilter: " + cause.getMessage(), cause);
  }

  /**
   * A Parquet or Avro file whose schema cannot be read, where no bad-file table records it (a
   * sample, a parse outside the bronze run).
   */
  static IllegalStateException unreadableFile(BadFiles.BadFile bad) {
    return new IllegalStateException(
        "Cannot read " + bad.path() + ": " + bad.errorClass() + ": " + bad.errorMessage());
  }

  /**
   * A field source.schema does not declare, under {@code schemaEvolutionMode: failOnNewColumns}.
   */
  static NewColumnException newColumn(String field, String file) {
    return new NewColumnException(
        "New field '"
            + field
            + "' in "
            + file
            + " is not declared in source.schema and schemaEvolutionMode is failOnNewColumns."
            + " Add the field to source.schema, or set schemaEvolutionMode: rescue to keep it in"
            + " the rescued-data column. Bronze did not advance; the rerun reads this file again.");
  }
}
