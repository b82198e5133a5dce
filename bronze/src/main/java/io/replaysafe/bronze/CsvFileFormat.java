package io.replaysafe.bronze;

import io.replaysafe.common.Columns;
import io.replaysafe.common.config.CsvOptions;
import io.replaysafe.common.config.SchemaEvolutionMode;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.config.SourceFormat;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.util.Collection;
import java.util.HashMap;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.spark.TaskContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.datasources.OutputWriterFactory;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.datasources.TextBasedFileFormat;
import org.apache.spark.sql.execution.streaming.Source;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.StreamSourceProvider;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.SerializableConfiguration;
import scala.Option;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.collection.immutable.Map;
import scala.collection.immutable.Seq;
import scala.runtime.AbstractFunction1;

/**
 * CSV files read into bronze's columns: the declared schema, the rescued-data column, {@code
 * _corrupt_record} and {@code _corrupt_record_base64} (always null: text that does not decode makes
 * a bad file), with Spark's {@code _metadata} as for any file source. Each file is read whole, by
 * one task ({@link CsvRecordReader}: a quoted value may span lines, so a file cannot be split at a
 * line), and its records mapped by {@link CsvRecordMapping}. Read only.
 *
 * <p>Why not Spark's CSV source: it has no rescued-data column. Given the schema, it matches
 * columns by position (a file with its columns in another order loads them into the wrong columns),
 * drops a column the schema does not declare, and nulls a value that does not convert; bronze
 * rescues both. The tokenizer and its settings are Spark's own, so the fields are the ones Spark's
 * reader sees.
 *
 * <p>Options: the schema, rescued column and evolution mode as {@link RescuingFileFormat} names
 * them, {@link CsvOptions#sparkOptions()}, {@value BoundedTextFormat#MAX_LINE_BYTES} (the longest
 * record, in characters) and {@value BoundedTextFormat#SKIP_FILES} (files read as empty: those with
 * a record over the limit, which bronze skips whole). As a stream it is {@link
 * CheckedFileStreamSource}, as for JSON lines.
 */
