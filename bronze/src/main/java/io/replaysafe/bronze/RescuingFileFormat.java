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
import org.apache.spark.sql.execution.RowToColumnConverter;
import org.apache.spark.sql.execution.datasources.DataSource$;
import org.apache.spark.sql.execution.datasources.FileFormat;
import org.apache.spark.sql.execution.datasources.OutputWriterFactory;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.execution.datasources.v2.FileDataSourceV2;
import org.apache.spark.sql.execution.streaming.Source;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.StreamSourceProvider;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
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
 *
 * <p>Parquet in column batches: a stream's batch that holds a Parquet file whose footer schema
 * {@linkplain FileRowMapping#readsColumnar() needs no conversion} (its declared columns have the
 * declared types, and any other column is one the schema does not declare) is scanned in column
 * batches, as Spark's plain Parquet reader scans: such a file is read by Spark's vectorized reader
 * on its own schema, its declared columns are the reader's vectors as they are, a declared column
 * it lacks is a null constant, and the rescued column is null except in the rows where an
 * undeclared column holds a value, which are rescued one by one by the same mapping as the row
 * path. The decision is per file, from the footers the batch's planning read anyway (no request
 * more): one file with a column of another type does not send the batch's other files down the row
 * path; that file's mapped rows are packed into batches, since a scan gives either batches or rows.
 * A batch without such a file is scanned row by row, as before.
 */
