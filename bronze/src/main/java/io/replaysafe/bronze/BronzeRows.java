package io.replaysafe.bronze;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_set;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;

import io.replaysafe.common.Columns;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SourceConfig;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * Bronze's rows from the source's lines: parsed against the schema (rescuing what does not fit,
 * keeping malformed lines) and stamped with the file they came from. The stream, the re-read of
 * retried bad files and {@code replaysafe plan}'s sample all parse here, so they cannot differ.
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
   * @param skipUnreadableFiles for the one batch whose unreadable files were just recorded: Spark
   *     skips what it cannot read instead of failing
   */
  static Dataset<Row> stream(
      SparkSession spark,
      PipelineConfig config,
      boolean skipUnreadableFiles,
      List<String> skipWholeFiles) {
    SourceConfig source = config.source();
    var reader =
        BoundedTextFormat.readStream(spark, source.maxLineBytes(), skipWholeFiles)
            .options(source.options().sparkOptions())
            .option(BoundedTextFormat.BAD_FILES, BadFiles.pathFor(config))
            .option(BoundedTextFormat.PIPELINE, config.name());
    if (skipUnreadableFiles) {
      reader = reader.option("ignoreCorruptFiles", "true").option("ignoreMissingFiles", "true");
    }
    Dataset<Row> lines = reader.load(source.path()).select(METADATA_COLUMNS);
    return parseSelected(lines, source)
        .withColumn(Columns.INGESTED_AT, current_timestamp())
        .observe(
            BronzeIngest.METRICS,
            count(lit(1)).as("rows"),
            count(col(source.rescuedDataColumn())).as("rescued"),
            count(col(Columns.CORRUPT_RECORD)).as("corrupt"),
            size(collect_set(col(Columns.SOURCE_FILE))).as("files"));
  }

  /** The files' bronze rows, read whole in one batch (retried bad files), with ingestion time. */
  static Dataset<Row> read(SparkSession spark, SourceConfig source, List<String> files) {
    return parse(
            BoundedTextFormat.read(spark, source.maxLineBytes()).load(files.toArray(new String[0])),
            source)
        .withColumn(Columns.INGESTED_AT, current_timestamp());
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
