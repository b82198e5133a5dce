package io.replaysafe.silver;

import static io.replaysafe.silver.BatchPreparation.INVALID_MESSAGE;
import static io.replaysafe.silver.BatchPreparation.INVALID_REASON;
import static io.replaysafe.silver.BatchPreparation.KEY_DISPLAY;
import static io.replaysafe.silver.BatchPreparation.SEQ_DISPLAY;
import static io.replaysafe.silver.SilverContract.ACTION;
import static io.replaysafe.silver.SilverContract.COMMIT_VERSION;
import static io.replaysafe.silver.SilverContract.PAYLOAD_HASH;
import static io.replaysafe.silver.SilverContract.RAW_PAYLOAD;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import io.replaysafe.common.Columns;
import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.config.Policy;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.unsafe.types.UTF8String;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One silver micro-batch, in the contract's order: identity, validation, exact retries, conflicts
 * (in the batch and with the target), latest per key, the policy decision, then the writes. A
 * rejected batch writes nothing but its run-log row.
 */
public final class SilverBatchProcessor {
  private static final Logger LOG = LoggerFactory.getLogger(SilverBatchProcessor.class);
  static final int MAX_NOTES = 20;
  static final int MAX_REPORTED_ROWS = 50;
  static final int MAX_REPORTED_KEYS = 20;
  static final String CHANGE_TYPE = "_change_type";
  private static final String INSERT = "insert";

  /**
   * A batch of up to this many rows (after exact retries collapse) is planned on the driver: its
   * plan is collected once instead of checkpointed, counted and queried for notes in three jobs.
   */
  static final long DRIVER_PLAN_ROWS = 50_000;

  private static final String STORED_SEQ_JSON = "__t_seq_json";

  private final SparkSession spark;
  private final SilverContract contract;
  private final SilverTables tables;
  private final SilverWriter writer;
  private final HistoryWriter history;
  private final Truncates truncates;
  // Only the first batch of a run can be the replay of a batch interrupted part-way.
  private boolean firstBatch = true;

  public SilverBatchProcessor(SparkSession spark, SilverContract contract, SilverTables tables) {
    this.spark = spark;
    this.contract = contract;
    this.tables = tables;
    this.writer = new SilverWriter(tables, contract);
    this.history = new HistoryWriter(tables, contract);
    this.truncates = new Truncates(spark, contract);
  }

  /**
   * Processes one batch of bronze rows; returns null for an empty batch. When the previous attempt
   * at this batch died part-way, the tables it wrote are first restored to their state before it
   * (see {@link BatchCommits}), so the replay writes and reports what a run without a crash would.
   */
  public BatchReport process(Dataset<Row> bronzeBatch, long batchId, String runId) {
    BatchCommits commits = new BatchCommits(spark, runId, batchId);
    if (firstBatch) {
      rollBackInterrupted(commits);
    }
    return process(bronzeBatch, batchId, runId, commits);
  }

  /**
   * The same for an operation (release, reconcile, repair) that names its own commits: it rolls
   * back first ({@link #rollBackInterrupted}), then reads the state it plans against.
   */
  public BatchReport process(Dataset<Row> rows, long batchId, String runId, BatchCommits commits) {
    firstBatch = false;
    return commits.tagged(() -> processBatch(rows, batchId, runId, commits), rows.sparkSession());
  }

  /** Restores the tables an interrupted attempt at {@code commits} wrote part-way. */
  public List<String> rollBackInterrupted(BatchCommits commits) {
    firstBatch = false;
    return commits.rollBackInterrupted(tables.runsPath(), writtenTables());
  }

  /** Every table a batch writes before its run-log row. */
  private List<String> writtenTables() {
    List<String> paths = new ArrayList<>();
    paths.add(contract.silver().quarantinePath());
    paths.add(contract.silver().path());
    paths.add(contract.isHistory() ? contract.eventsPath() : contract.tombstonePath());
    if (truncates.enabled()) {
      paths.add(truncates.path());
    }
    return paths;
  }

