package io.replaysafe.bronze;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;

import io.delta.tables.DeltaTable;
import io.replaysafe.bronze.FileStateParquet.StateRow;
import io.replaysafe.common.spark.DeltaTables;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every file bronze has seen, one row each, in a Delta table inside the bronze checkpoint ({@code
 * <checkpoint>/file_state}): path, size, modification time, ETag where the store gives one, when
 * and how it was discovered, the batch it went into, when that batch committed, and its status
 * ({@value #DISCOVERED}: planned into a batch not known to have committed; {@value #INGESTED}). A
 * file's fate as a bad file (bad, dismissed, retried) stays in the bad-files table, which decides
 * it; {@code replaysafe files} shows both.
 *
 * <p>Why a Delta table: a run asks it only about the files it found (their keys go to the
 * executors, which read the table's rows as they stream past and send back a bit per found file:
 * {@link Version#notPlanned}), so the driver never holds the history, and the table is clustered by
 * path so a small lookup can skip files. Its commits are atomic, on S3 as on disk, and anyone can
 * query it. It lives in the checkpoint because it is the checkpoint's memory: deleting the
 * checkpoint forgets every file, as before.
 */
public final class FileState {
  private static final Logger LOG = LoggerFactory.getLogger(FileState.class);

  public static final String DIRECTORY = "file_state";
  public static final String DISCOVERED = "discovered";
  public static final String INGESTED = "ingested";

  /** How a file was found: by listing, by a notification, by a backfill listing, by adoption. */
  public static final String BY_LISTING = "listing";

  public static final String BY_NOTIFICATION = "notification";
  public static final String BY_BACKFILL = "backfill";
  public static final String BY_ADOPTION = "adopted";

  public static final StructType SCHEMA =
      new StructType()
          .add("path", DataTypes.StringType, false)
          .add("size", DataTypes.LongType, true)
          .add("modification_time", DataTypes.TimestampType, true)
          .add("etag", DataTypes.StringType, true)
          .add("discovered_at", DataTypes.TimestampType, true)
          .add("discovered_by", DataTypes.StringType, true)
          .add("batch_id", DataTypes.LongType, false)
          .add("committed_at", DataTypes.TimestampType, true)
          .add("status", DataTypes.StringType, false);

  /** A file a discovery found: its URI string as Spark names it, size, mtime, ETag if known. */
  public record Discovered(String path, long size, long modifiedMs, String etag) {}

  private final SparkSession spark;
  private final String checkpoint;
  private final String path;

  private FileState(SparkSession spark, String checkpoint) {
    this.spark = spark;
    this.checkpoint = checkpoint;
    this.path = new Path(checkpoint, DIRECTORY).toString();
  }

  /** The file state of the bronze checkpoint (which may not have one yet). */
  public static FileState of(SparkSession spark, String checkpoint) {
    return new FileState(spark, checkpoint);
  }

  /** The bronze checkpoint this file state is in. */
  String checkpoint() {
    return checkpoint;
  }

  public String path() {
    return path;
  }

  public boolean exists() {
    return DeltaTables.exists(spark, path);
  }

  /**
   * Creates the table when missing; clustered by path, its small files compacted as it goes: by
   * each {@link #markCommitted}, and by Delta's auto-compaction after Delta's own writes (an
   * adoption, a fallback where Delta's internals differ).
   */
  void ensure(String pipeline) {
    if (exists()) {
      return;
    }
    DeltaTable.createIfNotExists(spark)
        .location(path)
        .addColumns(SCHEMA)
        .clusterBy("path")
        .property("delta.autoOptimize.autoCompact", "true")
        .property(CHECKPOINT_INTERVAL, CHECKPOINTS_EVERY)
        .property(PAGE_ROWS, PAGE_ROWS_MOST)
        .comment("replaysafe: every file bronze of pipeline " + pipeline + " has seen")
        .execute();
  }

  /**
   * The table's latest version, for one or more questions: its log is read once for all of them (on
   * S3 a listing), its rows at most once per question, and its highest batch not at all where the
   * files' statistics tell it. A version of a table that does not exist yet holds no row.
   */
  Version latest() {
    return new Version(DeltaTables.snapshot(spark, path).orElse(null));
  }

  /**
   * The table's id as this JVM last read or wrote it, asking the store nothing; empty when this JVM
   * knows no version of it.
   */
  Optional<String> tableIdKnownHere() {
    var known = DeltaLog.forTable(spark, path).unsafeVolatileSnapshot();
    return known.version() < 0 ? Optional.empty() : Optional.of(known.metadata().id());
  }

  /** The table as it is, for {@code replaysafe files}. */
  public Dataset<Row> read() {
    return spark.read().format("delta").load(path);
  }

  /** As {@link Version#notPlanned}, of the latest version. */
  List<Discovered> notPlanned(List<Discovered> candidates, long lastPlanned, boolean byName) {
    return candidates.isEmpty() ? candidates : latest().notPlanned(candidates, lastPlanned, byName);
  }

  /** As {@link Version#lastPlanned}, of the latest version. */
  OptionalLong lastPlanned() {
    return latest().lastPlanned();
  }

  /** As {@link Version#filesOf}, of the latest version. */
  List<String> filesOf(long after, long upTo) {
    return latest().filesOf(after, upTo);
  }

  /** As {@link Version#newestModification}, of the latest version. */
  OptionalLong newestModification() {
    return latest().newestModification();
  }

  /**
   * One version of the table and the questions a run asks of it. Its rows are read from the files
   * its checksum lists ({@link DeltaTables#readSmall}), the same rows as Delta's read: Delta's read
   * would first rebuild the table's state from every commit since its last checkpoint (on S3 a HEAD
   * and a GET per commit file, up to ten).
   */
  final class Version {
    // Null when the table does not exist.
    private final Snapshot snapshot;
    private Dataset<Row> rows;

    private Version(Snapshot snapshot) {
      this.snapshot = snapshot;
    }

    boolean exists() {
      return snapshot != null;
    }

    /** The table's id (Delta's metadata id), or null when it does not exist. */
    String tableId() {
      return snapshot == null ? null : snapshot.metadata().id();
    }

    /** The rows, read on first use; empty before the table exists. */
    private Optional<Dataset<Row>> rows() {
      if (snapshot == null) {
        return Optional.empty();
      }
      if (rows == null) {
        rows = DeltaTables.readSmall(spark, path, snapshot);
      }
      return Optional.of(rows);
    }

    /**
     * As {@link #notPlanned(List, long, boolean)}, of candidates handed on one at a time ({@link
     * FileDiscovery#discoverEach}), looked up a chunk at a time: up to {@link #lookUpChunk()}
     * candidates, or fewer whose paths reach {@link #LOOK_UP_CHUNK_CHARS} characters, each chunk
     * one question whose answer keeps only its new files. What the driver holds is one chunk and
     * the new files, however many files are listed; each chunk after the first costs one more pass
     * over the rows its paths' range does not let Delta skip. The candidates are answered in the
     * order given, as one question would answer them.
     */
    List<Discovered> notPlanned(
        Consumer<Consumer<Discovered>> candidates, long lastPlanned, boolean byName) {
      int chunkFiles = lookUpChunk();
      List<Discovered> fresh = new ArrayList<>();
      List<Discovered> chunk = new ArrayList<>();
      long[] chars = {0};
      candidates.accept(
          c -> {
            chunk.add(c);
            chars[0] += c.path().length();
            if (chunk.size() >= chunkFiles || chars[0] >= LOOK_UP_CHUNK_CHARS) {
              fresh.addAll(notPlanned(chunk, lastPlanned, byName));
              chunk.clear();
              chars[0] = 0;
            }
          });
      if (!chunk.isEmpty()) {
        fresh.addAll(notPlanned(chunk, lastPlanned, byName));
      }
      return fresh;
    }

    /**
     * The candidates that are in no planned batch up to {@code lastPlanned}: new files, and files a
     * run wrote into a batch it never got to plan (stopped between the two). A small table is read
     * on the driver ({@link SmallFileStateLookup}), a larger one by Spark ({@link #heldBySpark}).
     * No shuffle and no join either way: the table's rows are read once as they stream past, never
     * held whole, and nothing is left in a cache.
     *
     * @param byName compare file names only ({@code fileNameOnly})
     */
    List<Discovered> notPlanned(List<Discovered> candidates, long lastPlanned, boolean byName) {
      Optional<Dataset<Row>> rows = candidates.isEmpty() ? Optional.empty() : rows();
      if (rows.isEmpty()) {
        return candidates;
      }
      String[] keys = sortedKeys(candidates, byName);
      BitSet held =
          SmallFileStateLookup.held(spark, snapshot, keys, lastPlanned, byName)
              .orElseGet(() -> heldBySpark(rows.get(), keys, lastPlanned, byName));
      List<Discovered> fresh = new ArrayList<>();
      for (Discovered c : candidates) {
        if (!held.get(Arrays.binarySearch(keys, key(c.path(), byName)))) {
          fresh.add(c);
        }
      }
      return fresh;
    }

    /**
     * Which of {@code keys} a row of a batch up to {@code lastPlanned} holds, asked of Spark: the
     * keys go to the executors once, as a broadcast destroyed when the question is answered; each
     * partition of the table's rows marks the keys it holds ({@link HeldKeys}) and sends back only
     * those marks, a bit per candidate.
     */
    private BitSet heldBySpark(Dataset<Row> rows, String[] keys, long lastPlanned, boolean byName) {
      Dataset<Row> planned = rows.where(col("batch_id").leq(lastPlanned));
      if (!byName) {
        // The keys' range: Delta skips the files whose path statistics lie outside it, most of
        // them when the candidates are few (a notified file) and the table clustered by path.
        String[] range = utf8Range(keys);
        planned = planned.where(col("path").geq(range[0]).and(col("path").leq(range[1])));
      }
      Broadcast<String[]> shared =
          JavaSparkContext.fromSparkContext(spark.sparkContext()).broadcast(keys);
      BitSet held = new BitSet(keys.length);
      try {
        for (byte[] marks :
            planned
                .select("path")
                .as(Encoders.STRING())
                .mapPartitions(new HeldKeys(shared, byName), Encoders.BINARY())
                .collectAsList()) {
          held.or(BitSet.valueOf(marks));
        }
      } finally {
        shared.destroy();
      }
      return held;
    }

    /**
     * The highest batch any file is recorded in, if any. From the files' statistics where they tell
     * it (the usual case: no data file is read), else from the rows.
     */
    OptionalLong lastPlanned() {
      if (snapshot == null) {
        return OptionalLong.empty();
      }
      Optional<OptionalLong> fromStatistics = DeltaTables.maxFromStatistics(snapshot, "batch_id");
      if (fromStatistics.isPresent()) {
        return fromStatistics.get();
      }
      Row r = rows().get().agg(max(col("batch_id"))).first();
      return r.isNullAt(0) ? OptionalLong.empty() : OptionalLong.of(r.getLong(0));
    }

    /** The files planned into batches after {@code after} up to {@code upTo}, in path order. */
    List<String> filesOf(long after, long upTo) {
      Optional<Dataset<Row>> rows = rows();
      if (rows.isEmpty()) {
        return List.of();
      }
      return rows.get()
          .where(col("batch_id").gt(after).and(col("batch_id").leq(upTo)))
          .select("path")
          .orderBy("path")
          .as(Encoders.STRING())
          .collectAsList();
    }

    /** The newest modification time of any file seen, for {@code maxFileAge}. */
    OptionalLong newestModification() {
      Optional<Dataset<Row>> rows = rows();
      if (rows.isEmpty()) {
        return OptionalLong.empty();
      }
      Row r = rows.get().agg(max(col("modification_time"))).first();
      return r.isNullAt(0) ? OptionalLong.empty() : OptionalLong.of(r.getTimestamp(0).getTime());
    }
  }

  /**
   * The most candidates one question to the table holds ({@link Version#notPlanned(Consumer, long,
   * boolean)}): 100,000 by default, about 25 MB of the driver's heap with their keys; the system
   * property {@value #LOOK_UP_CHUNK_PROPERTY} sets it (tests set it low to cross chunks with few
   * files). Each question reads the whole file state, so the chunk trades heap for time: with
   * 10,000 an idle run over 100,000 listed files asked ten times and took 13.0 s against 1.1 s at
   * 1,000 files (bench-discovery, 2026-12-04, load 21-75) for 26 MiB of heap. At 100,000 a prefix
   * of that size is one question, as before the listing was streamed, and a prefix of a million
   * files ten, with the heap bounded; past that size notifications (or {@code cleanSource: move})
   * are the answer (bronze/README.md). Since the listing's ranges ({@link ListedRanges}), a listing
   * run hands on only the files of the ranges it does not know as held: the chunks fill only on the
   * first run over a large prefix, or when most of it changed.
   */
  static final String LOOK_UP_CHUNK_PROPERTY = "replaysafe.bronze.fileStateLookUpChunk";

  static final int LOOK_UP_CHUNK_DEFAULT = 100_000;

  /** A chunk also ends when its paths reach this many characters (long keys: fewer per chunk). */
  static final long LOOK_UP_CHUNK_CHARS = 40_000_000;

  static int lookUpChunk() {
    int n = Integer.getInteger(LOOK_UP_CHUNK_PROPERTY, LOOK_UP_CHUNK_DEFAULT);
    return Math.max(1, n);
  }

  /**
   * Marks in {@code held} the one of the sorted {@code keys} a row of {@code path} holds, if any.
   */
  static void markHeld(BitSet held, String[] keys, String path, boolean byName) {
    int i = Arrays.binarySearch(keys, key(path, byName));
    if (i >= 0) {
      held.set(i);
    }
  }

  /** What a file is known by: its path, or with {@code fileNameOnly} its name. */
  static String key(String path, boolean byName) {
    return byName ? path.substring(path.lastIndexOf('/') + 1) : path;
  }

  /** The candidates' keys, each once, in {@link String#compareTo} order (for binary search). */
  private static String[] sortedKeys(List<Discovered> candidates, boolean byName) {
    String[] keys = new String[candidates.size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = key(candidates.get(i).path(), byName);
    }
    Arrays.sort(keys);
    int distinct = 0;
    for (int i = 0; i < keys.length; i++) {
      if (distinct == 0 || !keys[i].equals(keys[distinct - 1])) {
        keys[distinct++] = keys[i];
      }
    }
    return distinct == keys.length ? keys : Arrays.copyOf(keys, distinct);
  }

  /**
   * The lowest and highest of the keys as Spark compares strings (their UTF-8 bytes), which is not
   * always {@link String#compareTo}'s order (UTF-16 units) beyond the basic multilingual plane.
   */
  private static String[] utf8Range(String[] keys) {
    UTF8String low = UTF8String.fromString(keys[0]);
    UTF8String high = low;
    for (String k : keys) {
      UTF8String u = UTF8String.fromString(k);
      if (u.compareTo(low) < 0) {
        low = u;
      } else if (u.compareTo(high) > 0) {
        high = u;
      }
    }
    return new String[] {low.toString(), high.toString()};
  }

  /**
   * On an executor, for one partition of the file state's paths: which of the candidates' keys it
   * holds, a bit per key ({@link BitSet#toByteArray}). A partition sends back at most a bit per
   * candidate, however many rows it holds.
   */
  private static final class HeldKeys implements MapPartitionsFunction<String, byte[]> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<String[]> keys;
    private final boolean byName;

    HeldKeys(Broadcast<String[]> keys, boolean byName) {
      this.keys = keys;
      this.byName = byName;
    }

    @Override
    public Iterator<byte[]> call(Iterator<String> paths) {
      String[] sorted = keys.value();
      BitSet held = new BitSet(sorted.length);
      while (paths.hasNext()) {
        markHeld(held, sorted, paths.next(), byName);
      }
      return List.of(held.toByteArray()).iterator();
    }
  }

  /**
   * Records the files as planned into {@code batch}, before Spark writes the batch's offset: a run
   * stopped in between finds them in a batch it never planned ({@link #forgetAfter}), and plans
   * them again. An append: the files are new to the table. Not compacted here: the run's {@link
   * #markCommitted} rewrites the small files it leaves ({@link FileStateCommits}).
   */
  void plan(List<Discovered> files, long batch, FileDiscovery discovery) {
    long now = System.currentTimeMillis() * 1000L;
    List<StateRow> rows = new ArrayList<>();
    for (Discovered f : files) {
      rows.add(
          new StateRow(
              f.path(),
              f.size(),
              f.modifiedMs() * 1000L,
              f.etag(),
              now,
              discovery.kind(f),
              batch,
              null,
              DISCOVERED));
    }
    if (!FileStateCommits.append(spark, path, rows)) {
      asDataset(spark, rows).write().format("delta").mode("append").save(path);
    }
  }

  /** {@code rows} as a DataFrame of the table's schema, for Spark to write. */
  static Dataset<Row> asDataset(SparkSession spark, List<StateRow> rows) {
    List<Row> asRows = new ArrayList<>(rows.size());
    for (StateRow r : rows) {
      asRows.add(
          RowFactory.create(
              r.path(),
              r.size(),
              timestamp(r.modificationMicros()),
              r.etag(),
              timestamp(r.discoveredMicros()),
              r.discoveredBy(),
              r.batchId(),
              timestamp(r.committedMicros()),
              r.status()));
    }
    return spark.createDataFrame(asRows, SCHEMA);
  }

  private static Timestamp timestamp(Long micros) {
    return micros == null
        ? null
        : Timestamp.from(Instant.EPOCH.plus(micros, java.time.temporal.ChronoUnit.MICROS));
  }

  /**
   * Removes the files recorded in batches after {@code batch}: a run stopped after it wrote them
   * and before Spark wrote the batch's offset. They are found again, and planned again.
   */
  void forgetAfter(long batch) {
    DeltaTable.forPath(spark, path).delete(col("batch_id").gt(batch));
  }

  /**
   * Marks the files of every batch up to {@code lastCommitted} that are still {@value #DISCOVERED}
   * as {@value #INGESTED}, compacting the table's small files in the same commit ({@link
   * FileStateCommits}). Nothing is committed when no file matches (a run with nothing new).
   */
  void markCommitted(long lastCommitted) {
    // Not asked first whether the table exists (on S3 a listing of its log): it is called after a
    // batch committed, and every batch was planned into this table first.
    if (!FileStateCommits.markCommitted(spark, path, lastCommitted)) {
      Map<String, Column> set = new LinkedHashMap<>();
      set.put("status", lit(INGESTED));
      set.put("committed_at", current_timestamp());
      DeltaTable.forPath(spark, path)
          .update(col("status").equalTo(DISCOVERED).and(col("batch_id").leq(lastCommitted)), set);
    }
    setOwnProperties();
  }

  /**
   * The table property that sets how many commits Delta writes between two checkpoints of the
   * table's log ({@value #CHECKPOINTS_EVERY} here, Delta's default 10).
   */
  static final String CHECKPOINT_INTERVAL = "delta.checkpointInterval";

  /**
   * A checkpoint every 100 commits, once per 50 runs with new files: a run commits twice (the plan
   * and the mark), so at Delta's 10 every fifth run also wrote a checkpoint, which rebuilds the
   * table's state in six Spark jobs: 1.0-1.6 s in a warm JVM (measured, 20,000 Avro events a run,
   * against 1.2-1.4 s for the whole run), more in a scheduled run's fresh one. Nothing a run does
   * replays the commits since the last checkpoint: its questions read the files the latest
   * version's checksum lists ({@link Version}). A reader of the table through Delta ({@code
   * replaysafe files}) replays at most 100 small commits instead of 10; log files past their
   * retention are still removed, at each checkpoint.
   */
  static final String CHECKPOINTS_EVERY = "100";

  /**
   * The table property, Parquet's own key, that bounds the rows of a Parquet page of the table's
   * files ({@value #PAGE_ROWS_MOST} here, Parquet's default 20,000). Delta copies a table's
   * properties into the configuration of every write it makes of the table (a mark by Spark, an
   * OPTIMIZE); {@link FileStateParquet#write} writes the driver's files with it.
   */
  static final String PAGE_ROWS = "parquet.page.row.count.limit";

  /**
   * Pages of at most 1,000 rows. A run looks up the names of the listing's range that holds a new
   * file (a few hundred, up to about a thousand), and Parquet builds every row of each page whose
   * least and greatest path could hold one of them: with 20,000-row pages a run with one new file
   * over 100,000 files ingested built 20,000-40,000 rows to find a few hundred, 1.6 s of one run's
   * driver in a flight recording (2026-12-06, bench-discovery). The page index Parquet writes
   * beside each column is part of the format every reader reads or ignores.
   */
  static final String PAGE_ROWS_MOST = "1000";

  /**
   * Sets {@value #CHECKPOINT_INTERVAL} and {@value #PAGE_ROWS} on a file state created before they
   * were set at creation (one commit of the table's properties, once), as known from the version
   * this JVM just wrote: no request when they are set. The files written before keep their pages
   * until a mark or a compaction rewrites them.
   */
  private void setOwnProperties() {
    var known = DeltaLog.forTable(spark, path).unsafeVolatileSnapshot();
    if (known.version() < 0) {
      return;
    }
    Map<String, String> missing = new LinkedHashMap<>();
    Map.of(CHECKPOINT_INTERVAL, CHECKPOINTS_EVERY, PAGE_ROWS, PAGE_ROWS_MOST)
        .forEach(
            (key, value) -> {
              if (!value.equals(known.metadata().configuration().get(key).getOrElse(() -> null))) {
                missing.put(key, value);
              }
            });
    if (!missing.isEmpty()) {
      setProperties(missing);
    }
  }

  /** Sets some of the table's properties (one commit). */
  private void setProperties(Map<String, String> properties) {
    spark.sql(
        "ALTER TABLE delta.`"
            + path.replace("`", "``")
            + "` SET TBLPROPERTIES ("
            + String.join(
                ", ",
                properties.entrySet().stream()
                    .map(e -> "'" + e.getKey() + "' = '" + e.getValue() + "'")
                    .toList())
            + ")");
  }

  /**
   * Marks the batches up to {@code lastCommitted} a run stopped before marking (killed between the
   * table's commit and the mark: a continuous run marks each batch only when it plans the next
   * one), when the version this JVM already read shows any ({@link
   * FileStateCommits#knownToHoldUnmarked}). For a run that committed no batch of its own: nothing
   * is asked of the store when every row is marked.
   */
  void markLeftUnmarked(long lastCommitted) {
    if (FileStateCommits.knownToHoldUnmarked(spark, path, lastCommitted)) {
      LOG.info(
          "File state {}: marking the batches up to {} a stopped run left unmarked",
          path,
          lastCommitted);
      markCommitted(lastCommitted);
    }
  }

  /**
   * Adopts the file log Spark's file source kept in a checkpoint written before the file state
   * existed: every file it lists, in the batch it went into, ingested when that batch committed.
   * Read whole this once, on the first run after the upgrade.
   */
  void adopt(List<FileSourceLog.Entry> entries, long lastCommitted, String pipeline) {
    ensure(pipeline);
    if (entries.isEmpty()) {
      return;
    }
    List<Row> rows = new ArrayList<>();
    for (FileSourceLog.Entry e : entries) {
      boolean committed = e.batchId() <= lastCommitted;
      rows.add(
          RowFactory.create(
              e.path(),
              null,
              new Timestamp(e.timestamp()),
              null,
              null,
              BY_ADOPTION,
              e.batchId(),
              null,
              committed ? INGESTED : DISCOVERED));
    }
    spark.createDataFrame(rows, SCHEMA).write().format("delta").mode("append").save(path);
  }

  /** The table property that records when the last backfill listing ran (notification mode). */
  static final String LAST_BACKFILL = "replaysafe.lastBackfillAt";

  /** When the last backfill listing of notification mode ran, if one did. */
  Optional<Instant> lastBackfill() {
    if (!exists()) {
      return Optional.empty();
    }
    for (Row r : spark.sql("SHOW TBLPROPERTIES delta.`" + path + "`").collectAsList()) {
      if (LAST_BACKFILL.equals(r.getString(0))) {
        return Optional.of(Instant.parse(r.getString(1)));
      }
    }
    return Optional.empty();
  }

  /** Records a backfill listing that ran at {@code at} and whose files were all ingested. */
  void recordBackfill(Instant at) {
    setProperties(Map.of(LAST_BACKFILL, at.toString()));
  }
}
