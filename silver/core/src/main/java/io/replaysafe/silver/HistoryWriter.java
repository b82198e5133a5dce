package io.replaysafe.silver;

import static io.replaysafe.silver.SilverContract.APPLIED_AT;
import static io.replaysafe.silver.SilverContract.BRONZE_VERSION;
import static io.replaysafe.silver.SilverContract.COMMIT_VERSION;
import static io.replaysafe.silver.SilverContract.START_AT;
import static io.replaysafe.silver.SilverContract.STORED_SOURCE_FILE;
import static io.replaysafe.silver.SilverContract.q;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.replaysafe.common.Columns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * SCD type 2's writes, the counterpart of {@link SilverWriter}: the new events of a {@link
 * HistoryPlan}, then the history MERGE of its version changes (insert new versions, update changed
 * ones, delete versions that no longer start where they did). A replay brings no new event and so
 * changes nothing; a crash between the two writes is repaired by the rerun, which rebuilds every
 * key of the batch from its stored events whether or not any event was new.
 */
public final class HistoryWriter {
  private static final String OP = HistoryPlan.OP;

  private final SilverTables tables;
  private final SilverContract contract;

  public HistoryWriter(SilverTables tables, SilverContract contract) {
    this.tables = tables;
    this.contract = contract;
  }

  /** Delta's metrics of the history MERGE, and how many events were new. */
  public record Applied(
      long newEvents, long retriesOfStored, long inserted, long updated, long deleted) {}

  /** Writes the plan: its new events, then the history of every key it touches. */
  Applied apply(HistoryPlan plan) {
    if (plan.empty()) {
      return new Applied(0, 0, 0, 0, 0);
    }
    if (plan.newEventCount() > 0) {
      recordEvents(plan.newEvents());
      io.replaysafe.common.CrashPoints.maybeCrash(
          io.replaysafe.common.CrashPoints.SILVER_AFTER_EVENTS_MERGE);
    }
    Row metrics = mergeVersions(plan.versionChanges(tables));
    io.replaysafe.common.CrashPoints.maybeCrash(
        io.replaysafe.common.CrashPoints.SILVER_AFTER_MERGE);
    return new Applied(
        plan.newEventCount(),
        plan.retriesOfStored(),
        metrics.getLong(metrics.fieldIndex("num_inserted_rows")),
        metrics.getLong(metrics.fieldIndex("num_updated_rows")),
        metrics.getLong(metrics.fieldIndex("num_deleted_rows")));
  }

  /**
   * The history MERGE on key and version start; when the history is right already, it matches
   * nothing and writes nothing.
   */
  private Row mergeVersions(Dataset<Row> source) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String c : contract.historySchema().fieldNames()) {
      values.put(c, APPLIED_AT.equals(c) ? "current_timestamp()" : "s." + q(c));
    }
    // A version is rewritten when anything the rebuild gives it differs from what is stored, not
    // only its interval or payload hash: a continuation (a later event of the version whose
    // tracked and payload values are the same) changes the stored sequence columns and the
    // provenance, and a rebuild from the same events must give the rows the incremental runs wrote.
    String changed =
        Arrays.stream(contract.historySchema().fieldNames())
            .filter(c -> !APPLIED_AT.equals(c))
            .map(c -> "NOT (t." + q(c) + " <=> s." + q(c) + ")")
            .collect(Collectors.joining(" OR "));
    return tables
        .silverTable()
        .as("t")
        .merge(
            source.as("s"),
            contract.keyCondition("t", "s") + " AND t." + START_AT + " = s." + START_AT)
        .whenMatched("s." + OP + " = 'DELETE'")
        .delete()
        .whenMatched("s." + OP + " = 'UPSERT' AND (" + changed + ")")
        .updateExpr(values)
        .whenNotMatched("s." + OP + " = 'UPSERT'")
        .insertExpr(values)
        .execute()
        .first();
  }

  /**
   * Insert-if-absent on key and sequence: the events table never holds a key's sequence twice. A
   * waived row (a release) replaces the event stored there.
   */
  private void recordEvents(Dataset<Row> fresh) {
    List<Column> columns = new ArrayList<>();
    Map<String, String> values = new LinkedHashMap<>();
    for (String c : contract.eventsSchema().fieldNames()) {
      values.put(c, "s." + q(c));
    }
    for (String c : contract.eventsSchema().fieldNames()) {
      switch (c) {
        case STORED_SOURCE_FILE -> columns.add(col(Columns.SOURCE_FILE).as(STORED_SOURCE_FILE));
        case BRONZE_VERSION -> columns.add(col(COMMIT_VERSION).as(BRONZE_VERSION));
        case SilverContract.HASH_VERSION ->
            columns.add(lit(contract.contractVersion()).as(SilverContract.HASH_VERSION));
        default -> columns.add(col(q(c)));
      }
    }
    String condition =
        contract.keyCondition("t", "s")
            + " AND "
            + String.join(
                " AND ",
                contract.sequenceBy().stream().map(c -> "t." + q(c) + " = s." + q(c)).toList());
    columns.add(col(BatchPreparation.WAIVED));
    tables
        .eventsTable()
        .as("t")
        .merge(fresh.select(columns.toArray(Column[]::new)).as("s"), condition)
        .whenMatched("s." + BatchPreparation.WAIVED)
        .updateExpr(values)
        .whenNotMatched()
        .insertExpr(values)
        .execute();
  }
}