  private BatchReport processBatch(
      Dataset<Row> bronzeBatch, long batchId, String runId, BatchCommits commits) {
    long started = System.nanoTime();
    Timestamp startedAt = new Timestamp(System.currentTimeMillis());
    List<Dataset<?>> cached = new ArrayList<>();
    try {
      Dataset<Row> identified =
          BatchPreparation.identity(bronzeInserts(withCommitVersion(bronzeBatch)), contract);
      Column isInsert = col(CHANGE_TYPE).equalTo(INSERT);
      Dataset<Row> truncateRows = null;
      if (truncates.enabled()) {
        // Truncate events are table-wide: they carry no key and are not validated as key events.
        // One without a sequence is invalid like any row without one (validated below).
        Column validTruncate =
            col(Truncates.IS_TRUNCATE).and(truncates.hasSequence()).and(isInsert);
        identified =
            cache(identified.withColumn(Truncates.IS_TRUNCATE, truncates.isTruncate()), cached);
        truncateRows = identified.where(validTruncate);
        identified = identified.where(org.apache.spark.sql.functions.not(validTruncate));
      }
      Dataset<Row> validated = BatchPreparation.validate(identified, contract);
      if (truncates.enabled()) {
        validated = truncates.invalidWithoutSequence(validated);
      }
      Dataset<Row> prepared = cache(validated, cached);
      // One pass for the batch's size, its invalid rows, its bronze versions, any row that is not
      // an insert into bronze, and its key bounds.
      Column notInsert = org.apache.spark.sql.functions.not(isInsert);
      List<Column> facts =
          new ArrayList<>(
              List.of(
                  count(lit(1)),
                  count(col(INVALID_REASON)),
                  min(COMMIT_VERSION),
                  max(COMMIT_VERSION),
                  count(when(notInsert, lit(1))),
                  min(when(notInsert, col(COMMIT_VERSION))),
                  max(when(notInsert, col(CHANGE_TYPE)))));
      for (String key : contract.keys()) {
        Column validKey = when(col(INVALID_REASON).isNull(), col(SilverContract.q(key)));
        facts.add(min(validKey));
        facts.add(max(validKey));
      }
      Row totals =
          prepared.agg(facts.get(0), facts.subList(1, facts.size()).toArray(Column[]::new)).first();
      if (totals.getLong(4) > 0) {
        throw bronzeChanged(batchId, totals.getLong(4), totals.get(5), totals.getString(6));
      }
      long truncateCount = truncateRows == null ? 0 : truncateRows.count();
      long inputRows = totals.getLong(0) + truncateCount;
      if (inputRows == 0) {
        return null;
      }
      long invalidCount = totals.getLong(1);
      Long versionMin = totals.isNullAt(2) ? null : totals.getLong(2);
      Long versionMax = totals.isNullAt(3) ? null : totals.getLong(3);
      MergePlan.KeyBounds bounds = keyBounds(prepared, totals, 7);
      Dataset<Row> invalid = prepared.where(col(INVALID_REASON).isNotNull());
      Dataset<Row> valid = prepared.where(col(INVALID_REASON).isNull());
      long validCount = inputRows - invalidCount;

      Dataset<Row> collapsed = cache(BatchPreparation.collapseRetries(valid, contract), cached);
      Dataset<Row> inBatch = BatchPreparation.conflictsInBatch(collapsed, contract);
      // What silver already holds for these keys: the live row or tombstone (current state), or
      // every stored event (history).
      Dataset<Row> targetState =
          cache(
              contract.isHistory()
                  ? history.storedEvents(collapsed)
                  : MergePlan.targetState(collapsed, tables, contract, bounds),
              cached);
      Dataset<Row> withTarget =
          contract.isHistory()
              ? history.conflictsWithStored(collapsed, targetState)
              : MergePlan.conflictsWithTarget(collapsed, targetState, contract);
      // One job for the three counts: rows after collapsing, conflicts in the batch and with the
      // target (most batches have none, and then nothing else reads those two datasets).
      Row counts =
          collapsed
              .select(
                  lit(0).as("__part"),
                  lit(1L).as("__rows"),
                  lit(0L).as("__in_batch"),
                  lit(0L).as("__with_target"))
              .unionByName(
                  inBatch.select(
                      lit(1).as("__part"),
                      lit(0L).as("__rows"),
                      lit(1L).as("__in_batch"),
                      lit(0L).as("__with_target")))
              .unionByName(
                  withTarget.select(
                      lit(2).as("__part"),
                      lit(0L).as("__rows"),
                      lit(0L).as("__in_batch"),
                      lit(1L).as("__with_target")))
              .agg(sum("__rows"), sum("__in_batch"), sum("__with_target"))
              .first();
      long collapsedCount = counts.isNullAt(0) ? 0 : counts.getLong(0);
      long conflictsInBatch = counts.isNullAt(1) ? 0 : counts.getLong(1);
      long conflictsWithTarget = counts.isNullAt(2) ? 0 : counts.getLong(2);
      if (conflictsInBatch > 0) {
        inBatch = cache(inBatch, cached);
      }
      if (conflictsWithTarget > 0) {
        withTarget = cache(withTarget, cached);
      }

      List<String> notes = new ArrayList<>();
      String rejection = null;
      if (invalidCount > 0 && contract.silver().onInvalid() == Policy.FAIL) {
        rejection = invalidReport(invalid, invalidCount, batchId);
      }
      Dataset<Row> conflicted = null;
      if (conflictsInBatch + conflictsWithTarget > 0) {
        conflicted =
            cache(
                Quarantine.conflictedKeys(collapsed, inBatch, withTarget, contract, batchId),
                cached);
        if (contract.silver().onConflict() == Policy.FAIL) {
          String report = conflictReport(valid, conflicted, batchId);
          rejection = rejection == null ? report : rejection + "\n" + report;
        }
      }
      if (rejection != null) {
        BatchReport rejected =
            new BatchReport(
                runId,
                batchId,
                BatchReport.REJECTED,
                versionMin,
                versionMax,
                inputRows,
                invalidCount,
                validCount - collapsedCount,
                0,
                conflictsInBatch,
                conflictsWithTarget,
                0,
                0,
                0,
                0,
                0,
                0,
                seconds(started),
                List.of());
        String message = rejection;
        // Untagged: a rejected batch wrote nothing, so there is nothing to roll back for it.
        commits.untagged(
            () -> {
              RunLog.append(spark, tables, rejected, contract.ruleVersion(), startedAt, message);
              return null;
            });
        throw new BatchRejectedException(rejection);
      }

      long quarantined = 0;
      Dataset<Row> clean = collapsed;
      if (invalidCount > 0) {
        quarantined +=
            Quarantine.write(Quarantine.ofInvalid(invalid, contract, batchId, runId), tables);
        notes.addAll(invalidNotes(invalid));
      }
      if (conflicted != null) {
        quarantined +=
            Quarantine.write(
                Quarantine.ofConflicts(valid, conflicted, contract, batchId, runId), tables);
        clean = collapsed.join(conflicted, MergePlan.asSeq(contract.keys()), "left_anti");
        for (Row r :
            conflicted.select(Quarantine.CONFLICT_DESCRIPTION).limit(MAX_NOTES).collectAsList()) {
          notes.add(r.getString(0) + ": quarantined");
        }
      }
      if (invalidCount > 0 || conflicted != null) {
        CrashPoints.maybeCrash(CrashPoints.SILVER_AFTER_QUARANTINE);
      }

      if (contract.isHistory()) {
        HistoryWriter.Applied applied = history.apply(clean, targetState);
        if (applied.retriesOfStored() > 0) {
          notes.add(
              applied.retriesOfStored()
                  + " event(s) already in the history: exact retries, no change");
        }
        return finish(
            new BatchReport(
                runId,
                batchId,
                BatchReport.APPLIED,
                versionMin,
                versionMax,
                inputRows,
                invalidCount,
                validCount - collapsedCount + applied.retriesOfStored(),
                applied.newEvents(),
                conflictsInBatch,
                conflictsWithTarget,
                0,
                0,
                applied.inserted(),
                applied.updated(),
                applied.deleted(),
                quarantined,
                seconds(started),
                firstNotes(notes)),
            startedAt);
      }
      long olderThanTruncate = 0;
      if (truncates.enabled()) {
        Row watermark = truncates.apply(truncateRows, tables);
        if (truncateCount > 0) {
          notes.add(
              truncateCount + " truncate event(s); rows older than " + watermark + " removed");
        }
        Dataset<Row> kept = truncates.notOlderThan(clean, watermark);
        olderThanTruncate = clean.count() - kept.count();
        clean = kept;
      }
      Dataset<Row> latest = BatchPreparation.latestPerKey(clean, contract);
      // Checkpointed, not cached: the MERGE into silver invalidates every cached plan that read
      // silver, and a recomputed plan would see the batch's own writes (a revived key would then
      // look like an exact retry to the tombstone MERGE).
      Dataset<Row> classified = MergePlan.classify(latest, targetState, contract);
      Dataset<Row> plan;
      Map<String, Long> actions = new HashMap<>();
      if (collapsedCount <= DRIVER_PLAN_ROWS) {
        // A small batch is decided on the driver: one job collects the plan, which then counts
        // its actions and explains its decisions without another job, and the MERGE reads it as
        // a local relation whose size Spark knows.
        Dataset<Row> explained =
            classified.withColumn(
                STORED_SEQ_JSON, org.apache.spark.sql.functions.to_json(col(MergePlan.T_SEQ)));
        List<Row> rows = explained.collectAsList();
        plan = spark.createDataFrame(rows, explained.schema());
        int action = explained.schema().fieldIndex(ACTION);
        for (Row r : rows) {
          actions.merge(r.getString(action), 1L, Long::sum);
        }
        notes.addAll(planNotes(rows, explained.schema()));
      } else {
        plan = classified.localCheckpoint(true);
        for (Row r : plan.groupBy(ACTION).count().collectAsList()) {
          actions.put(r.getString(0), r.getLong(1));
        }
        if (actions.getOrDefault(MergePlan.OLDER, 0L)
                + actions.getOrDefault(MergePlan.RETRY, 0L)
                + actions.getOrDefault(MergePlan.DELETE, 0L)
                + actions.getOrDefault(MergePlan.TOMBSTONE_ONLY, 0L)
            > 0) {
          notes.addAll(planNotes(plan));
        }
      }
      long distinctKeys = actions.values().stream().mapToLong(Long::longValue).sum();
      long cleanCount = conflicted == null && !truncates.enabled() ? collapsedCount : clean.count();
      long olderIgnored = actions.getOrDefault(MergePlan.OLDER, 0L) + olderThanTruncate;
      long retriesOfStored = actions.getOrDefault(MergePlan.RETRY, 0L);

      SilverWriter.Applied applied = writer.apply(plan, actions, bounds);
      return finish(
          new BatchReport(
              runId,
              batchId,
              BatchReport.APPLIED,
              versionMin,
              versionMax,
              inputRows,
              invalidCount,
              validCount - collapsedCount + retriesOfStored,
              distinctKeys,
              conflictsInBatch,
              conflictsWithTarget,
              olderIgnored,
              cleanCount - distinctKeys,
              applied.inserted(),
              applied.updated(),
              applied.deleted(),
              quarantined,
              seconds(started),
              firstNotes(notes)),
          startedAt);
    } finally {
      // Newest first: uncaching a dataset that later caches depend on makes Spark re-plan them.
      for (int i = cached.size() - 1; i >= 0; i--) {
        cached.get(i).unpersist();
      }
    }
  }

