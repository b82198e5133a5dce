package io.replaysafe.bronze;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.replaysafe.common.Interruptions;
import io.replaysafe.common.StorageErrors;
import io.replaysafe.common.io.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The file state's rows read and written on the driver with Parquet's own reader and writer, for
 * the small writes of a run: a batch's plan (its files' rows) and a mark that rewrites the table's
 * fresh files. Through Spark each was a write job of its own (about 50 and 80 ms in a warm JVM,
 * measured with 20,000 Avro events a run, more in a scheduled run's fresh one, whose code
 * generation and classes for the job are all cold) to write a few kilobytes. The file written is
 * the one Spark would write for the same rows (the table's columns, nullable as Spark writes them,
 * timestamps as microseconds) with the statistics Delta collects (counts, least and greatest values
 * in Spark's order, nulls), so the table's readers (Delta's skipping, {@link
 * FileStateCommits#mayHoldUnmarked}, {@code replaysafe files}) see no difference; only the tables
 * {@link #writable} accepts are written this way.
 */
final class FileStateParquet {
  /** One row of the file state; timestamps in microseconds since the epoch. */
  record StateRow(
      String path,
      Long size,
      Long modificationMicros,
      String etag,
      Long discoveredMicros,
      String discoveredBy,
      long batchId,
      Long committedMicros,
      String status) {
    StateRow {
      if (path == null || status == null) {
        throw new IllegalArgumentException("a file state row needs a path and a status");
      }
    }

    StateRow committed(long atMicros) {
      return new StateRow(
          path,
          size,
          modificationMicros,
          etag,
          discoveredMicros,
          discoveredBy,
          batchId,
          atMicros,
          FileState.INGESTED);
    }
  }

  /** The file state's columns as Spark writes them: every column optional. */
  static final MessageType SCHEMA =
      Types.buildMessage()
          .optional(PrimitiveTypeName.BINARY)
          .as(LogicalTypeAnnotation.stringType())
          .named("path")
          .optional(PrimitiveTypeName.INT64)
          .named("size")
          .optional(PrimitiveTypeName.INT64)
          .as(micros())
          .named("modification_time")
          .optional(PrimitiveTypeName.BINARY)
          .as(LogicalTypeAnnotation.stringType())
          .named("etag")
          .optional(PrimitiveTypeName.INT64)
          .as(micros())
          .named("discovered_at")
          .optional(PrimitiveTypeName.BINARY)
          .as(LogicalTypeAnnotation.stringType())
          .named("discovered_by")
          .optional(PrimitiveTypeName.INT64)
          .named("batch_id")
          .optional(PrimitiveTypeName.INT64)
          .as(micros())
          .named("committed_at")
          .optional(PrimitiveTypeName.BINARY)
          .as(LogicalTypeAnnotation.stringType())
          .named("status")
          .named("spark_schema");

  private static LogicalTypeAnnotation micros() {
    return LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS);
  }

  private FileStateParquet() {}

  /**
   * Whether the table at {@code snapshot} is one whose files this writes: the file state's own
   * columns and nothing else (no generated, identity or mapped columns, no partitions), no check
   * constraint, at reader version 1 (no deletion vectors). Delta's commit checks the rest (its
   * protocol, concurrent writers) as it does for its own writes.
   */
  static boolean writable(Snapshot snapshot) {
    if (snapshot.protocol().minReaderVersion() != 1
        || !snapshot.metadata().partitionColumns().isEmpty()
        || !"none".equals(snapshot.metadata().columnMappingMode().name())
        || !FileState.SCHEMA.equals(snapshot.metadata().schema())) {
      return false;
    }
    return scala.jdk.javaapi.CollectionConverters.asJava(snapshot.metadata().configuration())
        .keySet()
        .stream()
        .noneMatch(k -> k.startsWith("delta.constraints."));
  }

  /** Every row of {@code files}, tables' files of {@code snapshot}, read whole on the driver. */
  static List<StateRow> read(Configuration hadoop, Snapshot snapshot, List<AddFile> files) {
    List<StateRow> rows = new ArrayList<>();
    forEachRow(
        hadoop,
        snapshot,
        files,
        g ->
            rows.add(
                new StateRow(
                    string(g, "path"),
                    integral(g, "size"),
                    timestamp(g, "modification_time"),
                    string(g, "etag"),
                    timestamp(g, "discovered_at"),
                    string(g, "discovered_by"),
                    integral(g, "batch_id"),
                    timestamp(g, "committed_at"),
                    string(g, "status"))));
    return rows;
  }

  /**
   * Hands on each row of {@code files}, tables' files of {@code snapshot}, as Parquet's example
   * rows: of the columns {@link ReadSupport#PARQUET_READ_SCHEMA} sets in {@code hadoop}, else of
   * all. Each file is opened with its size from the log: no request asks for it (on S3 a HEAD). A
   * failure names the file; an interrupt stays one (the source's thread reads the file state while
   * a batch is planned: a stop is a stop).
   */
  static void forEachRow(
      Configuration hadoop, Snapshot snapshot, List<AddFile> files, Consumer<Group> row) {
    forEachRow(hadoop, snapshot, files, FilterCompat.NOOP, row);
  }

  /** Each row of {@code files} that {@code filter} keeps, as {@link #forEachRow} reads them. */
  static void forEachRow(
      Configuration hadoop,
      Snapshot snapshot,
      List<AddFile> files,
      FilterCompat.Filter filter,
      Consumer<Group> row) {
    for (AddFile f : files) {
      Path file = f.absolutePath(snapshot.deltaLog());
      FileStatus status = new FileStatus(f.size(), false, 1, 0, f.modificationTime(), file);
      try (ParquetReader<Group> reader =
          new GroupReader(HadoopInputFile.fromStatus(status, hadoop))
              .withConf(hadoop)
              .withFilter(filter)
              .build()) {
        for (Group g = reader.read(); g != null; g = reader.read()) {
          row.accept(g);
        }
      } catch (IOException e) {
        Interruptions.rethrowIfInterrupted("reading the file state " + file, e);
        throw StorageErrors.cannotAccess("the bronze file state", file, e);
      }
    }
  }

  /**
   * Writes {@code rows} as one new data file of the table at {@code snapshot}, in path order (as
   * Spark compares strings: by their UTF-8 bytes), and answers the file as Delta's add action, with
   * its statistics; nothing is committed. A file written and never committed is no row of the
   * table.
   */
  static AddFile write(
      Configuration hadoop, Snapshot snapshot, List<StateRow> rows, String sparkVersion) {
    List<StateRow> sorted = new ArrayList<>(rows);
    sorted.sort(Comparator.comparing(StateRow::path, UTF8_ORDER));
    String name = "part-00000-" + UUID.randomUUID() + "-c000.snappy.parquet";
    Path file = new Path(snapshot.deltaLog().dataPath(), name);
    long bytes;
    try {
      SizedOutputFile out = new SizedOutputFile(HadoopOutputFile.fromPath(file, hadoop));
      try (ParquetWriter<Group> writer =
          ExampleParquetWriter.builder(out)
              .withConf(hadoop)
              .withType(SCHEMA)
              .withCompressionCodec(CompressionCodecName.SNAPPY)
              // Small pages: a lookup builds the rows of the pages that may hold its names only.
              .withPageRowCountLimit(Integer.parseInt(FileState.PAGE_ROWS_MOST))
              .withWriteMode(ParquetFileWriter.Mode.CREATE)
              .withExtraMetaData(
                  Map.of(
                      "org.apache.spark.version",
                      sparkVersion,
                      "org.apache.spark.sql.parquet.row.metadata",
                      FileState.SCHEMA.json()))
              .build()) {
        SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        for (StateRow r : sorted) {
          writer.write(group(groups, r));
        }
      }
      bytes = out.bytes();
    } catch (IOException e) {
      Interruptions.rethrowIfInterrupted("writing the file state " + file, e);
      throw StorageErrors.cannotAccess("the bronze file state", file, e);
    }
    ObjectNode add = JsonNodeFactory.instance.objectNode();
    add.put("path", name);
    add.putObject("partitionValues");
    add.put("size", bytes);
    add.put("modificationTime", System.currentTimeMillis());
    add.put("dataChange", true);
    add.put("stats", Json.compact(statistics(sorted)));
    ObjectNode action = JsonNodeFactory.instance.objectNode();
    action.set("add", add);
    return (AddFile) Action.fromJson(Json.compact(action));
  }

  /**
   * The statistics Delta collects for a file of {@code rows}: their count, and per column the least
   * and greatest value (strings compared as Spark does, by UTF-8 bytes; timestamps truncated to the
   * millisecond, as Delta writes them and widens a greatest one by a millisecond on reading) and
   * the nulls. A column of nulls only has no least or greatest value. Strings are written whole,
   * where Delta cuts them to 32 characters: a whole value is as true a bound, and closer.
   */
  static ObjectNode statistics(List<StateRow> rows) {
    ObjectNode stats = JsonNodeFactory.instance.objectNode();
    stats.put("numRecords", rows.size());
    ObjectNode least = stats.putObject("minValues");
    ObjectNode greatest = stats.putObject("maxValues");
    ObjectNode nulls = stats.putObject("nullCount");
    ColumnStatistics c = new ColumnStatistics(rows, least, greatest, nulls);
    c.add("path", StateRow::path, UTF8_ORDER, TextNode::valueOf);
    c.add("size", StateRow::size, Comparator.naturalOrder(), LongNode::valueOf);
    c.add("modification_time", StateRow::modificationMicros, Comparator.naturalOrder(), TIMESTAMP);
    c.add("etag", StateRow::etag, UTF8_ORDER, TextNode::valueOf);
    c.add("discovered_at", StateRow::discoveredMicros, Comparator.naturalOrder(), TIMESTAMP);
    c.add("discovered_by", StateRow::discoveredBy, UTF8_ORDER, TextNode::valueOf);
    c.add("batch_id", StateRow::batchId, Comparator.naturalOrder(), LongNode::valueOf);
    c.add("committed_at", StateRow::committedMicros, Comparator.naturalOrder(), TIMESTAMP);
    c.add("status", StateRow::status, UTF8_ORDER, TextNode::valueOf);
    return stats;
  }

  /** Strings as Spark orders them: by their UTF-8 bytes. */
  private static final Comparator<String> UTF8_ORDER = Comparator.comparing(UTF8String::fromString);

  private static final Function<Long, JsonNode> TIMESTAMP =
      micros -> TextNode.valueOf(timestampStatistic(micros));

  /** One file's statistics, a column at a time. */
  private record ColumnStatistics(
      List<StateRow> rows, ObjectNode least, ObjectNode greatest, ObjectNode nulls) {
    <T> void add(
        String column,
        Function<StateRow, T> value,
        Comparator<T> order,
        Function<T, JsonNode> asJson) {
      T low = null;
      T high = null;
      long nullCount = 0;
      for (StateRow r : rows) {
        T v = value.apply(r);
        if (v == null) {
          nullCount++;
        } else if (low == null) {
          low = v;
          high = v;
        } else if (order.compare(v, low) < 0) {
          low = v;
        } else if (order.compare(v, high) > 0) {
          high = v;
        }
      }
      if (low != null) {
        least.set(column, asJson.apply(low));
        greatest.set(column, asJson.apply(high));
      }
      nulls.put(column, nullCount);
    }
  }

  private static final DateTimeFormatter MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX")
          .withZone(java.time.ZoneOffset.UTC);

  /** A timestamp as Delta writes it in statistics: to the millisecond, downwards, in UTC. */
  static String timestampStatistic(long micros) {
    return MILLIS.format(Instant.ofEpochMilli(Math.floorDiv(micros, 1000L)));
  }

  private static Group group(SimpleGroupFactory groups, StateRow r) {
    Group g = groups.newGroup();
    g.add("path", r.path());
    if (r.size() != null) {
      g.add("size", r.size());
    }
    if (r.modificationMicros() != null) {
      g.add("modification_time", r.modificationMicros());
    }
    if (r.etag() != null) {
      g.add("etag", r.etag());
    }
    if (r.discoveredMicros() != null) {
      g.add("discovered_at", r.discoveredMicros());
    }
    if (r.discoveredBy() != null) {
      g.add("discovered_by", r.discoveredBy());
    }
    g.add("batch_id", r.batchId());
    if (r.committedMicros() != null) {
      g.add("committed_at", r.committedMicros());
    }
    g.add("status", r.status());
    return g;
  }

  private static String string(Group g, String field) {
    return g.getFieldRepetitionCount(field) == 0 ? null : g.getString(field, 0);
  }

  private static Long integral(Group g, String field) {
    return g.getFieldRepetitionCount(field) == 0 ? null : g.getLong(field, 0);
  }

  /**
   * A timestamp column's value in microseconds, as Spark writes it (INT96, its default) or as this
   * class and Spark's other settings write it (INT64 in micro- or milliseconds).
   */
  private static Long timestamp(Group g, String field) {
    if (g.getFieldRepetitionCount(field) == 0) {
      return null;
    }
    Type type = g.getType().getType(field);
    PrimitiveType primitive = type.asPrimitiveType();
    if (primitive.getPrimitiveTypeName() == PrimitiveTypeName.INT96) {
      ByteBuffer b = g.getInt96(field, 0).toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
      long nanosOfDay = b.getLong();
      int julianDay = b.getInt();
      return (julianDay - JULIAN_DAY_OF_EPOCH) * MICROS_PER_DAY + nanosOfDay / 1000L;
    }
    long v = g.getLong(field, 0);
    if (type.getLogicalTypeAnnotation()
        instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation t) {
      return switch (t.getUnit()) {
        case MILLIS -> v * 1000L;
        case MICROS -> v;
        case NANOS -> Math.floorDiv(v, 1000L);
      };
    }
    return v;
  }

  private static final long JULIAN_DAY_OF_EPOCH = 2_440_588L;
  private static final long MICROS_PER_DAY = TimeUnit.DAYS.toMicros(1);

  /** Parquet's example rows, through the builder that takes a file already looked up. */
  private static final class GroupReader extends ParquetReader.Builder<Group> {
    GroupReader(InputFile file) {
      super(file);
    }

    @Override
    protected ReadSupport<Group> getReadSupport() {
      return new GroupReadSupport();
    }
  }

  /**
   * An output file that knows its size once written, which Delta's add action records: Spark asks
   * the store for it after the write (on S3 a HEAD).
   */
  private static final class SizedOutputFile implements OutputFile {
    private final OutputFile file;
    private long bytes = -1;

    SizedOutputFile(OutputFile file) {
      this.file = file;
    }

    long bytes() {
      if (bytes < 0) {
        throw new IllegalStateException("not closed: " + file.getPath());
      }
      return bytes;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
      return sized(file.create(blockSizeHint));
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
      return sized(file.createOrOverwrite(blockSizeHint));
    }

    @Override
    public boolean supportsBlockSize() {
      return file.supportsBlockSize();
    }

    @Override
    public long defaultBlockSize() {
      return file.defaultBlockSize();
    }

    @Override
    public String getPath() {
      return file.getPath();
    }

    private PositionOutputStream sized(PositionOutputStream out) {
      return new PositionOutputStream() {
        @Override
        public long getPos() throws IOException {
          return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
          out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
          out.flush();
        }

        @Override
        public void close() throws IOException {
          long at = out.getPos();
          out.close();
          bytes = at;
        }
      };
    }
  }

  /**
   * The rows' total, for a bound on what is read whole: empty where a file's statistics lack it.
   */
  static Optional<Long> rowCount(List<AddFile> files) {
    long total = 0;
    for (AddFile f : files) {
      Optional<JsonNode> stats = Json.tryRead(f.stats());
      if (stats.isEmpty() || !stats.get().path("numRecords").canConvertToLong()) {
        return Optional.empty();
      }
      total += stats.get().path("numRecords").asLong();
    }
    return Optional.of(total);
  }
}