public final class RescuingFileFormat
    implements FileFormat, DataSourceRegister, StreamSourceProvider, Serializable {
  private static final long serialVersionUID = 1L;

  public static final String FORMAT = "replaysafe.format";
  public static final String SCHEMA = "replaysafe.schema";
  public static final String RESCUED_COLUMN = "replaysafe.rescuedDataColumn";
  public static final String EVOLUTION_MODE = "replaysafe.schemaEvolutionMode";
  public static final String FILE_SCHEMAS = "replaysafe.fileSchemas";

  /**
   * Spark's scan says with it whether it wants column batches (FileFormat.OPTION_RETURNING_BATCH),
   * and Spark's Parquet reader asks for it.
   */
  private static final String RETURNING_BATCH = "returning_batch";

  /**
   * Whether the scan may ask for column batches: only a stream's batch planned with a Parquet file
   * that reads columnar ({@link #forBatch}); every other read (the retry of bad files, {@code
   * plan}'s sample, Avro) gives rows.
   */
  private final boolean columnar;

  /**
   * Rows only: the reader Spark builds from the class name ({@link #read}, {@link #readStream}).
   */
  public RescuingFileFormat() {
    this(false);
  }

  private RescuingFileFormat(boolean columnar) {
    this.columnar = columnar;
  }

  /**
   * The format of one stream batch over these files: columnar when one of them is a Parquet file
   * that reads columnar, decided on the footers the batch's planning read.
   */
  static RescuingFileFormat forBatch(
      SparkSession spark, SourceFormat format, StructType declared, FileSchemas.Read files) {
    if (format != SourceFormat.PARQUET) {
      return new RescuingFileFormat(false);
    }
    for (StructType fileSchema : files.schemas().values()) {
      if (readsColumnar(spark, fileSchema, declared)) {
        return new RescuingFileFormat(true);
      }
    }
    return new RescuingFileFormat(false);
  }

  /**
   * A Parquet file of this schema is read in column batches: the mapping adds only the rescued
   * column, and Spark's vectorized reader reads every column of the file.
   */
  private static boolean readsColumnar(
      SparkSession spark, StructType fileSchema, StructType declared) {
    return new FileRowMapping(fileSchema, declared, SchemaEvolutionMode.RESCUE, "UTC")
            .readsColumnar()
        && new ParquetFileFormat().supportBatch(spark, fileSchema);
  }

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
    return other instanceof RescuingFileFormat that && that.columnar == columnar;
  }

  @Override
  public int hashCode() {
    return Boolean.hashCode(columnar) * 31 + RescuingFileFormat.class.hashCode();
  }

  /**
   * Column batches when the batch was planned with a Parquet file that reads columnar, and Spark's
   * Parquet reader would give the same columns in batches (vectorized reader on, supported types).
   */
  @Override
  public boolean supportBatch(SparkSession spark, StructType schema) {
    return columnar && new ParquetFileFormat().supportBatch(spark, schema);
  }

  /**
   * In a columnar scan the batches are returned as they are: FileFormat's default would project
   * each element as a row. The stream's batches have no partition columns ({@link BatchFiles}).
   */
  @Override
  public scala.Function1<PartitionedFile, Iterator<InternalRow>> buildReaderWithPartitionValues(
      SparkSession spark,
      StructType dataSchema,
      StructType partitionSchema,
      StructType requiredSchema,
      Seq<Filter> filters,
      Map<String, String> options,
      Configuration hadoopConf) {
    if (!returningBatch(options)) {
      return FileFormat.super.buildReaderWithPartitionValues(
          spark, dataSchema, partitionSchema, requiredSchema, filters, options, hadoopConf);
    }
    if (!partitionSchema.isEmpty()) {
      throw new IllegalStateException(
          "Bronze's columnar read got partition columns " + partitionSchema + " (a bronze bug)");
    }
    return buildReader(
        spark, dataSchema, partitionSchema, requiredSchema, filters, options, hadoopConf);
  }

  private static boolean returningBatch(Map<String, String> options) {
    return option(options, RETURNING_BATCH).map(Boolean::parseBoolean).orElse(false);
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
    boolean batches = returningBatch(options);
    List<scala.Function1<PartitionedFile, Iterator<InternalRow>>> readers = new ArrayList<>();
    List<FileRowMapping> mappings = new ArrayList<>();
    boolean[] columnarFiles = new boolean[files.schemas().size()];
    for (int i = 0; i < columnarFiles.length; i++) {
      StructType fileSchema = files.schemas().get(i);
      FileRowMapping mapping = new FileRowMapping(fileSchema, declared, mode, zone);
      columnarFiles[i] =
          batches
              && format == SourceFormat.PARQUET
              && mapping.readsColumnar()
              && delegate.supportBatch(spark, fileSchema);
      // Each reader gets its own conf: Spark's Parquet reader writes the read schema into it.
      var fileOptions = options.updated(RETURNING_BATCH, Boolean.toString(columnarFiles[i]));
      // Avro's own rows: through buildReaderWithPartitionValues Spark copies each into an unsafe
      // row to append the partition values (none here), and the mapping copies it again. Parquet's
      // reader is built only that way.
      ReaderBuilder build =
          format == SourceFormat.AVRO
              ? delegate::buildReader
              : delegate::buildReaderWithPartitionValues;
      readers.add(
          build.apply(
              spark,
              fileSchema,
              new StructType(),
              fileSchema,
              scala.collection.immutable.List$.MODULE$.empty(),
              fileOptions,
              new Configuration(hadoopConf)));
      mappings.add(mapping);
    }
    java.util.Map<String, Integer> byFile = new HashMap<>();
    files.files().forEach((file, index) -> byFile.put(BoundedTextFormat.normalize(file), index));
    int[] projection = projection(dataSchema, requiredSchema);
    return new ReadFile(
        readers,
        mappings,
        byFile,
        projection,
        dataSchema,
        batches ? new Batches(columnarFiles, requiredSchema, projection, batchSize(spark)) : null);
  }

  /** {@link FileFormat#buildReader}'s or {@link FileFormat#buildReaderWithPartitionValues}'s. */
  @FunctionalInterface
  private interface ReaderBuilder {
    scala.Function1<PartitionedFile, Iterator<InternalRow>> apply(
        SparkSession spark,
        StructType dataSchema,
        StructType partitionSchema,
        StructType requiredSchema,
        Seq<Filter> filters,
        Map<String, String> options,
        Configuration hadoopConf);
  }

  /** As many rows per batch as Spark's vectorized Parquet reader puts in one. */
  private static int batchSize(SparkSession spark) {
    return spark.sessionState().conf().parquetVectorizedReaderBatchSize();
  }

  /**
   * How a columnar scan reads: which files' readers give column batches, and the batches' columns.
   *
   * @param required per column of the batch, its ordinal in the rows' schema (declared, rescued)
   */
  private record Batches(boolean[] columnarFiles, StructType schema, int[] required, int capacity)
      implements Serializable {
    Batches {
      if (required == null) {
        required = new int[schema.size()];
        for (int i = 0; i < required.length; i++) {
          required[i] = i;
        }
      }
    }
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
    // Null when the scan reads rows.
    private final Batches batches;

    ReadFile(
        List<scala.Function1<PartitionedFile, Iterator<InternalRow>>> readers,
        List<FileRowMapping> mappings,
        java.util.Map<String, Integer> byFile,
        int[] projection,
        StructType rowSchema,
        Batches batches) {
      this.readers = readers;
      this.mappings = mappings;
      this.byFile = byFile;
      this.projection = projection;
      this.rowSchema = rowSchema;
      this.batches = batches;
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
      Iterator<InternalRow> read = readers.get(index).apply(file);
      if (batches != null && batches.columnarFiles()[index]) {
        return erased(new MappedBatches(erased(read), mappings.get(index), path, batches));
      }
      Rows rows = new Rows(read, mappings.get(index), path, projection, rowSchema);
      return batches == null ? rows : erased(new PackedRows(rows, batches));
    }
  }

  /**
   * A scan's elements are rows or, in a columnar scan, column batches passed as rows (Spark's
   * FileScanRDD does the same): the element type is erased, never cast.
   */
  @SuppressWarnings("unchecked")
  private static <T> Iterator<T> erased(Iterator<?> elements) {
    return (Iterator<T>) elements;
  }

  /**
   * A columnar file's batches, as Spark's vectorized reader gives them on the file's schema, with
   * the declared columns: the file's vectors where it has the column, a null constant where not,
   * and the rescued column, null in every row but those where an undeclared column holds a value.
   * The reader reuses its batch, and so does this: Spark consumes each before it asks for the next.
   */
  private static final class MappedBatches extends scala.collection.AbstractIterator<Object> {
    private final Iterator<Object> in;
    private final FileRowMapping mapping;
    private final String path;
    private final Batches batches;
    private final int[] rescuedColumns;
    private final ColumnVector[] nulls;
    private final FileRowMapping.Buffer buffer = new FileRowMapping.Buffer();
    private OnHeapColumnVector rescued;
    private int rescuedCapacity;

    MappedBatches(Iterator<Object> in, FileRowMapping mapping, String path, Batches batches) {
      this.in = in;
      this.mapping = mapping;
      this.path = path;
      this.batches = batches;
      this.rescuedColumns = mapping.rescuedColumns();
      StructField[] fields = batches.schema().fields();
      this.nulls = new ColumnVector[fields.length];
      for (int j = 0; j < fields.length; j++) {
        ConstantColumnVector nullColumn =
            new ConstantColumnVector(batches.capacity(), fields[j].dataType());
        nullColumn.setNull();
        nulls[j] = nullColumn;
      }
    }

    @Override
    public boolean hasNext() {
      return in.hasNext();
    }

    @Override
    public Object next() {
      ColumnarBatch batch = (ColumnarBatch) in.next();
      int rows = batch.numRows();
      int[] required = batches.required();
      ColumnVector[] columns = new ColumnVector[required.length];
      for (int j = 0; j < required.length; j++) {
        int p = required[j];
        if (p < mapping.width()) {
          int from = mapping.copiedFrom(p);
          columns[j] = from < 0 ? nulls[j] : batch.column(from);
        } else {
          columns[j] = rescued(batch, rows, nulls[j]);
        }
      }
      return new ColumnarBatch(columns, rows);
    }

    /**
     * The batch's rescued column: the null constant when no row holds a value in an undeclared
     * column (nearly every batch of a file whose extra column is mostly null).
     */
    private ColumnVector rescued(ColumnarBatch batch, int rows, ColumnVector none) {
      int first = 0;
      while (first < rows && !holdsUndeclared(batch, first)) {
        first++;
      }
      if (first == rows) {
        return none;
      }
      if (rescued == null || rescuedCapacity < rows) {
        rescuedCapacity = Math.max(rows, batches.capacity());
        rescued = new OnHeapColumnVector(rescuedCapacity, DataTypes.StringType);
      }
      rescued.reset();
      for (int r = 0; r < rows; r++) {
        UTF8String value =
            r >= first && holdsUndeclared(batch, r)
                ? mapping.rescued(batch.getRow(r), path, buffer)
                : null;
        if (value == null) {
          rescued.putNull(r);
        } else {
          byte[] bytes = value.getBytes();
          rescued.putByteArray(r, bytes, 0, bytes.length);
        }
      }
      return rescued;
    }

    /** Whether the row holds a value in a column the schema does not declare. */
    private boolean holdsUndeclared(ColumnarBatch batch, int row) {
      for (int f : rescuedColumns) {
        if (!batch.column(f).isNullAt(row)) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * A file that needs the row-by-row mapping, in a columnar scan: its mapped rows packed into
   * column batches of the scan's columns.
   */
  private static final class PackedRows extends scala.collection.AbstractIterator<Object> {
    private final Rows rows;
    private final int capacity;
    private final RowToColumnConverter converter;
    private final WritableColumnVector[] vectors;
    private final ColumnarBatch batch;

    PackedRows(Rows rows, Batches batches) {
      this.rows = rows;
      this.capacity = batches.capacity();
      this.converter = new RowToColumnConverter(batches.schema());
      this.vectors = OnHeapColumnVector.allocateColumns(capacity, batches.schema());
      this.batch = new ColumnarBatch(vectors);
    }

    @Override
    public boolean hasNext() {
      return rows.hasNext();
    }

    @Override
    public Object next() {
      if (!rows.hasNext()) {
        throw new NoSuchElementException();
      }
      for (WritableColumnVector vector : vectors) {
        vector.reset();
      }
      int n = 0;
      while (n < capacity && rows.hasNext()) {
        converter.convert(rows.next(), vectors);
        n++;
      }
      batch.setNumRows(n);
      return batch;
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