  /**
   * Bounds of the batch's valid keys from the totals row (min and max per key column from {@code
   * first}); null when a key type has no usable order or the batch has no valid key.
   */
  private MergePlan.KeyBounds keyBounds(Dataset<Row> prepared, Row totals, int first) {
    List<Object> mins = new ArrayList<>();
    List<Object> maxs = new ArrayList<>();
    for (int i = 0; i < contract.keys().size(); i++) {
      String key = contract.keys().get(i);
      int at = first + 2 * i;
      if (!MergePlan.KeyBounds.supported(prepared.schema().apply(key).dataType())
          || totals.isNullAt(at)
          || totals.isNullAt(at + 1)) {
        return null;
      }
      mins.add(totals.get(at));
      maxs.add(totals.get(at + 1));
    }
    return new MergePlan.KeyBounds(contract.keys(), mins, maxs);
  }

  /** Logs an applied batch in the run log and the job's log. */
  private BatchReport finish(BatchReport report, Timestamp startedAt) {
    RunLog.append(spark, tables, report, contract.ruleVersion(), startedAt, null);
    CrashPoints.maybeCrash(CrashPoints.SILVER_AFTER_RUN_LOG);
    LOG.info("silver {}: {}", contract.pipeline().name(), report.summary());
    return report;
  }

