package io.replaysafe.bronze;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.Interruptions;
import io.replaysafe.common.config.SourceFormat;
import io.replaysafe.common.io.Json;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.Footer;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat$;
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Each Parquet or Avro file's own schema, read from its footer or header before a batch is read:
 * Spark's reader is then given each file on that schema ({@link RescuingFileFormat}), so files of
 * different schemas go into one batch and each column of each file is mapped or rescued on its own
 * ({@link FileRowMapping}). A file whose schema cannot be read (not Parquet or Avro, truncated,
 * gone, denied) is a bad file, as a file whose lookup fails: the caller records it and leaves it
 * out.
 */
final class FileSchemas {
  private static final ObjectMapper JSON = Json.mapper();

  /**
   * Up to this many files are read on the driver; more in one Spark job. Spark lists files the same
   * way ({@code spark.sql.sources.parallelPartitionDiscovery.threshold}, 32).
   */
  private static final int READ_ON_DRIVER = 32;

  /** How many of those the driver reads at a time. */
  private static final int DRIVER_THREADS = 8;

  private FileSchemas() {}

  /**
   * The files' schemas, and the files that could not be read, in the order given.
   *
   * @param schemas each readable file's schema, by the path as given
   */
  record Read(Map<String, StructType> schemas, List<BadFiles.BadFile> unreadable) {
    /** The readable files, in the order given. */
    List<String> readable() {
      return List.copyOf(schemas.keySet());
    }

    /** The schemas as {@link RescuingFileFormat}'s {@value RescuingFileFormat#FILE_SCHEMAS}. */
    String option() {
      return encode(schemas);
    }
  }

  static Read read(SparkSession spark, SourceFormat format, List<String> files) {
    Configuration conf = spark.sessionState().newHadoopConf();
    List<Result> results;
    if (files.size() <= READ_ON_DRIVER) {
      results = readOnDriver(format, conf, files);
    } else {
      Broadcast<SerializableConfiguration> shared =
          SerializableConfiguration.broadcast(spark.sparkContext(), conf);
      results =
          JavaSparkContext.fromSparkContext(spark.sparkContext())
              .parallelize(files, Math.min(files.size(), spark.sparkContext().defaultParallelism()))
              .map(new ReadTask(format, shared))
              .collect();
    }
    Map<String, StructType> schemas = new LinkedHashMap<>();
    List<BadFiles.BadFile> unreadable = new ArrayList<>();
    for (Result r : results) {
      if (r.errorClass() != null) {
        unreadable.add(
            new BadFiles.BadFile(r.path(), null, null, r.errorClass(), r.errorMessage()));
      } else {
        schemas.put(r.path(), (StructType) DataType.fromJson(r.schemaJson()));
      }
    }
    return new Read(schemas, unreadable);
  }

