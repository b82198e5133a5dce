package io.replaysafe.bronze;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.min;

import io.replaysafe.common.Columns;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.config.SourceFormat;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Bronze's rows from the source's lines or records: parsed against the schema (rescuing what does
 * not fit, keeping malformed lines and CSV records) and stamped with the file they came from. The
 * stream, the re-read of retried bad files and {@code replaysafe plan}'s sample all parse here, so
 * they cannot differ.
 */
final class BronzeRows {
  private BronzeRows() {}

  /** The text source's line and the provenance bronze keeps of it. */
  private static final Column[] METADATA_COLUMNS = {
    col("value"),
    col("_metadata.file_path"),
    col("_metadata.file_name"),
    col("_metadata.file_size"),
    col("_metadata.file_modification_time")
  };

  /**
   * The streaming bronze rows: parse, rescue, stamp provenance, count ({@link
   * BronzeIngest#METRICS}). Lines are read with the line-length limit ({@link BoundedTextFormat});
   * {@code skipWholeFiles} are read as empty. A file that fails its lookup while a batch is planned
   * is recorded in the bad-files table and left out ({@link CheckedFileStreamSource}).
   *
   * @param skip null, or for the one batch whose unreadable files were just recorded: Spark skips
   *     what it cannot read instead of failing, and those files are not counted as read
   */
  static Dataset<Row> stream(SparkSession spark, PipelineConfig config, BadFileRecovery.Skip skip) {
    List<String> skipWholeFiles = skip == null ? List.of() : skip.wholeFiles();
    SourceConfig source = config.source();
    SourceFormat format = source.fileFormat();
    if (format.selfDescribing()) {
      RescuingFileFormat.requireReader(spark, format);
    }
    var reader =
        (switch (format) {
              case JSON ->
                  BoundedTextFormat.readStream(spark, source.maxLineBytes(), skipWholeFiles);
              case CSV -> CsvFileFormat.readStream(spark, source, skipWholeFiles);
              case PARQUET, AVRO -> RescuingFileFormat.readStream(spark, source);
            })
            .options(source.options().sparkOptions())
            .option(BoundedTextFormat.BAD_FILES, BadFiles.pathFor(config))
            .option(BoundedTextFormat.PIPELINE, config.name());
    if (skip != null) {
      reader =
          reader
              .option("ignoreCorruptFiles", "true")
              .option("ignoreMissingFiles", "true")
              .option(CheckedFileStreamSource.RECORDED_BAD, PathListOption.encode(skip.recorded()));
    }
    Dataset<Row> read = reader.load(source.path());
    return (format == SourceFormat.JSON ? parse(read, source) : withProvenance(read, source))
        .withColumn(Columns.INGESTED_AT, current_timestamp())
        .observe(
            BronzeIngest.METRICS,
            count(lit(1)).as("rows"),
            count(col(source.rescuedDataColumn())).as("rescued"),
            count(col(Columns.CORRUPT_RECORD)).as("corrupt"),
            min(col(Columns.SOURCE_FILE_MTIME)).as("oldestLanded"));
  }

  /** The files' bronze rows, read whole in one batch (retried bad files), with ingestion time. */
  static Dataset<Row> read(SparkSession spark, SourceConfig source, List<String> files) {
    return rows(spark, source, files).withColumn(Columns.INGESTED_AT, current_timestamp());
  }

  /**
   * The files' bronze rows (without ingestion time), in one batch: the retry of bad files and
   * {@code plan}'s sample. Parquet and Avro files' schemas are read first; a file whose schema
   * cannot be read fails the read (the callers checked the files).
   */
  static Dataset<Row> rows(SparkSession spark, SourceConfig source, List<String> files) {
    String[] paths = files.toArray(new String[0]);
    if (source.fileFormat() == SourceFormat.JSON) {
      return parse(BoundedTextFormat.read(spark, source.maxLineBytes()).load(paths), source);
    }
    if (source.fileFormat() == SourceFormat.CSV) {
      return withProvenance(CsvFileFormat.read(spark, source).load(paths), source);
    }
    RescuingFileFormat.requireReader(spark, source.fileFormat());
    FileSchemas.Read schemas = FileSchemas.read(spark, source.fileFormat(), files);
    if (!schemas.unreadable().isEmpty()) {
      BadFiles.BadFile bad = schemas.unreadable().get(0);
      throw BronzeErrors.unreadableFile(bad);
    }
    return withProvenance(RescuingFileFormat.read(spark, source, schemas).load(paths), source);
  }

  /**
   * Rows already mapped to the schema and rescued, with the JSON path's columns. CSV rows carry
   * their corrupt-record columns ({@link CsvFileFormat}); Parquet and Avro rows ({@link
   * RescuingFileFormat}) have none: no record of these formats is corrupt (a file that cannot be
   * read is a bad file), so those columns are null.
   */
  private static Dataset<Row> withProvenance(Dataset<Row> mapped, SourceConfig source) {
    List<Column> columns = new java.util.ArrayList<>();
    for (String name : source.schema().fieldNames()) {
      columns.add(quoted(name));
    }
    columns.add(quoted(source.rescuedDataColumn()));
    if (source.fileFormat() == SourceFormat.CSV) {
      columns.add(col(Columns.CORRUPT_RECORD));
      columns.add(col(Columns.CORRUPT_RECORD_BASE64));
    } else {
      columns.add(lit(null).cast(DataTypes.StringType).as(Columns.CORRUPT_RECORD));
      columns.add(lit(null).cast(DataTypes.StringType).as(Columns.CORRUPT_RECORD_BASE64));
    }
    columns.add(col("_metadata.file_path").as(Columns.SOURCE_FILE));
    columns.add(col("_metadata.file_name").as(Columns.SOURCE_FILE_NAME));
    columns.add(col("_metadata.file_size").as(Columns.SOURCE_FILE_SIZE));
    columns.add(col("_metadata.file_modification_time").as(Columns.SOURCE_FILE_MTIME));
    return mapped.select(columns.toArray(Column[]::new));
  }

  /** The column of that name, whatever characters it holds (a dot is not a struct's field). */
  private static Column quoted(String name) {
    return col("`" + name.replace("`", "``") + "`");
  }

  /** The text source's lines parsed into bronze rows (without ingestion time). */
  static Dataset<Row> parse(Dataset<Row> text, SourceConfig source) {
    return parseSelected(text.select(METADATA_COLUMNS), source);
  }

  /** Lines already narrowed to {@link #METADATA_COLUMNS}, parsed into bronze rows. */
  private static Dataset<Row> parseSelected(Dataset<Row> lines, SourceConfig source) {
    StructType schema = source.schema();
    StructType output = BronzeRowMapper.outputSchema(schema, source.rescuedDataColumn());
    String zone = lines.sparkSession().conf().get("spark.sql.session.timeZone");
    return lines
        .as(InternalRowEncoder.of(lines.schema()))
        .mapPartitions(
            new BronzeRowMapper(
                new RescuingJsonParser(schema, source.schemaEvolutionMode(), zone), schema.size()),
            InternalRowEncoder.of(output))
        .toDF();
  }
}
