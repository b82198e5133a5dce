package io.replaysafe.silver;

import static io.replaysafe.silver.BatchPreparation.INVALID_MESSAGE;

import io.replaysafe.common.Columns;
import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.spark.SqlNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One silver micro-batch, in the contract's order: identity, validation ({@link PreparedBatch}),
 * exact retries and conflicts in the batch and with the target ({@link Conflicts}), the policy
 * decision ({@link Rejection}), quarantine, then the writes of the {@link TargetTable}. A rejected
 * batch writes nothing but its run-log row.
 */
public final class SilverBatchProcessor {
  private static final Logger LOG = LoggerFactory.getLogger(SilverBatchProcessor.class);
  static final int MAX_NOTES = 20;

  private final SparkSession spark;
  private final SilverContract contract;
  private final SilverTables tables;
  private final TargetTable target;
  private final Truncates truncates;
  private final InFlightBatch inFlight;
  // Only the first batch of a run can be the replay of a batch interrupted part-way.
  private boolean firstBatch = true;
  // Read at the first batch: no erase can be recorded while the run holds the lease.
  private Erasures erasures;

  public SilverBatchProcessor(SparkSession spark, SilverContract contract, SilverTables tables) {
    this.spark = spark;
    this.contract = contract;
    this.tables = tables;
    this.truncates = new Truncates(spark, contract);
    this.target = TargetTable.of(spark, contract, tables, truncates);
    this.inFlight = InFlightBatch.of(spark, contract.silver().checkpoint());
  }

  /**
   * Processes one batch of bronze rows; returns null for an empty batch. When the previous attempt
   * at this batch died part-way, the tables it wrote are first restored to their state before it
   * (see {@link BatchCommits}), so the replay writes and reports what a run without a crash would.
   */
  public BatchReport process(Dataset<Row> bronzeBatch, long batchId, String runId) {
    BatchCommits commits = new BatchCommits(spark, runId, batchId);
    // Only a replayed batch can already have its run-log row: a fresh one is logged by a plain
    // append, without the idempotent-write check that costs a reconstruction of the run log's
    // state (see RunLog).
    boolean mayBeLogged = firstBatch;
    if (firstBatch) {
      step(batchId, "interrupted-attempt check");
      rollBackInterrupted(commits);
    }
    firstBatch = false;
    return commits.tagged(
        () -> processBatch(bronzeBatch, batchId, runId, commits, mayBeLogged),
        bronzeBatch.sparkSession());
  }

  /**
   * The same for an operation (release, reconcile, repair) that names its own commits: it rolls
   * back first ({@link #rollBackInterrupted}), then reads the state it plans against.
   */
  public BatchReport process(Dataset<Row> rows, long batchId, String runId, BatchCommits commits) {
    firstBatch = false;
    return commits.tagged(
        () -> processBatch(rows, batchId, runId, commits, true), rows.sparkSession());
  }

  /**
   * Tells the processor that no attempt at its first batch can have started before: the checkpoint
   * holds no planned, uncommitted batch ({@link SilverCheckpoint.Reading#batchPending}). The first
   * batch then skips the look for an interrupted attempt, which reads the history of every table a
   * batch writes (ten small Spark jobs, about 1.5 s on a run of one small batch).
   */
  void noInterruptedAttempt() {
    firstBatch = false;
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
    paths.add(target.statePath());
    if (truncates.enabled()) {
      paths.add(truncates.path());
    }
    return paths;
  }

