package io.replaysafe.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.spark.DeltaTables;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.sql.delta.actions.DeletionVectorDescriptor;
import org.apache.spark.sql.delta.actions.FileAction;
import org.apache.spark.sql.delta.deletionvectors.RoaringBitmapArray;
import org.apache.spark.sql.delta.deletionvectors.RoaringBitmapArrayFormat$;
import org.apache.spark.sql.delta.deletionvectors.StoredBitmap$;
import org.apache.spark.sql.delta.storage.dv.DeletionVectorStore;
import org.apache.spark.sql.delta.storage.dv.DeletionVectorStore$;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The MERGE of a small planned batch (up to 1,000 rows) into a Delta table with deletion vectors,
 * committed by replaysafe in one Delta transaction: the rows Delta's MERGE would leave, and a
 * commit like its own (operation {@code MERGE}, its clauses and row counts), without its fixed
 * cost.
 *
 * <p>Why: in a scheduled run's fresh JVM, Delta's MERGE of 10 rows is about 15 Spark jobs and their
 * planning (the source materialised, the touched files searched with a join over every row of the
 * files that hold the keys, the modified rows written, the deletion vectors written in jobs of
 * their own), and it first rebuilds the table's whole state from its log to choose those files.
 * Here the table's files come from the version's checksum, which lists them with their statistics;
 * the keys' stored rows are read with their file and row position in one query over the files whose
 * key range can hold one of them; the new rows are written with Delta's own writer ({@code
 * writeFiles}, which checks the table's constraints and collects statistics); the replaced rows are
 * marked deleted in the files' deletion vectors, merged with the ones they have, on the driver.
 *
 * <p>The MERGE semantics kept, per planned row: a matched stored row is deleted, or replaced by the
 * planned row, when the planned row's action has that clause and the sequence guard holds; an
 * unmatched planned row is inserted when its action has an insert clause. The transaction reads the
 * whole table, so any concurrent data change to it fails the commit, as a MERGE's would.
 *
 * <p>Only where that is all a MERGE would do: no change data feed, column mapping, row tracking,
 * partition columns, generated or identity columns, constraints beyond Delta's invariants, or
 * random file prefixes; the checksum lists every file; the batch's keys have bounds ({@link
 * StoredState.KeyBounds}); at most {@link #maxRows()} planned rows. Elsewhere the caller runs
 * Delta's MERGE.
 */
final class SmallMerge {
  private static final Logger LOG = LoggerFactory.getLogger(SmallMerge.class);

  /**
   * The most planned rows merged this way; 0 turns it off (every batch then uses Delta's MERGE).
   */
  static final String MAX_ROWS_PROPERTY = "replaysafe.smallMergeMaxRows";

  static final long MAX_ROWS_DEFAULT = 1_000;

  /** Writer features a table may have: what Delta's plain writer honours by itself. */
  private static final Set<String> WRITER_FEATURES =
      Set.of("deletionVectors", "invariants", "appendOnly");

  private static final String FILE = "__replaysafe_file";
  private static final String ROW_INDEX = "__replaysafe_row_index";
  private static final String PLAN_ROW = "__replaysafe_plan_row";
  private static final String APPLIES = "__replaysafe_applies";

  /** What a matched stored row gets for a planned row of an action. */
  enum Matched {
    DELETE,
    UPDATE
  }

  /**
   * The MERGE's clauses: for each action, what a matched stored row gets (absent: nothing), and the
   * actions inserted when no stored row matches. Every matched clause is guarded by {@code guard}.
   */
  record Clauses(Map<MergeAction, Matched> matched, Set<MergeAction> inserted, String guard) {
    Clauses {
      matched = Map.copyOf(matched);
      inserted = Set.copyOf(inserted);
    }
  }

  /** What the commit did, as Delta's MERGE reports it. */
  record Result(long inserted, long updated, long deleted) {}

  private SmallMerge() {}

  static long maxRows() {
    return Long.getLong(MAX_ROWS_PROPERTY, MAX_ROWS_DEFAULT);
  }

  /**
   * Merges {@code plan} into the table at {@code path} when the table and the plan allow it (see
   * the class), else empty and nothing is written. {@code values}: each table column's SQL over the
   * planned row aliased {@code s}. {@code keyCondition}: the key equality between {@code t} and
   * {@code s}.
   */
  static Optional<Result> tryMerge(
      SparkSession spark,
      String path,
      Dataset<Row> plan,
      long planRows,
      Clauses clauses,
      Map<String, String> values,
      String keyCondition,
      StoredState.KeyBounds bounds) {
    if (planRows > maxRows() || bounds == null) {
      return Optional.empty();
    }
    Optional<Snapshot> found = DeltaTables.snapshot(spark, path);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Snapshot snapshot = found.get();
    Optional<List<AddFile>> files;
    try {
      files = mergeableFiles(snapshot, values.keySet());
    } catch (LinkageError otherDelta) {
      // Delta's internal classes differ (a vendor's runtime): its own MERGE.
      return Optional.empty();
    }
    Optional<List<AddFile>> candidates =
        files.flatMap(f -> holdingKeys(f, bounds, snapshot.metadata().schema()));
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          merge(spark, snapshot, candidates.get(), plan, clauses, values, keyCondition, bounds));
    } catch (LinkageError otherDelta) {
      // A Delta build without one of the internals used here (a vendor's runtime): nothing was
      // committed (the commit is the last call), so Delta's MERGE does the batch; what this wrote
      // before is unreferenced, as a failed MERGE's files are, and VACUUM removes it.
      LOG.warn(
          "Delta's internals differ from open-source Delta 4.4 ({}); {} is merged by Delta's MERGE",
          otherDelta.toString(),
          path);
      return Optional.empty();
    }
  }

  /**
   * The table's data files, from the snapshot's checksum, when a commit of new files and deletion
   * vectors is all a MERGE would write to it; else empty.
   */
  static Optional<List<AddFile>> mergeableFiles(Snapshot snapshot, Set<String> valued) {
    var metadata = snapshot.metadata();
    Map<String, String> conf = CollectionConverters.asJava(metadata.configuration());
    if (!metadata.partitionColumns().isEmpty()
        || !"true".equalsIgnoreCase(conf.get("delta.enableDeletionVectors"))
        || "true".equalsIgnoreCase(conf.get("delta.enableChangeDataFeed"))
        || "true".equalsIgnoreCase(conf.get("delta.enableRowTracking"))
        || "true".equalsIgnoreCase(conf.get("delta.appendOnly"))
        || "true".equalsIgnoreCase(conf.get("delta.randomizeFilePrefixes"))
        || !"none".equalsIgnoreCase(conf.getOrDefault("delta.columnMapping.mode", "none"))) {
      return Optional.empty();
    }
    var protocol = snapshot.protocol();
    if (protocol.writerFeatures().isDefined()) {
      for (String feature : CollectionConverters.asJava(protocol.writerFeatures().get())) {
        if (!WRITER_FEATURES.contains(feature)) {
          return Optional.empty();
        }
      }
    } else if (protocol.minWriterVersion() > 2) {
      return Optional.empty(); // constraints, generated columns or more, by version
    }
    StructType schema = metadata.schema();
    for (StructField f : schema.fields()) {
      if (!valued.contains(f.name()) || !f.metadata().json().equals("{}")) {
        // A column without a value, or with metadata (generation, identity, defaults): Delta's
        // MERGE decides those.
        return Optional.empty();
      }
    }
    return DeltaTables.filesListedInChecksum(snapshot);
  }

  private static Result merge(
      SparkSession spark,
      Snapshot snapshot,
      List<AddFile> candidates,
      Dataset<Row> plan,
      Clauses clauses,
      Map<String, String> values,
      String keyCondition,
      StoredState.KeyBounds bounds) {
    DeltaLog log = snapshot.deltaLog();
    // The planned rows, numbered: a local relation, collected without a job.
    List<Row> planned = plan.collectAsList();
    StructType planSchema = plan.schema().add(PLAN_ROW, DataTypes.IntegerType, false);
    List<Row> numbered = new ArrayList<>();
    for (int i = 0; i < planned.size(); i++) {
      Object[] cells = new Object[planSchema.size()];
      for (int c = 0; c < cells.length - 1; c++) {
        cells[c] = planned.get(i).get(c);
      }
      cells[cells.length - 1] = i;
      numbered.add(RowFactory.create(cells));
    }
    Dataset<Row> source = spark.createDataFrame(numbered, planSchema);
    int action = planSchema.fieldIndex(SilverContract.ACTION);

    // The stored rows of the batch's keys, with their file and row position.
    Map<String, AddFile> byPath = new HashMap<>();
    for (AddFile f : candidates) {
      byPath.put(f.absolutePath(log).toString(), f);
    }
    Map<Integer, Integer> matches = new HashMap<>();
    Map<AddFile, List<Long>> deletedRows = new LinkedHashMap<>();
    List<Integer> updatedBy = new ArrayList<>();
    long deleted = 0;
    long updated = 0;
    if (!candidates.isEmpty()) {
      Dataset<Row> stored =
          DeltaTables.readFiles(snapshot, candidates)
              .where(bounds.on(null))
              .withColumn(FILE, col("_metadata.file_path"))
              .withColumn(ROW_INDEX, col("_metadata.row_index"));
      Column applies = applies(clauses, planSchema);
      List<Row> located =
          source
              .as("s")
              .join(stored.as("t"), expr(keyCondition))
              .select(
                  col("s." + PLAN_ROW),
                  col("t." + FILE),
                  col("t." + ROW_INDEX),
                  applies.as(APPLIES))
              .collectAsList();
      for (Row r : located) {
        int row = r.getInt(0);
        matches.merge(row, 1, Integer::sum);
        if (!r.getBoolean(3)) {
          continue;
        }
        Path file = DeletionVectorStore$.MODULE$.escapedStringToPath(r.getString(1));
        AddFile add = byPath.get(file.toString());
        if (add == null) {
          throw new IllegalStateException(
              "a stored row of the batch's keys is in "
                  + file
                  + ", which the checksum does not list");
        }
        deletedRows.computeIfAbsent(add, k -> new ArrayList<>()).add(r.getLong(2));
        MergeAction a = MergeAction.valueOf(numbered.get(row).getString(action));
        if (clauses.matched().get(a) == Matched.UPDATE) {
          updatedBy.add(row);
          updated++;
        } else {
          deleted++;
        }
      }
    }
    List<Row> written = new ArrayList<>();
    for (int row : updatedBy) {
      written.add(numbered.get(row));
    }
    long inserted = 0;
    for (int i = 0; i < numbered.size(); i++) {
      MergeAction a = MergeAction.valueOf(numbered.get(i).getString(action));
      if (!matches.containsKey(i) && clauses.inserted().contains(a)) {
        written.add(numbered.get(i));
        inserted++;
      }
    }

    OptimisticTransaction txn = log.startTransaction(Option.empty(), Option.apply(snapshot));
    // Every file of the table counts as read: any concurrent data change fails the commit.
    txn.readWholeTable();
    List<Action> actions = new ArrayList<>();
    long filesAdded = 0;
    long bytesAdded = 0;
    if (!written.isEmpty()) {
      StructType table = snapshot.metadata().schema();
      List<Column> columns = new ArrayList<>();
      for (StructField f : table.fields()) {
        columns.add(expr(values.get(f.name())).cast(f.dataType()).as(f.name()));
      }
      // One file, as Delta's MERGE writes a small batch's rows: a local relation is split over
      // the session's cores.
      Dataset<Row> rows =
          spark
              .createDataFrame(written, planSchema)
              .coalesce(1)
              .as("s")
              .select(columns.toArray(Column[]::new));
      for (FileAction f : CollectionConverters.asJava(txn.writeFiles(rows))) {
        actions.add(f);
        if (f instanceof AddFile add) {
          filesAdded++;
          bytesAdded += add.size();
        }
      }
    }
    DeletionVectors dvs = markDeleted(spark, log, deletedRows);
    actions.addAll(dvs.actions());
    if (actions.isEmpty()) {
      return new Result(0, 0, 0);
    }
    Map<String, Long> metrics = new LinkedHashMap<>();
    metrics.put("operationNumSourceRows", (long) numbered.size());
    metrics.put("numSourceRows", (long) numbered.size());
    metrics.put("numTargetRowsInserted", inserted);
    metrics.put("numTargetRowsUpdated", updated);
    metrics.put("numTargetRowsMatchedUpdated", updated);
    metrics.put("numTargetRowsNotMatchedBySourceUpdated", 0L);
    metrics.put("numTargetRowsDeleted", deleted);
    metrics.put("numTargetRowsMatchedDeleted", deleted);
    metrics.put("numTargetRowsNotMatchedBySourceDeleted", 0L);
    metrics.put("numTargetRowsCopied", 0L);
    metrics.put("numOutputRows", inserted + updated);
    metrics.put("numTargetFilesAdded", filesAdded);
    metrics.put("numTargetFilesRemoved", dvs.filesRemoved());
    metrics.put("numTargetBytesAdded", bytesAdded);
    metrics.put("numTargetBytesRemoved", dvs.bytesRemoved());
    metrics.put("numTargetChangeFilesAdded", 0L);
    metrics.put("numTargetDeletionVectorsAdded", dvs.added());
    metrics.put("numTargetDeletionVectorsRemoved", dvs.removed());
    metrics.put("numTargetDeletionVectorsUpdated", dvs.updated());
    Map<String, SQLMetric> registered = new LinkedHashMap<>();
    metrics.forEach(
        (name, value) -> {
          SQLMetric m = SQLMetrics.createMetric(spark.sparkContext(), name);
          m.set(value);
          registered.put(name, m);
        });
    txn.registerSQLMetrics(
        spark, scala.collection.immutable.Map.from(CollectionConverters.asScala(registered)));
    txn.commit(CollectionConverters.asScala(actions).toSeq(), operation(clauses, keyCondition));
    LOG.debug(
        "Merged {} planned row(s) into {}: {} inserted, {} updated, {} deleted",
        numbered.size(),
        log.dataPath(),
        inserted,
        updated,
        deleted);
    return new Result(inserted, updated, deleted);
  }

  /** Whether a matched planned row's clause applies: its action has one, and the guard holds. */
  private static Column applies(Clauses clauses, StructType planSchema) {
    Column any = org.apache.spark.sql.functions.lit(false);
    List<Object> guarded = new ArrayList<>();
    clauses.matched().keySet().forEach(a -> guarded.add(a.name()));
    if (!guarded.isEmpty()) {
      any = col("s." + SilverContract.ACTION).isin(guarded.toArray()).and(expr(clauses.guard()));
    }
    return org.apache.spark.sql.functions.coalesce(any, org.apache.spark.sql.functions.lit(false));
  }

  /**
   * Up to this many files are all read when the key's statistics cannot choose among them (a key
   * column that is not integral): a compacted table and its few small files. A table of more files
   * is left to Delta's skipping, which compares strings, dates and times as Delta writes them.
   */
  static final int MOST_FILES_UNCHOSEN = 5;

  /**
   * The files whose statistics allow a row of the batch's keys: by each file's minimum and maximum
   * of each key column of an integral type, against the listed keys or else the bounds' range, as
   * Delta's own skipping would; a file without those statistics is kept. Files of no row are left
   * out. Empty when a key column is not integral and there are more than {@link
   * #MOST_FILES_UNCHOSEN} files: the caller then lets Delta choose.
   */
  static Optional<List<AddFile>> holdingKeys(
      List<AddFile> files, StoredState.KeyBounds bounds, StructType schema) {
    boolean integral =
        bounds.keys().stream().allMatch(k -> schema.apply(k).dataType() instanceof IntegralType);
    if (!integral && files.size() > MOST_FILES_UNCHOSEN) {
      return Optional.empty();
    }
    List<AddFile> holding = new ArrayList<>();
    for (AddFile f : files) {
      Optional<JsonNode> stats = Json.tryRead(f.stats());
      if (stats.isPresent() && stats.get().path("numRecords").asLong(-1) == 0) {
        continue;
      }
      if (stats.isEmpty() || mayHold(stats.get(), bounds, schema)) {
        holding.add(f);
      }
    }
    return Optional.of(holding);
  }

  private static boolean mayHold(JsonNode stats, StoredState.KeyBounds bounds, StructType schema) {
    for (int i = 0; i < bounds.keys().size(); i++) {
      String key = bounds.keys().get(i);
      JsonNode min = stats.path("minValues").get(key);
      JsonNode max = stats.path("maxValues").get(key);
      if (!(schema.apply(key).dataType() instanceof IntegralType)
          || min == null
          || max == null
          || !min.canConvertToLong()
          || !max.canConvertToLong()) {
        continue; // this column cannot tell
      }
      long lo = min.asLong();
      long hi = max.asLong();
      if (bounds.exact()) {
        boolean any = false;
        for (Object v : bounds.values()) {
          long value = ((Number) v).longValue();
          any |= value >= lo && value <= hi;
        }
        if (!any) {
          return false;
        }
      } else if (((Number) bounds.max().get(i)).longValue() < lo
          || ((Number) bounds.min().get(i)).longValue() > hi) {
        return false;
      }
    }
    return true;
  }

  /** The actions that mark rows deleted, and what they did. */
  private record DeletionVectors(
      List<Action> actions,
      long filesRemoved,
      long bytesRemoved,
      long added,
      long removed,
      long updated) {}

  /**
   * Each file's deletion vector with {@code rows} added: a file whose every row is then deleted is
   * removed, as Delta's MERGE does; the others get one new deletion vector each, all written into
   * one file of the table's.
   */
  private static DeletionVectors markDeleted(
      SparkSession spark, DeltaLog log, Map<AddFile, List<Long>> rows) {
    List<Action> actions = new ArrayList<>();
    if (rows.isEmpty()) {
      return new DeletionVectors(actions, 0, 0, 0, 0, 0);
    }
    long filesRemoved = 0;
    long bytesRemoved = 0;
    long added = 0;
    long removed = 0;
    long updated = 0;
    DeletionVectorStore store =
        DeletionVectorStore$.MODULE$.createInstance(log.newDeltaHadoopConf());
    Path table = log.dataPath();
    UUID id = UUID.randomUUID();
    org.apache.spark.sql.delta.storage.dv.DeletionVectorStoreUtils.Writer writer = null;
    try {
      for (var entry : rows.entrySet()) {
        AddFile file = entry.getKey();
        DeletionVectorDescriptor existing = file.deletionVector();
        RoaringBitmapArray bitmap =
            existing == null
                ? new RoaringBitmapArray()
                : StoredBitmap$.MODULE$.create(existing, table).load(store);
        for (long r : entry.getValue()) {
          bitmap.add(r);
        }
        Option<Object> physical = file.numPhysicalRecords();
        if (physical.isDefined() && bitmap.cardinality() >= (Long) physical.get()) {
          actions.add(file.removeWithTimestamp(System.currentTimeMillis(), true));
          filesRemoved++;
          bytesRemoved += file.size();
          if (existing != null) {
            removed++;
          }
          continue;
        }
        if (writer == null) {
          writer =
              store.createWriter(
                  store.generateFileNameInTable(store.pathWithFileSystem(table), id, ""));
        }
        byte[] bytes = bitmap.serializeAsByteArray(RoaringBitmapArrayFormat$.MODULE$.Portable());
        org.apache.spark.sql.delta.storage.dv.DeletionVectorStoreUtils.DVRangeDescriptor range =
            writer.write(bytes);
        DeletionVectorDescriptor dv =
            DeletionVectorDescriptor.onDiskWithRelativePath(
                id,
                "",
                bytes.length,
                bitmap.cardinality(),
                Option.apply((Object) range.offset()),
                Option.empty());
        var pair = file.removeRows(dv, true, true);
        actions.add(pair._1());
        actions.add(pair._2());
        if (existing == null) {
          added++;
        } else {
          updated++;
        }
      }
    } finally {
      // A close that fails propagates: no commit names a deletion vector not written whole.
      if (writer != null) {
        writer.close();
      }
    }
    return new DeletionVectors(actions, filesRemoved, bytesRemoved, added, removed, updated);
  }

  /** The commit's operation: Delta's MERGE with this merge's condition and clauses. */
  private static DeltaOperations.Operation operation(Clauses clauses, String keyCondition) {
    List<DeltaOperations.MergePredicate> matched = new ArrayList<>();
    clauses
        .matched()
        .forEach(
            (a, m) ->
                matched.add(
                    new DeltaOperations.MergePredicate(
                        Option.apply(
                            "s."
                                + SilverContract.ACTION
                                + " = "
                                + a.sql()
                                + " AND "
                                + clauses.guard()),
                        m.name().toLowerCase(java.util.Locale.ROOT))));
    List<DeltaOperations.MergePredicate> inserted = new ArrayList<>();
    if (!clauses.inserted().isEmpty()) {
      inserted.add(
          new DeltaOperations.MergePredicate(
              Option.apply(
                  MergeAction.sqlIn(
                      "s." + SilverContract.ACTION,
                      clauses.inserted().toArray(MergeAction[]::new))),
              "insert"));
    }
    // The key equality; the listed keys only narrowed the files read.
    org.apache.spark.sql.catalyst.expressions.Expression condition =
        org.apache.spark.sql.catalyst.parser.CatalystSqlParser$.MODULE$.parseExpression(
            keyCondition);
    return DeltaOperations.Merge$.MODULE$.apply(
        Option.apply(condition),
        CollectionConverters.asScala(matched).toSeq(),
        CollectionConverters.asScala(inserted).toSeq(),
        CollectionConverters.asScala(List.<DeltaOperations.MergePredicate>of()).toSeq());
  }
}