public final class CsvFileFormat extends TextBasedFileFormat
    implements DataSourceRegister, StreamSourceProvider, Serializable {
  private static final long serialVersionUID = 1L;

  /** The rows' schema: the declared columns (nullable), the rescued and corrupt-record columns. */
  static StructType rowSchema(SourceConfig source) {
    return InternalRowEncoder.nullable(source.schema())
        .add(source.rescuedDataColumn(), DataTypes.StringType, true)
        .add(Columns.CORRUPT_RECORD, DataTypes.StringType, true)
        .add(Columns.CORRUPT_RECORD_BASE64, DataTypes.StringType, true);
  }

  /** A batch reader of CSV files (the retry of bad files, {@code plan}'s sample). */
  static DataFrameReader read(SparkSession spark, SourceConfig source) {
    return spark
        .read()
        .format(CsvFileFormat.class.getName())
        .schema(rowSchema(source))
        .options(options(source));
  }

  /** A streaming reader; {@code skipFiles} are read as empty. */
  static DataStreamReader readStream(
      SparkSession spark, SourceConfig source, Collection<String> skipFiles) {
    DataStreamReader reader =
        spark
            .readStream()
            .format(CsvFileFormat.class.getName())
            .schema(rowSchema(source))
            .options(options(source));
    if (!skipFiles.isEmpty()) {
      reader = reader.option(BoundedTextFormat.SKIP_FILES, PathListOption.encode(skipFiles));
    }
    return reader;
  }

  private static java.util.Map<String, String> options(SourceConfig source) {
    java.util.Map<String, String> options = new HashMap<>(source.options().csv().sparkOptions());
    options.put(RescuingFileFormat.SCHEMA, source.schema().json());
    options.put(RescuingFileFormat.RESCUED_COLUMN, source.rescuedDataColumn());
    options.put(RescuingFileFormat.EVOLUTION_MODE, source.schemaEvolutionMode().name());
    options.put(BoundedTextFormat.MAX_LINE_BYTES, String.valueOf(source.maxLineBytes()));
    return options;
  }

  /**
   * Reads the file to its end as bronze reads it; what went wrong, if anything. The check of a file
   * after its batch failed ({@link BadFileRecovery}).
   */
  static Optional<BadFiles.BadFile> check(Configuration conf, String path, SourceConfig source) {
    Path p = new Path(URI.create(path));
    FileStatus status = null;
    try {
      FileSystem fs = p.getFileSystem(conf);
      status = fs.getFileStatus(p);
      try (CsvRecordReader records =
          CsvRecordReader.open(conf, p, path, source.options().csv(), source.maxLineBytes())) {
        while (records.next()) {
          // reading to the end is the check
        }
      }
      return Optional.empty();
    } catch (FileNotFoundException e) {
      return Optional.of(BadFiles.bad(path, status, e));
    } catch (IOException | RuntimeException e) {
      return Optional.of(BadFiles.bad(path, status, e));
    }
  }

  @Override
  public Tuple2<String, StructType> sourceSchema(
      SQLContext sql, Option<StructType> schema, String provider, Map<String, String> options) {
    if (schema.isEmpty()) {
      throw new IllegalArgumentException("The bronze CSV source needs its row schema");
    }
    return new Tuple2<>("Csv[" + option(options, "path").orElse("") + "]", schema.get());
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
        SourceFormat.CSV);
  }

  @Override
  public String shortName() {
    return "replaysafe-csv";
  }

  @Override
  public String toString() {
    return "Csv";
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof CsvFileFormat;
  }

  @Override
  public int hashCode() {
    return CsvFileFormat.class.hashCode();
  }

  @Override
  public Option<StructType> inferSchema(
      SparkSession spark, Map<String, String> options, Seq<FileStatus> files) {
    throw new IllegalArgumentException("The bronze CSV reader needs its row schema");
  }

  @Override
  public OutputWriterFactory prepareWrite(
      SparkSession spark, Job job, Map<String, String> options, StructType dataSchema) {
    throw new UnsupportedOperationException("replaysafe's CSV format reads only");
  }

  /** Never split: a quoted value may hold a line break, so a line is no record boundary. */
  @Override
  public boolean isSplitable(SparkSession spark, Map<String, String> options, Path path) {
    return false;
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
    StructType declared =
        (StructType) DataType.fromJson(required(options, RescuingFileFormat.SCHEMA));
    SchemaEvolutionMode mode =
        SchemaEvolutionMode.valueOf(required(options, RescuingFileFormat.EVOLUTION_MODE));
    java.util.Map<String, String> csv = new HashMap<>();
    for (String key : CsvOptions.DEFAULT.sparkOptions().keySet()) {
      option(options, key).ifPresent(value -> csv.put(key, value));
    }
    Set<String> skip =
        option(options, BoundedTextFormat.SKIP_FILES)
            .map(json -> PathListOption.decode(BoundedTextFormat.SKIP_FILES, json))
            .orElse(Set.of())
            .stream()
            .map(BoundedTextFormat::normalize)
            .collect(Collectors.toUnmodifiableSet());
    return new ReadFile(
        SerializableConfiguration.broadcast(spark.sparkContext(), hadoopConf),
        CsvOptions.of(csv),
        Long.parseLong(required(options, BoundedTextFormat.MAX_LINE_BYTES)),
        skip,
        new CsvRecordMapping(declared, mode, spark.conf().get("spark.sql.session.timeZone")),
        declared.size(),
        projection(dataSchema, requiredSchema));
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

  /** Throws the I/O error as it is, as Spark's readers do (see BoundedTextFormat.rethrow). */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException rethrow(Throwable e) throws E {
    throw (E) e;
  }

  /** Reads one whole file into bronze rows; runs in the tasks. */
  private static final class ReadFile
      extends AbstractFunction1<PartitionedFile, Iterator<InternalRow>> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final Broadcast<SerializableConfiguration> conf;
    private final CsvOptions csv;
    private final long limit;
    private final Set<String> skip;
    private final CsvRecordMapping mapping;
    private final int width;
    private final int[] projection;

    ReadFile(
        Broadcast<SerializableConfiguration> conf,
        CsvOptions csv,
        long limit,
        Set<String> skip,
        CsvRecordMapping mapping,
        int width,
        int[] projection) {
      this.conf = conf;
      this.csv = csv;
      this.limit = limit;
      this.skip = skip;
      this.mapping = mapping;
      this.width = width;
      this.projection = projection;
    }

    @Override
    public Iterator<InternalRow> apply(PartitionedFile file) {
      if (!skip.isEmpty() && skip.contains(BoundedTextFormat.normalize(file.urlEncodedPath()))) {
        return scala.collection.Iterator$.MODULE$.empty();
      }
      CsvRecordReader reader;
      try {
        reader =
            CsvRecordReader.open(
                conf.value().value(), file.toPath(), file.urlEncodedPath(), csv, limit);
      } catch (IOException e) {
        throw rethrow(e);
      }
      TaskContext context = TaskContext.get();
      if (context != null) {
        context.addTaskCompletionListener(
            (org.apache.spark.util.TaskCompletionListener) done -> reader.close());
      }
      // The path as Spark gives it in _metadata.file_path, as the rescued objects of every format
      // carry it in _file_path.
      String path = new Path(file.toPath().toString()).toUri().toString();
      return new Rows(reader, csv.header(), mapping, path, width, projection);
    }
  }

  /** The file's records as rows, one at a time. */
  private static final class Rows extends scala.collection.AbstractIterator<InternalRow> {
    private final CsvRecordReader reader;
    private final boolean header;
    private final CsvRecordMapping mapping;
    private final String path;
    private final int width;
    private final int[] projection;
    private CsvRecordMapping.FileColumns columns;
    private boolean ready;
    private boolean done;

    Rows(
        CsvRecordReader reader,
        boolean header,
        CsvRecordMapping mapping,
        String path,
        int width,
        int[] projection) {
      this.reader = reader;
      this.header = header;
      this.mapping = mapping;
      this.path = path;
      this.width = width;
      this.projection = projection;
    }

    @Override
    public boolean hasNext() {
      if (!ready && !done) {
        try {
          if (columns == null) {
            if (header) {
              columns = reader.next() ? mapping.byHeader(reader.fields(), path) : null;
              if (columns == null) {
                done = true; // an empty file
                reader.close();
                return false;
              }
            } else {
              columns = mapping.bySchema();
            }
          }
          ready = reader.next();
        } catch (IOException e) {
          throw rethrow(e);
        }
        done = !ready;
        if (done) {
          reader.close();
        }
      }
      return ready;
    }

    @Override
    public InternalRow next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      ready = false;
      RescuingJsonParser.Parsed parsed =
          mapping.map(columns, reader.fields(), reader.unterminatedQuote(), reader::text, path);
      Object[] out = new Object[width + 3];
      System.arraycopy(parsed.values(), 0, out, 0, width);
      out[width] = utf8(parsed.rescued());
      out[width + 1] = utf8(parsed.corrupt());
      out[width + 2] = utf8(parsed.corruptBase64());
      if (projection == null) {
        return new GenericInternalRow(out);
      }
      Object[] values = new Object[projection.length];
      for (int i = 0; i < projection.length; i++) {
        values[i] = out[projection[i]];
      }
      return new GenericInternalRow(values);
    }

    private static UTF8String utf8(String s) {
      return s == null ? null : UTF8String.fromString(s);
    }
  }
}