  private BatchReport processBatch(
      Dataset<Row> bronzeBatch,
      long batchId,
      String runId,
      BatchCommits commits,
      boolean mayBeLogged) {
    BatchReport.Run run = BatchReport.Run.starting(runId, batchId, contract);
    try (BatchCache cache = new BatchCache()) {
      step(batchId, "validate");
      if (erasures == null) {
        erasures = Erasures.of(spark, contract);
      }
      PreparedBatch batch =
          PreparedBatch.of(bronzeBatch, batchId, contract, truncates, erasures, cache);
      if (batch == null) {
        return null;
      }
      step(batchId, "conflicts");
      Conflicts conflicts = Conflicts.find(batch, target, contract, batchId, cache);
      Optional<Rejection> rejection = Rejection.of(batch, conflicts, contract, batchId);
      if (rejection.isPresent()) {
        BatchReport rejected = BatchReport.rejected(run, batch, conflicts, rejection.get());
        // Untagged: a rejected batch wrote nothing, so there is nothing to roll back for it.
        commits.untagged(
            () -> {
              RunLog.append(spark, tables, rejected, true);
              return null;
            });
        throw rejection.get().exception();
      }

      List<Note> notes = new ArrayList<>();
      if (batch.erasedIgnored() > 0) {
        notes.add(Note.erased(batch.erasedIgnored()));
      }
      // Written before the batch's first write: whichever command comes next after a crash undoes
      // the batch across all of its tables, not only the replay of this same batch.
      inFlight.begin(commits.tag(), writtenTables(), tables.runsPath());
      step(batchId, "quarantine");
      long quarantined = quarantine(batch, conflicts, batchId, runId, notes);
      Dataset<Row> clean =
          conflicts.any()
              ? conflicts
                  .collapsed()
                  .join(conflicts.conflicted(), SqlNames.seq(contract.keys()), "left_anti")
              : conflicts.collapsed();
      step(batchId, "merge");
      TargetTable.Applied applied = target.apply(batch, conflicts, clean);
      notes.addAll(applied.notes());
      BatchReport report =
          BatchReport.applied(run, batch, conflicts, applied, quarantined, firstNotes(notes));
      step(batchId, "run log");
      RunLog.append(spark, tables, report, mayBeLogged);
      CrashPoints.maybeCrash(CrashPoints.SILVER_AFTER_RUN_LOG);
      inFlight.end();
      LOG.info("silver {}: {}", contract.pipeline().name(), report.summary());
      return report;
    }
  }

  /**
   * Names the batch's step in the description of the Spark jobs that follow, so the Spark UI (and a
   * profile) tells which step of the contract each job serves.
   */
  private void step(long batchId, String step) {
    spark
        .sparkContext()
        .setJobDescription(
            "silver " + contract.pipeline().name() + " batch " + batchId + ": " + step);
  }

  /** Step 7 for an applied batch: its invalid rows and conflicted keys to the quarantine. */
  private long quarantine(
      PreparedBatch batch, Conflicts conflicts, long batchId, String runId, List<Note> notes) {
    long quarantined = 0;
    if (batch.invalidCount() > 0) {
      quarantined +=
          Quarantine.write(Quarantine.ofInvalid(batch.invalid(), contract, batchId, runId), tables);
      for (Row r :
          batch
              .invalid()
              .select(INVALID_MESSAGE, Columns.SOURCE_FILE)
              .orderBy(Columns.SOURCE_FILE, INVALID_MESSAGE)
              .limit(MAX_NOTES)
              .collectAsList()) {
        notes.add(Note.invalid(r.getString(1), r.getString(0)));
      }
    }
    if (conflicts.any()) {
      quarantined +=
          Quarantine.write(
              Quarantine.ofConflicts(
                  batch.valid(), conflicts.conflicted(), contract, batchId, runId),
              tables);
      for (Row r :
          conflicts
              .conflicted()
              .select(Quarantine.CONFLICT_DESCRIPTION)
              .limit(MAX_NOTES)
              .collectAsList()) {
        notes.add(Note.conflict(r.getString(0)));
      }
    }
    if (batch.invalidCount() > 0 || conflicts.any()) {
      CrashPoints.maybeCrash(CrashPoints.SILVER_AFTER_QUARANTINE);
    }
    return quarantined;
  }

  /** At most {@link #MAX_NOTES} notes; the report's counts stay exact. */
  private static List<Note> firstNotes(List<Note> notes) {
    if (notes.size() <= MAX_NOTES) {
      return List.copyOf(notes);
    }
    List<Note> first = new ArrayList<>(notes.subList(0, MAX_NOTES));
    first.add(Note.more());
    return List.copyOf(first);
  }
}
