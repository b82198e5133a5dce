package io.replaysafe.silver;

import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;

import io.replaysafe.common.ReservedNames;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Steps 3 to 6 of a batch: exact retries collapsed, then the keys whose payloads conflict in the
 * batch or with the stored state.
 *
 * @param collapsed the valid rows with exact retries collapsed
 * @param storedState what the target holds for the batch's keys (see {@link TargetTable})
 * @param conflicted one row per conflicted key with its description; null when there is none
 */
record Conflicts(
    Dataset<Row> collapsed,
    long collapsedCount,
    Dataset<Row> storedState,
    Dataset<Row> inBatch,
    long inBatchCount,
    Dataset<Row> withTarget,
    long withTargetCount,
    Dataset<Row> conflicted) {

  boolean any() {
    return conflicted != null;
  }

  static Conflicts find(
      PreparedBatch batch,
      TargetTable target,
      SilverContract contract,
      long batchId,
      BatchCache cache) {
    // The batch's valid rows bound every dataset below: collapsed rows, stored rows (at most one
    // per key) and conflicted keys.
    long atMost = batch.validCount();
    Dataset<Row> collapsed =
        cache.fix(BatchPreparation.collapseRetries(batch.valid(), contract), atMost);
    Dataset<Row> inBatch = BatchPreparation.conflictsInBatch(collapsed, contract);
    Dataset<Row> state = cache.fix(target.storedState(collapsed, batch.bounds()), atMost);
    Dataset<Row> withTarget = target.conflictsWithStored(collapsed, state);
    // One job for the three counts: rows after collapsing, conflicts in the batch and with the
    // target (most batches have none, and then nothing else reads those two datasets).
    Row counts =
        part(collapsed, 0)
            .unionByName(part(inBatch, 1))
            .unionByName(part(withTarget, 2))
            .agg(
                sum(ReservedNames.ROWS),
                sum(ReservedNames.IN_BATCH),
                sum(ReservedNames.WITH_TARGET))
            .first();
    long collapsedCount = counts.isNullAt(0) ? 0 : counts.getLong(0);
    long inBatchCount = counts.isNullAt(1) ? 0 : counts.getLong(1);
    long withTargetCount = counts.isNullAt(2) ? 0 : counts.getLong(2);
    if (inBatchCount > 0) {
      inBatch = cache.fix(inBatch, inBatchCount);
    }
    if (withTargetCount > 0) {
      withTarget = cache.fix(withTarget, withTargetCount);
    }
    Dataset<Row> conflicted =
        inBatchCount + withTargetCount == 0
            ? null
            : cache.fix(
                Quarantine.conflictedKeys(collapsed, inBatch, withTarget, contract, batchId),
                inBatchCount + withTargetCount);
    return new Conflicts(
        collapsed,
        collapsedCount,
        state,
        inBatch,
        inBatchCount,
        withTarget,
        withTargetCount,
        conflicted);
  }

  /** One counted row per row of {@code rows}, in column {@code part} of the three counts. */
  private static Dataset<Row> part(Dataset<Row> rows, int part) {
    return rows.select(
        lit(part).as(ReservedNames.PART),
        lit(part == 0 ? 1L : 0L).as(ReservedNames.ROWS),
        lit(part == 1 ? 1L : 0L).as(ReservedNames.IN_BATCH),
        lit(part == 2 ? 1L : 0L).as(ReservedNames.WITH_TARGET));
  }
}