  /** At most {@link #MAX_NOTES} notes; the report's counts stay exact. */
  private static List<String> firstNotes(List<String> notes) {
    if (notes.size() <= MAX_NOTES) {
      return List.copyOf(notes);
    }
    List<String> first = new ArrayList<>(notes.subList(0, MAX_NOTES));
    first.add("... more decisions not listed; the counts are exact");
    return List.copyOf(first);
  }

  /**
   * Bronze read as a change feed carries its commit version and change type; a plain read (and an
   * operation's rows) gets a null version and counts as inserts.
   */
  private static Dataset<Row> withCommitVersion(Dataset<Row> batch) {
    List<String> columns = List.of(batch.columns());
    Dataset<Row> result = batch;
    if (columns.contains("_commit_timestamp")) {
      result = result.drop("_commit_timestamp");
    }
    if (!columns.contains(CHANGE_TYPE)) {
      result = result.withColumn(CHANGE_TYPE, lit(INSERT));
    }
    if (!columns.contains(COMMIT_VERSION)) {
      result =
          result.withColumn(COMMIT_VERSION, org.apache.spark.sql.functions.lit(null).cast("long"));
    }
    return result;
  }

  /** With {@code ignoreBronzeChanges}, only the inserts of bronze's change feed. */
  private Dataset<Row> bronzeInserts(Dataset<Row> batch) {
    return contract.silver().ignoreBronzeChanges()
        ? batch.where(col(CHANGE_TYPE).equalTo(INSERT))
        : batch;
  }

