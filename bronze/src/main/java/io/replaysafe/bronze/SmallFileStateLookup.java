package io.replaysafe.bronze;

import io.replaysafe.common.spark.DeltaTables;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetInputFormat;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.actions.AddFile;

/**
 * The file state's lookup ({@link FileState.Version#notPlanned}) answered on the driver, by reading
 * the table's Parquet files' {@code path} and {@code batch_id} columns directly, when the table is
 * small: up to {@link #maxBytes()} bytes of files (4 MiB), as a pipeline's file state is for its
 * first months and every notified run's fresh files are. As a Spark query the same answer cost a
 * run about 100 ms in a warm JVM (its planning over Delta's relation, a broadcast, a job of about
 * 30 ms; measured with 20,000 Avro events a run), more in a scheduled run's fresh one, to read a
 * few hundred kilobytes. The rows are those Delta's read gives: the files the version's checksum
 * lists, none with a deletion vector, partition values or mapped column names; anything else is
 * answered by Spark, as is a larger table.
 */
final class SmallFileStateLookup {
  /**
   * The system property that sets the most bytes of files read on the driver ({@value
   * #MAX_BYTES_DEFAULT} by default); 0 leaves every lookup to Spark.
   */
  static final String MAX_BYTES_PROPERTY = "replaysafe.bronze.driverLookUpMaxBytes";

  static final long MAX_BYTES_DEFAULT = 4L << 20;

  static long maxBytes() {
    return Long.getLong(MAX_BYTES_PROPERTY, MAX_BYTES_DEFAULT);
  }

  /** The two columns a lookup reads, as Delta writes them (nullable, so optional). */
  private static final String PROJECTION =
      "message file_state { optional binary path (STRING); optional int64 batch_id; }";

  private SmallFileStateLookup() {}

  /**
   * The pages that may hold a row whose path is one of {@code keys}: Parquet reads only the pages
   * of {@code path} whose least and greatest values (the column index) can hold one of them (record
   * filtering is off, see {@link #held}: the rows of those pages are matched by the caller).
   * Without it a run with one new file over 100,000 files ingested, looking up a range of a few
   * hundred, built all 100,000 rows (0.3 s of CPU on the driver). With {@code fileNameOnly} the
   * keys are names, not paths, and every row is read.
   */
  private static FilterCompat.Filter pathIn(String[] keys) {
    Set<Binary> paths = new HashSet<>(2 * keys.length);
    for (String k : keys) {
      paths.add(Binary.fromString(k));
    }
    return FilterCompat.get(FilterApi.in(FilterApi.binaryColumn("path"), paths));
  }

  /**
   * Which of the sorted {@code keys} a row of a batch up to {@code lastPlanned} holds, or empty
   * where the table is not one this reads (Spark answers then).
   */
  static Optional<BitSet> held(
      SparkSession spark, Snapshot snapshot, String[] keys, long lastPlanned, boolean byName) {
    Optional<List<AddFile>> listed = DeltaTables.filesFromChecksum(snapshot);
    if (listed.isEmpty()
        || !"none".equals(snapshot.metadata().columnMappingMode().name())
        || !snapshot.metadata().partitionColumns().isEmpty()) {
      return Optional.empty();
    }
    long bytes = 0;
    for (AddFile f : listed.get()) {
      if (f.deletionVector() != null) {
        return Optional.empty();
      }
      bytes += f.size();
    }
    if (bytes > maxBytes()) {
      return Optional.empty();
    }
    Configuration conf = new Configuration(spark.sparkContext().hadoopConfiguration());
    conf.set(ReadSupport.PARQUET_READ_SCHEMA, PROJECTION);
    // The filter skips pages only; each row left is matched below by a binary search of the keys.
    // Parquet's own test of a row against an IN filter walks the whole set of values and compares
    // each (the Parquet Spark 4.2 ships): a row costs as many comparisons as there are keys. A
    // flight recording of
    // a run with one new file over 100,000 files ingested, 781 names looked up, had 294 of its 297
    // CPU samples there (2026-12-06, bench-discovery).
    conf.setBoolean(ParquetInputFormat.RECORD_FILTERING_ENABLED, false);
    BitSet held = new BitSet(keys.length);
    if (keys.length == 0) {
      return Optional.of(held);
    }
    FileStateParquet.forEachRow(
        conf,
        snapshot,
        listed.get(),
        byName ? FilterCompat.NOOP : pathIn(keys),
        row -> {
          if (row.getFieldRepetitionCount("path") > 0
              && row.getFieldRepetitionCount("batch_id") > 0
              && row.getLong("batch_id", 0) <= lastPlanned) {
            FileState.markHeld(held, keys, row.getString("path", 0), byName);
          }
        });
    return Optional.of(held);
  }
}
