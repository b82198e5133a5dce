package io.replaysafe.silver;

import static io.replaysafe.silver.MergeAction.DELETE;
import static io.replaysafe.silver.MergeAction.INSERT;
import static io.replaysafe.silver.MergeAction.REVIVE;
import static io.replaysafe.silver.MergeAction.TOMBSTONE_ONLY;
import static io.replaysafe.silver.MergeAction.UPDATE;
import static io.replaysafe.silver.SilverContract.ACTION;
import static io.replaysafe.silver.SilverContract.APPLIED_AT;
import static io.replaysafe.silver.SilverContract.BRONZE_VERSION;
import static io.replaysafe.silver.SilverContract.COMMIT_VERSION;
import static io.replaysafe.silver.SilverContract.PAYLOAD_HASH;
import static io.replaysafe.silver.SilverContract.STORED_SOURCE_FILE;
import static io.replaysafe.silver.SilverContract.q;
import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.expr;

import io.delta.tables.DeltaMergeBuilder;
import io.replaysafe.common.Columns;
import io.replaysafe.common.ReservedNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
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

  /** As {@link #apply(Dataset, Map, StoredState.KeyBounds)} without key bounds. */
  public Applied apply(Dataset<Row> plan, Map<MergeAction, Long> actions) {
    return apply(plan, actions, null);
  }

  /**
   * A batch up to this many planned rows is broadcast into the MERGE. Spark would not do it on its
   * own: the size estimate of a checkpointed plan is far too large (about 98 GB for 5,000 rows), so
   * every MERGE became a sort-merge join over all the target files it touches.
   */
  static final long BROADCAST_ROWS = 200_000;

  /**
   * Applies the plan; {@code actions} (count per action) lets a batch with nothing to change skip a
   * MERGE entirely, and decides which clauses each MERGE needs. {@code keyBounds}, when not null,
   * bounds the batch's keys (see {@link StoredState.KeyBounds}) so Delta reads only the target
   * files whose key range overlaps the batch.
   */
  public Applied apply(
      Dataset<Row> plan, Map<MergeAction, Long> actions, StoredState.KeyBounds keyBounds) {
    long toSilverCount = MergeAction.count(actions, INSERT, REVIVE, UPDATE, DELETE);
    long toTombstones = MergeAction.count(actions, REVIVE, DELETE, TOMBSTONE_ONLY);
    Applied applied =
        toSilverCount == 0 ? new Applied(0, 0, 0) : mergeIntoSilver(plan, actions, keyBounds);
    // Crash matrix and rehearsal only (no-op unless armed): killed between the silver MERGE and
    // the tombstone MERGE / run log / checkpoint commit.
    if (toSilverCount > 0) {
      io.replaysafe.common.CrashPoints.maybeCrash(
          io.replaysafe.common.CrashPoints.SILVER_AFTER_MERGE);
    }
    if (toTombstones > 0) {
      applyTombstones(plan, actions, newer("s", "t"), keyBounds);
      io.replaysafe.common.CrashPoints.maybeCrash(
          io.replaysafe.common.CrashPoints.SILVER_AFTER_TOMBSTONE_MERGE);
    }
    return applied;
  }

  /**
   * Only the clauses the batch needs: a replay of updates is a matched-only MERGE (an inner join,
   * not an outer one over every touched file) and a batch of new keys an insert-only MERGE (which
   * Delta runs as an append that rewrites no file).
   */
  private Applied mergeIntoSilver(
      Dataset<Row> plan, Map<MergeAction, Long> actions, StoredState.KeyBounds keyBounds) {
    long deletes = MergeAction.count(actions, DELETE);
    long updates = MergeAction.count(actions, UPDATE);
    long inserts = MergeAction.count(actions, INSERT, REVIVE);
    Dataset<Row> toSilver = plan.where(MergeAction.in(INSERT, REVIVE, UPDATE, DELETE));
    String guard = newer("s", "t");
    Map<String, String> insertValues = rowValues(false, false);
    Map<String, String> updateValues =
        rowValues(
            contract.silver().ignoreNullUpdates(),
            List.of(plan.columns()).contains(NullUpdates.AFTER_DELETE));

    if (!contract.silver().ignoreNullUpdates()) {
      // Without null updates every value comes from the planned row: a small batch is merged by
      // replaysafe's own commit (SmallMerge), the same rows and commit as the MERGE below.
      Map<MergeAction, SmallMerge.Matched> matched = new java.util.EnumMap<>(MergeAction.class);
      if (deletes > 0) {
        matched.put(DELETE, SmallMerge.Matched.DELETE);
      }
      if (updates > 0) {
        matched.put(UPDATE, SmallMerge.Matched.UPDATE);
      }
      java.util.Optional<SmallMerge.Result> small =
          smallMerge(
              contract.silver().path(),
              toSilver,
              deletes + updates + inserts,
              new SmallMerge.Clauses(
                  matched,
                  inserts > 0 ? java.util.Set.of(INSERT, REVIVE) : java.util.Set.of(),
                  guard),
              insertValues,
              keyBounds);
      if (small.isPresent()) {
        return new Applied(small.get().inserted(), small.get().updated(), small.get().deleted());
      }
    }
    DeltaMergeBuilder merge =
        tables
            .silverTable()
            .as("t")
            .merge(
                source(toSilver, deletes + updates + inserts).as("s"),
                condition(contract.keyCondition("t", "s"), keyBounds));
    if (deletes > 0) {
      merge = merge.whenMatched("s." + ACTION + " = " + DELETE.sql() + " AND " + guard).delete();
    }
    if (updates > 0) {
      merge =
          merge
              .whenMatched("s." + ACTION + " = " + UPDATE.sql() + " AND " + guard)
              .updateExpr(updateValues);
    }
    if (inserts > 0) {
      merge =
          merge
              .whenNotMatched(MergeAction.sqlIn("s." + ACTION, INSERT, REVIVE))
              .insertExpr(insertValues);
    }
    Row metrics = merge.execute().first();
    return new Applied(
        metrics.getLong(metrics.fieldIndex("num_inserted_rows")),
        metrics.getLong(metrics.fieldIndex("num_updated_rows")),
        metrics.getLong(metrics.fieldIndex("num_deleted_rows")));
  }

  private static Dataset<Row> source(Dataset<Row> rows, long count) {
    return count <= BROADCAST_ROWS ? broadcast(rows) : rows;
  }

  /** The MERGE condition: the key equality, and the batch's key bounds on the target. */
  private static Column condition(String keyEquality, StoredState.KeyBounds keyBounds) {
    Column on = expr(keyEquality);
    return keyBounds == null ? on : on.and(keyBounds.on("t"));
  }

  /**
   * The silver row written for an incoming row. With {@code ignoreNullUpdates} a null in an update
   * keeps the stored value of that (non-key, non-sequence) column, unless a delete of the batch
   * lies between them ({@code afterDeleteKnown}: the plan carries {@link
   * NullUpdates#AFTER_DELETE}).
   */
  private Map<String, String> rowValues(boolean keepStoredOnNull, boolean afterDeleteKnown) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String c : contract.silverColumns()) {
      boolean businessValue = !contract.silver().identityColumns().contains(c);
      String kept = "coalesce(s." + q(c) + ", t." + q(c) + ")";
      if (afterDeleteKnown) {
        kept = "if(s." + NullUpdates.AFTER_DELETE + ", s." + q(c) + ", " + kept + ")";
      }
      values.put(c, keepStoredOnNull && businessValue ? kept : "s." + q(c));
    }
    values.put(PAYLOAD_HASH, "s." + PAYLOAD_HASH);
    values.put(STORED_SOURCE_FILE, "s." + q(Columns.SOURCE_FILE));
    values.put(BRONZE_VERSION, "s." + COMMIT_VERSION);
    values.put(APPLIED_AT, "current_timestamp()");
    values.put(SilverContract.HASH_VERSION, String.valueOf(contract.contractVersion()));
    return values;
  }

  /** Records deletes (so older events cannot resurrect a key) and clears revived keys. */
  private void applyTombstones(
      Dataset<Row> plan,
      Map<MergeAction, Long> actions,
      String guard,
      StoredState.KeyBounds keyBounds) {
    long revives = MergeAction.count(actions, REVIVE);
    long deletes = MergeAction.count(actions, DELETE, TOMBSTONE_ONLY);
    Dataset<Row> changes = plan.where(MergeAction.in(DELETE, TOMBSTONE_ONLY, REVIVE));
    Map<String, String> values = new LinkedHashMap<>();
    for (String c : contract.silver().identityColumns()) {
      values.put(c, "s." + q(c));
    }
    values.put(PAYLOAD_HASH, "s." + PAYLOAD_HASH);
    values.put(STORED_SOURCE_FILE, "s." + q(Columns.SOURCE_FILE));
    values.put(BRONZE_VERSION, "s." + COMMIT_VERSION);
    values.put(ReservedNames.DELETED_AT, "current_timestamp()");
    values.put(SilverContract.HASH_VERSION, String.valueOf(contract.contractVersion()));
    String isDelete = MergeAction.sqlIn("s." + ACTION, DELETE, TOMBSTONE_ONLY);
    Map<MergeAction, SmallMerge.Matched> matched = new java.util.EnumMap<>(MergeAction.class);
    if (deletes > 0) {
      matched.put(DELETE, SmallMerge.Matched.UPDATE);
      matched.put(TOMBSTONE_ONLY, SmallMerge.Matched.UPDATE);
    }
    if (revives > 0) {
      matched.put(REVIVE, SmallMerge.Matched.DELETE);
    }
    if (smallMerge(
            contract.tombstonePath(),
            changes,
            revives + deletes,
            new SmallMerge.Clauses(
                matched,
                deletes > 0 ? java.util.Set.of(DELETE, TOMBSTONE_ONLY) : java.util.Set.of(),
                guard),
            values,
            keyBounds)
        .isPresent()) {
      return;
    }
    DeltaMergeBuilder merge =
        tables
            .tombstoneTable()
            .as("t")
            .merge(
                source(changes, revives + deletes).as("s"),
                condition(contract.keyCondition("t", "s"), keyBounds));
    if (deletes > 0) {
      merge = merge.whenMatched(isDelete + " AND " + guard).updateExpr(values);
    }
    if (revives > 0) {
      merge = merge.whenMatched("s." + ACTION + " = " + REVIVE.sql() + " AND " + guard).delete();
    }
    if (deletes > 0) {
      merge = merge.whenNotMatched(isDelete).insertExpr(values);
    }
    merge.execute();
  }

  /** A small batch's merge into the table at {@code path} by {@link SmallMerge}, when it can. */
  private java.util.Optional<SmallMerge.Result> smallMerge(
      String path,
      Dataset<Row> rows,
      long count,
      SmallMerge.Clauses clauses,
      Map<String, String> values,
      StoredState.KeyBounds keyBounds) {
    return SmallMerge.tryMerge(
        tables.spark(),
        path,
        rows,
        count,
        clauses,
        values,
        contract.keyCondition("t", "s"),
        keyBounds);
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