  private BatchRejectedException bronzeChanged(
      long batchId, long rows, Object version, String changeType) {
    String bronze = contract.pipeline().bronze().path();
    return new BatchRejectedException(
        "Cannot apply batch "
            + batchId
            + " to silver "
            + contract.silver().path()
            + ": bronze "
            + bronze
            + " version "
            + version
            + " holds "
            + rows
            + " change row(s) that are not inserts (change type "
            + changeType
            + "), and bronze is append-only by contract: an UPDATE, DELETE or MERGE on bronze"
            + " would reach silver as conflicting or resurrected events. Nothing was written and"
            + " the silver checkpoint did not advance. Undo the change (RESTORE TABLE delta.`"
            + bronze
            + "` TO VERSION AS OF "
            + (version instanceof Long v ? v - 1 : "the version before it")
            + ") and run again, or set silver.ignoreBronzeChanges: true to skip bronze's updates"
            + " and deletes (silver keeps what it applied; deliver a delete event to remove a"
            + " key).");
  }

  private static Dataset<Row> cache(Dataset<Row> df, List<Dataset<?>> cached) {
    Dataset<Row> persisted = df.persist(StorageLevel.MEMORY_AND_DISK());
    cached.add(persisted);
    return persisted;
  }

  private String invalidReport(Dataset<Row> invalid, long count, long batchId) {
    StringBuilder sb =
        new StringBuilder(
            "Cannot apply batch "
                + batchId
                + " to silver "
                + contract.silver().path()
                + ": "
                + count
                + " invalid row(s) and onInvalid is fail. Nothing was written and the silver"
                + " checkpoint did not advance; fix the source rows (or set onInvalid: quarantine)"
                + " and run again.");
    for (Row r :
        invalid
            .select(INVALID_REASON, INVALID_MESSAGE, Columns.SOURCE_FILE, RAW_PAYLOAD)
            .orderBy(Columns.SOURCE_FILE, RAW_PAYLOAD)
            .limit(MAX_REPORTED_ROWS)
            .collectAsList()) {
      sb.append("\n  ")
          .append(r.getString(0))
          .append(": ")
          .append(r.getString(1))
          .append(" in ")
          .append(r.getString(2))
          .append(": ")
          .append(r.getString(3));
    }
    if (count > MAX_REPORTED_ROWS) {
      sb.append("\n  ... and ").append(count - MAX_REPORTED_ROWS).append(" more invalid row(s)");
    }
    return sb.toString();
  }

  private String conflictReport(Dataset<Row> valid, Dataset<Row> conflicted, long batchId) {
    StringBuilder sb =
        new StringBuilder(
            "Cannot merge batch "
                + batchId
                + " into silver "
                + contract.silver().path()
                + ": onConflict is fail and the same key and sequence carry different payloads."
                + " Nothing was written and the silver checkpoint did not advance; correct the"
                + " producer's data (or set onConflict: quarantine) and run again.");
    long keys = conflicted.count();
    sb.append("\n  ").append(keys).append(" conflicted key(s)");
    for (Row r :
        conflicted
            .select(Quarantine.CONFLICT_DESCRIPTION)
            .orderBy(Quarantine.CONFLICT_DESCRIPTION)
            .limit(MAX_REPORTED_KEYS)
            .collectAsList()) {
      sb.append("\n  ").append(r.getString(0));
    }
    if (keys > MAX_REPORTED_KEYS) {
      sb.append("\n  ... and ").append(keys - MAX_REPORTED_KEYS).append(" more key(s)");
    }
    long rows = valid.join(conflicted, MergePlan.asSeq(contract.keys()), "left_semi").count();
    sb.append("\n  rows (")
        .append(Math.min(rows, MAX_REPORTED_ROWS))
        .append(" of ")
        .append(rows)
        .append("):");
    for (Row r :
        valid
            .join(conflicted, MergePlan.asSeq(contract.keys()), "left_semi")
            .select(KEY_DISPLAY, SEQ_DISPLAY, PAYLOAD_HASH, Columns.SOURCE_FILE, RAW_PAYLOAD)
            .orderBy(KEY_DISPLAY, SEQ_DISPLAY, PAYLOAD_HASH, Columns.SOURCE_FILE)
            .limit(MAX_REPORTED_ROWS)
            .collectAsList()) {
      sb.append("\n    key ")
          .append(r.getString(0))
          .append(" sequence ")
          .append(r.getString(1))
          .append(" hash ")
          .append(r.getString(2), 0, 12)
          .append(" in ")
          .append(r.getString(3))
          .append(": ")
          .append(r.getString(4));
    }
    return sb.toString();
  }