  /**
   * Reads the files' footers or headers on the driver, up to {@value #DRIVER_THREADS} at a time:
   * each is a request or two (on S3 a GET of the file's tail, tens of milliseconds), and one after
   * the other they were a seventh of a one-batch Parquet run's fixed cost (20 files, 140 ms on
   * local disk, scripts/bench-bronze).
   */
  private static List<Result> readOnDriver(
      SourceFormat format, Configuration conf, List<String> files) {
    if (files.size() == 1) {
      return List.of(readOne(format, conf, files.get(0)));
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(files.size(), DRIVER_THREADS),
            task -> {
              Thread t = new Thread(task, "replaysafe-file-schemas");
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<Result>> reads = new ArrayList<>();
      for (String file : files) {
        reads.add(pool.submit(() -> readOne(format, conf, file)));
      }
      List<Result> results = new ArrayList<>();
      for (Future<Result> read : reads) {
        results.add(read.get());
      }
      return results;
    } catch (InterruptedException e) {
      Interruptions.rethrowIfInterrupted("reading the files' footers", e);
      throw new IllegalStateException(e); // not reached: an InterruptedException is one
    } catch (ExecutionException e) {
      // readOne turns a file's failure into a result; the store failing for a while and an
      // interruption are thrown on (BadFiles.bad), and anything else is an Error.
      if (e.getCause() instanceof RuntimeException thrown) {
        throw thrown;
      }
      throw new IllegalStateException("Reading a file's schema failed", e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Reads the file whole with Spark's reader on its own schema, the way a batch reads it, and
   * returns what went wrong, if anything: {@link BadFiles#check} for Parquet and Avro.
   */
  static Optional<BadFiles.BadFile> check(SparkSession spark, SourceFormat format, String file) {
    Read read = read(spark, format, List.of(file));
    if (!read.unreadable().isEmpty()) {
      return Optional.of(read.unreadable().get(0));
    }
    try {
      spark
          .read()
          .format(format.key())
          .schema(read.schemas().get(file))
          .load(file)
          .queryExecution()
          .toRdd()
          .count();
      return Optional.empty();
    } catch (Exception e) { // SparkException (checked), thrown by Scala without declaring it
      return Optional.of(BadFiles.bad(file, null, e));
    }
  }

  /**
   * One file's schema as JSON, or why it could not be read (the error's class and message: what
   * {@link BadFiles#bad} keeps), as a task's result.
   */
  record Result(String path, String schemaJson, String errorClass, String errorMessage)
      implements Serializable {}

  private static Result readOne(SourceFormat format, Configuration conf, String file) {
    Path path = new Path(URI.create(file));
    try {
      StructType schema =
          switch (format) {
            case PARQUET -> parquet(conf, path);
            case AVRO -> AvroFileSchemas.read(conf, path);
            case JSON, CSV ->
                throw new IllegalArgumentException(format.key() + " files carry no schema");
          };
      return new Result(file, schema.json(), null, null);
    } catch (IOException | RuntimeException e) {
      BadFiles.BadFile bad = BadFiles.bad(file, null, e);
      return new Result(file, null, bad.errorClass(), bad.errorMessage());
    }
  }

  /** The footer's schema as Spark's Parquet reader sees it (Spark's own, when Spark wrote it). */
  private static StructType parquet(Configuration conf, Path path) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(path, conf))) {
      return ParquetFileFormat$.MODULE$.readSchemaFromFooter(
          new Footer(path, reader.getFooter()), new ParquetToSparkSchemaConverter(SQLConf.get()));
    }
  }

  /** Reads schemas in the tasks of the job above. */
  private static final class ReadTask
      implements org.apache.spark.api.java.function.Function<String, Result> {
    private static final long serialVersionUID = 1L;
    private final SourceFormat format;
    private final Broadcast<SerializableConfiguration> conf;

    ReadTask(SourceFormat format, Broadcast<SerializableConfiguration> conf) {
      this.format = format;
      this.conf = conf;
    }

    @Override
    public Result call(String file) {
      return readOne(format, conf.value().value(), file);
    }
  }

  /** Distinct schemas once, then each file's index into them: a batch's files often share one. */
  static String encode(Map<String, StructType> schemas) {
    List<String> distinct = new ArrayList<>();
    Map<String, Integer> files = new LinkedHashMap<>();
    for (Map.Entry<String, StructType> e : schemas.entrySet()) {
      String json = e.getValue().json();
      int index = distinct.indexOf(json);
      if (index < 0) {
        index = distinct.size();
        distinct.add(json);
      }
      files.put(e.getKey(), index);
    }
    try {
      return JSON.writeValueAsString(Map.of("schemas", distinct, "files", files));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What {@link #encode} wrote: the distinct schemas and each file's index into them. */
  record Encoded(List<StructType> schemas, Map<String, Integer> files) {}

  static Encoded decode(String option) {
    try {
      Map<?, ?> map = JSON.readValue(option, Map.class);
      List<StructType> schemas = new ArrayList<>();
      for (Object json : (List<?>) map.get("schemas")) {
        schemas.add((StructType) DataType.fromJson((String) json));
      }
      Map<String, Integer> files = new LinkedHashMap<>();
      ((Map<?, ?>) map.get("files"))
          .forEach((k, v) -> files.put((String) k, ((Number) v).intValue()));
      return new Encoded(schemas, files);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "option " + RescuingFileFormat.FILE_SCHEMAS + " is not what bronze wrote", e);
    }
  }
}
