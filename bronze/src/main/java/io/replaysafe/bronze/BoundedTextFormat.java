package io.replaysafe.bronze;

import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collection;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.spark.TaskContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter;
import org.apache.spark.sql.execution.datasources.OutputWriterFactory;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.datasources.TextBasedFileFormat;
import org.apache.spark.sql.execution.streaming.Source;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.StreamSourceProvider;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;
import scala.Option;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.collection.immutable.Map;
import scala.collection.immutable.Seq;
import scala.runtime.AbstractFunction1;

/**
 * Spark's text source with a line-length limit: one {@code value} column per line, the same lines
 * as {@code format("text")} gives (same splits, line breaks and codecs, the same {@code
 * _metadata}), read by {@link BoundedLineReader}, so a line over the limit fails the read with
 * {@link LineTooLongException} instead of being loaded whole into memory. Bronze reads through it
 * in the stream, for retried bad files and for {@code plan}'s sample. Read only.
 *
 * <p>Options: {@value #MAX_LINE_BYTES} (required) and {@value #SKIP_FILES}, a JSON list of files to
 * read as empty (files whose long line was recorded: bronze skips them whole).
 *
 * <p>As a stream it is Spark's file source checked where it plans each batch ({@link
 * CheckedFileStreamSource}): a file whose lookup fails is recorded in the bad-files table named by
 * {@value #BAD_FILES} (of pipeline {@value #PIPELINE}) and left out of the batch.
 */