  private static List<String> invalidNotes(Dataset<Row> invalid) {
    List<String> notes = new ArrayList<>();
    for (Row r :
        invalid
            .select(INVALID_MESSAGE, Columns.SOURCE_FILE)
            .orderBy(Columns.SOURCE_FILE, INVALID_MESSAGE)
            .limit(MAX_NOTES)
            .collectAsList()) {
      notes.add("invalid row in " + r.getString(1) + " (" + r.getString(0) + "): quarantined");
    }
    return notes;
  }

  /** The plan's notes from its rows on the driver, as {@link #planNotes(Dataset)} selects them. */
  static List<String> planNotes(List<Row> plan, StructType schema) {
    int action = schema.fieldIndex(ACTION);
    int key = schema.fieldIndex(KEY_DISPLAY);
    int seq = schema.fieldIndex(SEQ_DISPLAY);
    int stored = schema.fieldIndex(STORED_SEQ_JSON);
    Set<String> noted =
        Set.of(MergePlan.OLDER, MergePlan.RETRY, MergePlan.DELETE, MergePlan.TOMBSTONE_ONLY);
    // Spark orders strings by their UTF-8 bytes, so the notes come out as the Spark query sorts.
    Comparator<Row> order =
        Comparator.comparing((Row r) -> UTF8String.fromString(r.getString(key)))
            .thenComparing(r -> UTF8String.fromString(r.getString(seq)));
    return plan.stream()
        .filter(r -> noted.contains(r.getString(action)))
        .sorted(order)
        .limit(MAX_NOTES)
        .map(
            r ->
                note(
                    r.getString(action),
                    r.getString(key),
                    r.getString(seq),
                    r.isNullAt(stored) ? null : r.getString(stored)))
        .toList();
  }

  private static String note(String action, String keyDisplay, String seqDisplay, String stored) {
    String key = "key " + keyDisplay + " sequence " + seqDisplay;
    return switch (action) {
      case MergePlan.OLDER ->
          key + ": older than the stored version " + (stored == null ? "" : stored) + ", ignored";
      case MergePlan.RETRY -> key + ": exact retry of the stored version, no change";
      case MergePlan.DELETE -> key + ": deleted (tombstone kept)";
      default -> key + ": delete of a key silver does not hold, tombstone kept";
    };
  }

  private static List<String> planNotes(Dataset<Row> plan) {
    List<String> notes = new ArrayList<>();
    for (Row r :
        plan.where(
                col(ACTION)
                    .isin(
                        MergePlan.OLDER,
                        MergePlan.RETRY,
                        MergePlan.DELETE,
                        MergePlan.TOMBSTONE_ONLY))
            .select(
                col(ACTION),
                col(KEY_DISPLAY),
                col(SEQ_DISPLAY),
                org.apache.spark.sql.functions.to_json(col(MergePlan.T_SEQ)))
            .orderBy(KEY_DISPLAY, SEQ_DISPLAY)
            .limit(MAX_NOTES)
            .collectAsList()) {
      String key = "key " + r.getString(1) + " sequence " + r.getString(2);
      String stored = r.isNullAt(3) ? "" : r.getString(3);
      notes.add(
          switch (r.getString(0)) {
            case MergePlan.OLDER -> key + ": older than the stored version " + stored + ", ignored";
            case MergePlan.RETRY -> key + ": exact retry of the stored version, no change";
            case MergePlan.DELETE -> key + ": deleted (tombstone kept)";
            default -> key + ": delete of a key silver does not hold, tombstone kept";
          });
    }
    return notes;
  }

  private static double seconds(long started) {
    return (System.nanoTime() - started) / 1e9;
  }
}
