package io.replaysafe.bronze;

import io.replaysafe.common.config.SchemaEvolutionMode;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.config.SourceFormat;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.datasources.DataSource$;
import org.apache.spark.sql.execution.datasources.FileFormat;
import org.apache.spark.sql.execution.datasources.OutputWriterFactory;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.execution.datasources.v2.FileDataSourceV2;
import org.apache.spark.sql.execution.streaming.Source;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.StreamSourceProvider;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.collection.immutable.Map;
import scala.collection.immutable.Seq;
import scala.runtime.AbstractFunction1;

/**
 * Spark's Parquet or Avro source with bronze's rescue: each file is read by Spark's own reader on
 * the file's own schema ({@link FileSchemas}, given in {@value #FILE_SCHEMAS}), and its rows are
 * mapped to the declared schema plus the rescued-data column ({@link FileRowMapping}). The rows are
 * those columns, with Spark's {@code _metadata} as for any file source. Read only.
 *
 * <p>Why per file and not Spark's reader on the declared schema: that reader fails a file whose
 * column has another type, and drops a column the schema does not declare; bronze rescues both. The
 * delegate readers are built on the driver, one per distinct file schema of the batch, because
 * Spark's readers are built there ({@code buildReaderWithPartitionValues} broadcasts its conf).
 *
 * <p>As a stream it is {@link CheckedFileStreamSource}, as for JSON lines: a file whose lookup or
 * schema read fails is recorded in the bad-files table and left out of the batch.
 */