public final class BoundedTextFormat extends TextBasedFileFormat
    implements DataSourceRegister, StreamSourceProvider, Serializable {
  private static final long serialVersionUID = 1L;

  public static final String MAX_LINE_BYTES = "maxLineBytes";
  public static final String SKIP_FILES = "skipFiles";
  public static final String BAD_FILES = "badFiles";
  public static final String PIPELINE = "pipeline";

  /** The one column: each line, as the text source names it. */
  public static final StructType SCHEMA = new StructType().add("value", DataTypes.StringType);

  /** A batch reader of this format. */
  public static DataFrameReader read(SparkSession spark, long maxLineBytes) {
    return spark
        .read()
        .format(BoundedTextFormat.class.getName())
        .schema(SCHEMA)
        .option(MAX_LINE_BYTES, maxLineBytes);
  }

  /** A streaming reader of this format (a file source needs its schema given). */
  public static DataStreamReader readStream(
      SparkSession spark, long maxLineBytes, Collection<String> skipFiles) {
    DataStreamReader reader =
        spark
            .readStream()
            .format(BoundedTextFormat.class.getName())
            .schema(SCHEMA)
            .option(MAX_LINE_BYTES, maxLineBytes);
    if (!skipFiles.isEmpty()) {
      reader = reader.option(SKIP_FILES, PathListOption.encode(skipFiles));
    }
    return reader;
  }

  /** The stream's rows: one line each, whatever directories the files are in (no partitions). */
  @Override
  public Tuple2<String, StructType> sourceSchema(
      SQLContext sql, Option<StructType> schema, String provider, Map<String, String> options) {
    String path = option(options, "path").orElse("");
    return new Tuple2<>("BoundedText[" + path + "]", schema.isDefined() ? schema.get() : SCHEMA);
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
        schema.isDefined() ? schema.get() : SCHEMA,
        scala.jdk.javaapi.CollectionConverters.asJava(options),
        option(options, BAD_FILES).orElse(null),
        option(options, PIPELINE).orElse(""),
        io.replaysafe.common.config.SourceFormat.JSON);
  }

  @Override
  public String shortName() {
    return "replaysafe-text";
  }

  @Override
  public String toString() {
    return "BoundedText";
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof BoundedTextFormat;
  }

  @Override
  public int hashCode() {
    return BoundedTextFormat.class.hashCode();
  }

  @Override
  public Option<StructType> inferSchema(
      SparkSession spark, Map<String, String> options, Seq<FileStatus> files) {
    return Option.apply(SCHEMA);
  }

  @Override
  public OutputWriterFactory prepareWrite(
      SparkSession spark, Job job, Map<String, String> options, StructType dataSchema) {
    throw new UnsupportedOperationException("replaysafe's text format reads only");
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
    long limit =
        option(options, MAX_LINE_BYTES)
            .map(Long::parseLong)
            .orElseThrow(
                () -> new IllegalArgumentException("option " + MAX_LINE_BYTES + " is required"));
    Set<String> skip =
        option(options, SKIP_FILES)
            .map(json -> PathListOption.decode(SKIP_FILES, json))
            .orElse(Set.of())
            .stream()
            .map(BoundedTextFormat::normalize)
            .collect(Collectors.toUnmodifiableSet());
    return new ReadFile(
        SerializableConfiguration.broadcast(spark.sparkContext(), hadoopConf),
        limit,
        skip,
        requiredSchema.isEmpty());
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

  /** Spark names files by URI strings; compare them as Hadoop paths (file:/x = file:///x). */
  static String normalize(String path) {
    try {
      return new Path(new URI(path)).toString();
    } catch (URISyntaxException e) {
      return new Path(path).toString();
    }
  }

  /** Reads one planned part of a file into rows of one column; runs in the tasks. */
  private static final class ReadFile
      extends AbstractFunction1<PartitionedFile, Iterator<InternalRow>> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final Broadcast<SerializableConfiguration> conf;
    private final long limit;
    private final Set<String> skip;
    private final boolean noColumns;

    ReadFile(
        Broadcast<SerializableConfiguration> conf,
        long limit,
        Set<String> skip,
        boolean noColumns) {
      this.conf = conf;
      this.limit = limit;
      this.skip = skip;
      this.noColumns = noColumns;
    }

    @Override
    public Iterator<InternalRow> apply(PartitionedFile file) {
      if (!skip.isEmpty() && skip.contains(normalize(file.urlEncodedPath()))) {
        return scala.collection.Iterator$.MODULE$.empty();
      }
      BoundedLineReader reader;
      try {
        reader =
            BoundedLineReader.open(
                conf.value().value(),
                file.toPath(),
                file.urlEncodedPath(),
                file.start(),
                file.length(),
                limit);
      } catch (IOException e) {
        throw rethrow(e);
      }
      TaskContext context = TaskContext.get();
      if (context != null) {
        context.addTaskCompletionListener(
            (org.apache.spark.util.TaskCompletionListener) done -> closeQuietly(reader));
      }
      return new Rows(reader, noColumns);
    }
  }

  /**
   * Throws the I/O error as it is, unwrapped, as Spark's own line reader (Scala) does: Spark's file
   * scan treats a {@code FileNotFoundException} apart ({@code ignoreMissingFiles}).
   */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException rethrow(Throwable e) throws E {
    throw (E) e;
  }

  private static void closeQuietly(BoundedLineReader reader) {
    try {
      reader.close();
    } catch (IOException e) {
      // Nothing more to read from it; Spark's text source ignores this too.
    }
  }

  /** The lines as rows: one reused UnsafeRow, as the text source produces. */
  private static final class Rows extends scala.collection.AbstractIterator<InternalRow> {
    private final BoundedLineReader reader;
    private final UnsafeRowWriter writer;
    private final UnsafeRow empty;
    private boolean ready;
    private boolean done;

    Rows(BoundedLineReader reader, boolean noColumns) {
      this.reader = reader;
      this.writer = noColumns ? null : new UnsafeRowWriter(1);
      this.empty = noColumns ? new UnsafeRow(0) : null;
    }

    @Override
    public boolean hasNext() {
      if (!ready && !done) {
        try {
          ready = reader.next();
        } catch (IOException e) {
          throw rethrow(e);
        }
        done = !ready;
        if (done) {
          closeQuietly(reader);
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
      if (writer == null) {
        return empty;
      }
      Text line = reader.line();
      writer.reset();
      writer.zeroOutNullBytes();
      writer.write(0, line.getBytes(), 0, line.getLength());
      return writer.getRow();
    }
  }
}
