package io.replaysafe.silver;

import static io.replaysafe.silver.SilverContract.ACTION;
import static io.replaysafe.silver.SilverContract.APPLIED_AT;
import static io.replaysafe.silver.SilverContract.BRONZE_VERSION;
import static io.replaysafe.silver.SilverContract.COMMIT_VERSION;
import static io.replaysafe.silver.SilverContract.PAYLOAD_HASH;
import static io.replaysafe.silver.SilverContract.SOURCE_FILE;
import static io.replaysafe.silver.SilverContract.q;
import static org.apache.spark.sql.functions.col;

import io.replaysafe.common.Columns;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Step 8: the guarded MERGE of the planned actions into silver, then the tombstones. Both MERGEs
 * re-check the sequence guard (a newer row committed meanwhile still wins), and both are
 * idempotent: replaying a batch after a crash between them converges to the same state.
 */
public final class SilverWriter {
  private final SilverTables tables;
  private final SilverContract contract;

  public SilverWriter(SilverTables tables, SilverContract contract) {
    this.tables = tables;
    this.contract = contract;
  }

  /** Delta's metrics of one MERGE. */
  public record Applied(long inserted, long updated, long deleted) {}

  /**
   * Applies the plan; {@code actions} (count per action) lets a batch with nothing to change skip a
   * MERGE entirely, which keeps replays cheap.
   */
  public Applied apply(Dataset<Row> plan, Map<String, Long> actions) {
    long toSilverCount =
        actions.getOrDefault(MergePlan.INSERT, 0L)
            + actions.getOrDefault(MergePlan.REVIVE, 0L)
            + actions.getOrDefault(MergePlan.UPDATE, 0L)
            + actions.getOrDefault(MergePlan.DELETE, 0L);
    long toTombstones =
        actions.getOrDefault(MergePlan.REVIVE, 0L)
            + actions.getOrDefault(MergePlan.DELETE, 0L)
            + actions.getOrDefault(MergePlan.TOMBSTONE_ONLY, 0L);
    Applied applied = toSilverCount == 0 ? new Applied(0, 0, 0) : mergeIntoSilver(plan);
    // Crash matrix and rehearsal only (no-op unless armed): killed between the silver MERGE and
    // the tombstone MERGE / run log / checkpoint commit.
    if (toSilverCount > 0) {
      io.replaysafe.common.CrashPoints.maybeCrash(
          io.replaysafe.common.CrashPoints.SILVER_AFTER_MERGE);
    }
    if (toTombstones > 0) {
      applyTombstones(plan, newer("s", "t"));
      io.replaysafe.common.CrashPoints.maybeCrash(
          io.replaysafe.common.CrashPoints.SILVER_AFTER_TOMBSTONE_MERGE);
    }
    return applied;
  }

  private Applied mergeIntoSilver(Dataset<Row> plan) {
    Dataset<Row> toSilver =
        plan.where(
            col(ACTION)
                .isin(MergePlan.INSERT, MergePlan.REVIVE, MergePlan.UPDATE, MergePlan.DELETE));
    String guard = newer("s", "t");
    Map<String, String> insertValues = rowValues(false);
    Map<String, String> updateValues = rowValues(contract.silver().ignoreNullUpdates());

    Row metrics =
        tables
            .silverTable()
            .as("t")
            .merge(toSilver.as("s"), contract.keyCondition("t", "s"))
            .whenMatched("s." + ACTION + " = 'DELETE' AND " + guard)
            .delete()
            .whenMatched("s." + ACTION + " = 'UPDATE' AND " + guard)
            .updateExpr(updateValues)
            .whenNotMatched("s." + ACTION + " IN ('INSERT', 'REVIVE')")
            .insertExpr(insertValues)
            .execute()
            .first();

    return new Applied(
        metrics.getLong(metrics.fieldIndex("num_inserted_rows")),
        metrics.getLong(metrics.fieldIndex("num_updated_rows")),
        metrics.getLong(metrics.fieldIndex("num_deleted_rows")));
  }

  /**
   * The silver row written for an incoming row. With {@code ignoreNullUpdates} a null in an update
   * keeps the stored value of that (non-key, non-sequence) column.
   */
  private Map<String, String> rowValues(boolean keepStoredOnNull) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String c : contract.silverColumns()) {
      boolean businessValue = !contract.silver().identityColumns().contains(c);
      values.put(
          c,
          keepStoredOnNull && businessValue
              ? "coalesce(s." + q(c) + ", t." + q(c) + ")"
              : "s." + q(c));
    }
    values.put(PAYLOAD_HASH, "s." + PAYLOAD_HASH);
    values.put(SOURCE_FILE, "s." + q(Columns.SOURCE_FILE));
    values.put(BRONZE_VERSION, "s." + COMMIT_VERSION);
    values.put(APPLIED_AT, "current_timestamp()");
    return values;
  }

  /** Records deletes (so older events cannot resurrect a key) and clears revived keys. */
  private void applyTombstones(Dataset<Row> plan, String guard) {
    Dataset<Row> changes =
        plan.where(col(ACTION).isin(MergePlan.DELETE, MergePlan.TOMBSTONE_ONLY, MergePlan.REVIVE));
    Map<String, String> values = new LinkedHashMap<>();
    for (String c : contract.silver().identityColumns()) {
      values.put(c, "s." + q(c));
    }
    values.put(PAYLOAD_HASH, "s." + PAYLOAD_HASH);
    values.put(SOURCE_FILE, "s." + q(Columns.SOURCE_FILE));
    values.put(BRONZE_VERSION, "s." + COMMIT_VERSION);
    values.put("__deleted_at", "current_timestamp()");
    String isDelete = "s." + ACTION + " IN ('DELETE', 'TOMBSTONE_ONLY')";
    tables
        .tombstoneTable()
        .as("t")
        .merge(changes.as("s"), contract.keyCondition("t", "s"))
        .whenMatched(isDelete + " AND " + guard)
        .updateExpr(values)
        .whenMatched("s." + ACTION + " = 'REVIVE' AND " + guard)
        .delete()
        .whenNotMatched(isDelete)
        .insertExpr(values)
        .execute();
  }

  /**
   * SQL: the sequence of {@code a} is strictly greater than that of {@code b}, or equal to it on a
   * row whose conflict a person waived (a quarantine release, a reconcile delete).
   */
  String newer(String a, String b) {
    String sa = contract.sequenceSql(a);
    String sb = contract.sequenceSql(b);
    return "("
        + sa
        + " > "
        + sb
        + " OR ("
        + a
        + "."
        + BatchPreparation.WAIVED
        + " AND "
        + sa
        + " = "
        + sb
        + "))";
  }
}