public final class RescuingFileFormat
    implements FileFormat, DataSourceRegister, StreamSourceProvider, Serializable {
  private static final long serialVersionUID = 1L;

  public static final String FORMAT = "replaysafe.format";
  public static final String SCHEMA = "replaysafe.schema";
  public static final String RESCUED_COLUMN = "replaysafe.rescuedDataColumn";
  public static final String EVOLUTION_MODE = "replaysafe.schemaEvolutionMode";
  public static final String FILE_SCHEMAS = "replaysafe.fileSchemas";

  /** Spark's Parquet reader asks for it (FileFormat.OPTION_RETURNING_BATCH): rows, not batches. */
  private static final String RETURNING_BATCH = "returning_batch";

  /** The rows' schema: the declared columns (nullable, as in bronze) and the rescued column. */
  static StructType rowSchema(SourceConfig source) {
    return InternalRowEncoder.nullable(source.schema())
        .add(source.rescuedDataColumn(), DataTypes.StringType, true);
  }

  /** A batch reader of these files (each file's schema read first). */
  static DataFrameReader read(SparkSession spark, SourceConfig source, FileSchemas.Read files) {
    return spark
        .read()
        .format(RescuingFileFormat.class.getName())
        .schema(rowSchema(source))
        .options(options(source))
        .option(FILE_SCHEMAS, files.option());
  }

  /** A streaming reader (the file schemas are read per batch, by the source). */
  static DataStreamReader readStream(SparkSession spark, SourceConfig source) {
    return spark
        .readStream()
        .format(RescuingFileFormat.class.getName())
        .schema(rowSchema(source))
        .options(options(source));
  }

  private static java.util.Map<String, String> options(SourceConfig source) {
    java.util.Map<String, String> options = new HashMap<>();
    options.put(FORMAT, source.fileFormat().key());
    options.put(SCHEMA, source.schema().json());
    options.put(RESCUED_COLUMN, source.rescuedDataColumn());
    options.put(EVOLUTION_MODE, source.schemaEvolutionMode().name());
    return options;
  }

  @Override
  public Tuple2<String, StructType> sourceSchema(
      SQLContext sql, Option<StructType> schema, String provider, Map<String, String> options) {
    if (schema.isEmpty()) {
      throw new IllegalArgumentException("The bronze Parquet/Avro source needs its row schema");
    }
    return new Tuple2<>("Rescuing[" + option(options, "path").orElse("") + "]", schema.get());
  }

  @Override
  public Source createSource(
      SQLContext sql,
      String metadataPath,
      Option<StructType> schema,
      String provider,
      Map<String, String> options) {
    return CheckedFileStreamSource.create(
        sql.sparkSession(),
        metadataPath,
        schema.get(),
        scala.jdk.javaapi.CollectionConverters.asJava(options),
        option(options, BoundedTextFormat.BAD_FILES).orElse(null),
        option(options, BoundedTextFormat.PIPELINE).orElse(""),
        format(options));
  }

  @Override
  public String shortName() {
    return "replaysafe-rescuing";
  }

  @Override
  public String toString() {
    return "Rescuing";
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RescuingFileFormat;
  }

  @Override
  public int hashCode() {
    return RescuingFileFormat.class.hashCode();
  }

  @Override
  public Option<StructType> inferSchema(
      SparkSession spark, Map<String, String> options, Seq<FileStatus> files) {
    throw new IllegalArgumentException("The bronze Parquet/Avro reader needs its row schema");
  }

  @Override
  public OutputWriterFactory prepareWrite(
      SparkSession spark, Job job, Map<String, String> options, StructType dataSchema) {
    throw new UnsupportedOperationException("replaysafe's rescuing format reads only");
  }

  @Override
  public boolean isSplitable(SparkSession spark, Map<String, String> options, Path path) {
    return delegate(spark, format(options)).isSplitable(spark, options, path);
  }

  @Override
  public scala.Function1<PartitionedFile, Iterator<InternalRow>> buildReader(
      SparkSession spark,
      StructType dataSchema,
      StructType partitionSchema,
      StructType requiredSchema,
      Seq<Filter> filters,
      Map<String, String> options,
      Configuration hadoopConf) {
    SourceFormat format = format(options);
    StructType declared = (StructType) DataType.fromJson(required(options, SCHEMA));
    SchemaEvolutionMode mode = SchemaEvolutionMode.valueOf(required(options, EVOLUTION_MODE));
    String zone = spark.conf().get("spark.sql.session.timeZone");
    FileSchemas.Encoded files =
        option(options, FILE_SCHEMAS)
            .map(FileSchemas::decode)
            .orElse(new FileSchemas.Encoded(List.of(), java.util.Map.of()));
    FileFormat delegate = delegate(spark, format);
    Map<String, String> delegateOptions = options.updated(RETURNING_BATCH, "false");
    List<scala.Function1<PartitionedFile, Iterator<InternalRow>>> readers = new ArrayList<>();
    List<FileRowMapping> mappings = new ArrayList<>();
    for (StructType fileSchema : files.schemas()) {
      // Each reader gets its own conf: Spark's Parquet reader writes the read schema into it.
      readers.add(
          delegate.buildReaderWithPartitionValues(
              spark,
              fileSchema,
              new StructType(),
              fileSchema,
              scala.collection.immutable.List$.MODULE$.empty(),
              delegateOptions,
              new Configuration(hadoopConf)));
      mappings.add(new FileRowMapping(fileSchema, declared, mode, zone));
    }
    java.util.Map<String, Integer> byFile = new HashMap<>();
    files.files().forEach((file, index) -> byFile.put(BoundedTextFormat.normalize(file), index));
    return new ReadFile(
        readers, mappings, byFile, projection(dataSchema, requiredSchema), dataSchema);
  }

  /** The ordinals of {@code required}'s columns in {@code all}, or null when they are all. */
  private static int[] projection(StructType all, StructType required) {
    if (required.size() == all.size()) {
      return null;
    }
    int[] ordinals = new int[required.size()];
    for (int i = 0; i < ordinals.length; i++) {
      ordinals[i] = all.fieldIndex(required.fields()[i].name());
    }
    return ordinals;
  }

  /**
   * Fails now, with the fix, when Spark's reader of the format is missing (spark-avro on plain
   * Spark), rather than in the middle of planning a batch.
   */
  static void requireReader(SparkSession spark, SourceFormat format) {
    delegate(spark, format);
  }

  /**
   * Spark's reader of the format. Avro's is looked up by name, as {@code format("avro")} does, so
   * only an avro source needs spark-avro (plain Spark does not ship it; Databricks does).
   */
  private static FileFormat delegate(SparkSession spark, SourceFormat format) {
    if (format == SourceFormat.PARQUET) {
      return new ParquetFileFormat();
    }
    try {
      Class<?> avro = DataSource$.MODULE$.lookupDataSource("avro", spark.sessionState().conf());
      Object source = avro.getDeclaredConstructor().newInstance();
      // Spark's lookup finds the DataSource V2 of Avro; its file format is the V1 fallback.
      if (source instanceof FileDataSourceV2 v2) {
        return v2.fallbackFileFormat().getDeclaredConstructor().newInstance();
      }
      return (FileFormat) source;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw BronzeErrors.avroMissing(e);
    }
  }

  private static SourceFormat format(Map<String, String> options) {
    return SourceFormat.of(required(options, FORMAT));
  }

  private static String required(Map<String, String> options, String key) {
    return option(options, key)
        .orElseThrow(() -> new IllegalArgumentException("option " + key + " is required"));
  }

  private static Optional<String> option(Map<String, String> options, String key) {
    Iterator<Tuple2<String, String>> it = options.iterator();
    while (it.hasNext()) {
      Tuple2<String, String> entry = it.next();
      if (entry._1().equalsIgnoreCase(key)) {
        return Optional.of(entry._2());
      }
    }
    return Optional.empty();
  }

  /** Reads one planned part of a file with the reader of its schema; runs in the tasks. */
  private static final class ReadFile
      extends AbstractFunction1<PartitionedFile, Iterator<InternalRow>> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final List<scala.Function1<PartitionedFile, Iterator<InternalRow>>> readers;
    private final List<FileRowMapping> mappings;
    private final java.util.Map<String, Integer> byFile;
    private final int[] projection;
    private final StructType rowSchema;

    ReadFile(
        List<scala.Function1<PartitionedFile, Iterator<InternalRow>>> readers,
        List<FileRowMapping> mappings,
        java.util.Map<String, Integer> byFile,
        int[] projection,
        StructType rowSchema) {
      this.readers = readers;
      this.mappings = mappings;
      this.byFile = byFile;
      this.projection = projection;
      this.rowSchema = rowSchema;
    }

    @Override
    public Iterator<InternalRow> apply(PartitionedFile file) {
      Integer index = byFile.get(BoundedTextFormat.normalize(file.urlEncodedPath()));
      if (index == null) {
        throw new IllegalStateException(
            "Bronze planned no schema for " + file.urlEncodedPath() + " (a bronze bug)");
      }
      // The path as Spark gives it in _metadata.file_path, which the JSON path's rescued objects
      // carry as _file_path.
      String path = new Path(file.toPath().toString()).toUri().toString();
      return new Rows(
          readers.get(index).apply(file), mappings.get(index), path, projection, rowSchema);
    }
  }

  /** The file's rows mapped one by one (no row is held: Spark copies each before the next). */
  private static final class Rows extends scala.collection.AbstractIterator<InternalRow> {
    private final Iterator<InternalRow> in;
    private final FileRowMapping mapping;
    private final String path;
    private final int[] projection;
    private final StructType rowSchema;
    private final FileRowMapping.Buffer buffer = new FileRowMapping.Buffer();

    Rows(
        Iterator<InternalRow> in,
        FileRowMapping mapping,
        String path,
        int[] projection,
        StructType rowSchema) {
      this.in = in;
      this.mapping = mapping;
      this.path = path;
      this.projection = projection;
      this.rowSchema = rowSchema;
    }

    @Override
    public boolean hasNext() {
      return in.hasNext();
    }

    @Override
    public InternalRow next() {
      if (!in.hasNext()) {
        throw new NoSuchElementException();
      }
      InternalRow row = mapping.map(in.next(), path, buffer);
      if (projection == null) {
        return row;
      }
      Object[] values = new Object[projection.length];
      for (int i = 0; i < projection.length; i++) {
        int p = projection[i];
        values[i] = row.isNullAt(p) ? null : row.get(p, rowSchema.fields()[p].dataType());
      }
      return new GenericInternalRow(values);
    }
  }
}
