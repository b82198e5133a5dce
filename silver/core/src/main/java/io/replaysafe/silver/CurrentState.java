package io.replaysafe.silver;

import static io.replaysafe.silver.MergeAction.OLDER;
import static io.replaysafe.silver.MergeAction.RETRY;

import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.spark.DeltaTables;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SCD type 1: silver holds the latest version of each key, the tombstones its deleted keys. A
 * batch's latest row per key is classified against them ({@link StoredState}, {@link
 * MergeClassifier}) and merged ({@link SilverWriter}); truncate events apply first.
 */
final class CurrentState implements TargetTable {
  private static final Logger LOG = LoggerFactory.getLogger(CurrentState.class);
  private final SparkSession spark;
  private final SilverTables tables;
  private final SilverContract contract;
  private final Truncates truncates;
  private final SilverWriter writer;

  CurrentState(
      SparkSession spark, SilverTables tables, SilverContract contract, Truncates truncates) {
    this.spark = spark;
    this.tables = tables;
    this.contract = contract;
    this.truncates = truncates;
    this.writer = new SilverWriter(tables, contract);
  }

  @Override
  public String statePath() {
    return contract.tombstonePath();
  }

  /** The live row or tombstone of each key, whichever is newer. */
  @Override
  public Dataset<Row> storedState(Dataset<Row> collapsed, StoredState.KeyBounds bounds) {
    return StoredState.targetState(collapsed, tables, contract, bounds);
  }

  @Override
  public Dataset<Row> conflictsWithStored(Dataset<Row> collapsed, Dataset<Row> storedState) {
    return MergeClassifier.conflictsWithTarget(collapsed, storedState, contract);
  }

  /**
   * Drops tombstones older than {@code tombstoneRetention}. After that, an insert older than the
   * delete that arrives later can bring the key back: retention must exceed the latest data.
   */
  @Override
  public long expireState() {
    Timestamp cutoff =
        new Timestamp(
            System.currentTimeMillis() - contract.silver().tombstoneRetention().toMillis());
    if (!tables.mayHoldTombstonesBefore(cutoff.toInstant())) {
      // No tombstone old enough (or none at all), as the tombstone table's latest checksum tells:
      // the DELETE would rebuild the table's state and scan it for nothing.
      return 0;
    }
    String condition = ReservedNames.DELETED_AT + " < timestamp'" + cutoff.toInstant() + "'";
    // One DELETE, no count before it: Delta skips every file whose statistics hold no expired
    // tombstone, and a DELETE that removes nothing commits nothing.
    long expired =
        spark
            .sql(
                "DELETE FROM "
                    + DeltaTables.tableName(contract.tombstonePath())
                    + " WHERE "
                    + condition)
            .first()
            .getLong(0);
    if (expired > 0) {
      LOG.info(
          "Purged {} tombstone(s) older than {}", expired, contract.silver().tombstoneRetention());
    }
    return Math.max(expired, 0);
  }

  @Override
  public Applied apply(PreparedBatch batch, Conflicts conflicts, Dataset<Row> clean) {
    List<Note> notes = new ArrayList<>();
    long olderThanTruncate = 0;
    Dataset<Row> state = conflicts.storedState();
    if (truncates.enabled()) {
      Row watermark = truncates.apply(batch.truncates(), tables);
      if (batch.truncateCount() > 0) {
        notes.add(Note.truncates(batch.truncateCount(), watermark));
      }
      Dataset<Row> kept = truncates.notOlderThan(clean, watermark);
      olderThanTruncate = clean.count() - kept.count();
      clean = kept;
      state = truncates.storedNotOlderThan(state, watermark);
    }
    Dataset<Row> latest =
        contract.silver().ignoreNullUpdates()
            ? NullUpdates.latestPerKey(clean, state, contract)
            : BatchPreparation.latestPerKey(clean, contract);
    DecidedBatch plan =
        DecidedBatch.of(
            spark,
            MergeClassifier.classify(latest, state, contract),
            conflicts.collapsedCount(),
            SilverBatchProcessor.MAX_NOTES);
    notes.addAll(plan.notes());
    long keys = plan.keys();
    long cleanCount =
        !conflicts.any() && !truncates.enabled() ? conflicts.collapsedCount() : clean.count();
    SilverWriter.Applied applied = writer.apply(plan.rows(), plan.actions(), batch.bounds());
    return new Applied(
        plan.count(RETRY),
        keys,
        plan.count(OLDER) + olderThanTruncate,
        cleanCount - keys,
        applied.inserted(),
        applied.updated(),
        applied.deleted(),
        notes);
  }
}
