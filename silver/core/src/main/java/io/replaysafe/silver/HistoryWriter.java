package io.replaysafe.silver;

import static io.replaysafe.silver.SilverContract.APPLIED_AT;
import static io.replaysafe.silver.SilverContract.BRONZE_VERSION;
import static io.replaysafe.silver.SilverContract.COMMIT_VERSION;
import static io.replaysafe.silver.SilverContract.SEQ;
import static io.replaysafe.silver.SilverContract.START_AT;
import static io.replaysafe.silver.SilverContract.STORED_SOURCE_FILE;
import static io.replaysafe.silver.SilverContract.q;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.replaysafe.common.Columns;
import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.spark.SqlNames;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;

/**
 * SCD type 2: records new events, then rebuilds the history of every key they touch from all of
 * that key's events and applies the difference in one MERGE (insert new versions, update changed
 * ones, delete versions that no longer start where they did). A replay brings no new event and so
 * changes nothing; a crash between the two writes is repaired by the rerun, which rebuilds every
 * key of the batch from its stored events whether or not any event was new.
 */
public final class HistoryWriter {
  private static final String OP = ReservedNames.HISTORY_OP;

  private final SilverTables tables;
  private final SilverContract contract;

  public HistoryWriter(SilverTables tables, SilverContract contract) {
    this.tables = tables;
    this.contract = contract;
  }

  /** Delta's metrics of the history MERGE, and how many events were new. */
  public record Applied(
      long newEvents, long retriesOfStored, long inserted, long updated, long deleted) {}

  public Applied apply(Dataset<Row> clean, Dataset<Row> stored) {
    List<String> keys = contract.keys();
    // Events already stored (same key and sequence; a different payload was a conflict) are exact
    // retries of the history: they add nothing. A waived row with another payload (a quarantine
    // release) replaces the stored event at its sequence.
    List<Column> storedColumns = new ArrayList<>(List.of(SqlNames.columns(keys)));
    storedColumns.add(col(StoredState.T_SEQ).as(SEQ));
    storedColumns.add(col(StoredState.T_HASH));
    storedColumns.add(col(StoredState.T_HASH_VERSION));
    Dataset<Row> storedIds = stored.select(storedColumns.toArray(Column[]::new));
    List<String> idColumns = new ArrayList<>(keys);
    idColumns.add(SEQ);
    Column replaces =
        col(BatchPreparation.WAIVED)
            .and(
                contract
                    .comparableHash(StoredState.T_HASH_VERSION)
                    .notEqual(col(StoredState.T_HASH)));
    Dataset<Row> fresh =
        clean
            .join(storedIds, SqlNames.seq(idColumns), "left")
            .where(col(StoredState.T_HASH).isNull().or(replaces))
            .drop(StoredState.T_HASH, StoredState.T_HASH_VERSION)
            .localCheckpoint(true);
    long total = clean.count();
    long newEvents = fresh.count();
    if (total == 0) {
      return new Applied(0, 0, 0, 0, 0);
    }
    if (newEvents > 0) {
      recordEvents(fresh);
      io.replaysafe.common.CrashPoints.maybeCrash(
          io.replaysafe.common.CrashPoints.SILVER_AFTER_EVENTS_MERGE);
    }
    // Every key of the batch is rebuilt, also when all its events were stored already: a run that
    // died between the events MERGE and the history MERGE left stored events the history lacks,
    // and only a rebuild from the events places them. When the history is right, the MERGE below
    // matches nothing and writes nothing.
    Dataset<Row> touched = clean.select(SqlNames.columns(keys)).distinct();
    StructType eventsSchema = contract.eventsSchema();
    StructType keySchema = new StructType();
    for (String k : keys) {
      keySchema = keySchema.add(eventsSchema.apply(k));
    }
    int[] keyPositions = keys.stream().mapToInt(eventsSchema::fieldIndex).toArray();
    Dataset<Row> desired =
        tables
            .events()
            .join(
                org.apache.spark.sql.functions.broadcast(touched), SqlNames.seq(keys), "left_semi")
            .select(SqlNames.columns(List.of(eventsSchema.fieldNames())))
            .groupByKey(
                (MapFunction<Row, Row>)
                    r -> {
                      Object[] k = new Object[keyPositions.length];
                      for (int i = 0; i < k.length; i++) {
                        k[i] = r.get(keyPositions[i]);
                      }
                      return RowFactory.create(k);
                    },
                Encoders.row(keySchema))
            .flatMapGroups(new HistoryBuilder(contract), Encoders.row(contract.historySchema()))
            .localCheckpoint(true);

    Dataset<Row> current =
        tables
            .silver()
            .join(
                org.apache.spark.sql.functions.broadcast(touched), SqlNames.seq(keys), "left_semi");
    List<String> versionId = new ArrayList<>(keys);
    versionId.add(START_AT);
    Dataset<Row> stale =
        current.join(desired.select(keysAnd(col(START_AT))), SqlNames.seq(versionId), "left_anti");
    Dataset<Row> source =
        desired.withColumn(OP, lit("UPSERT")).unionByName(stale.withColumn(OP, lit("DELETE")));

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
    Row metrics =
        tables
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
    io.replaysafe.common.CrashPoints.maybeCrash(
        io.replaysafe.common.CrashPoints.SILVER_AFTER_MERGE);
    return new Applied(
        newEvents,
        total - newEvents,
        metrics.getLong(metrics.fieldIndex("num_inserted_rows")),
        metrics.getLong(metrics.fieldIndex("num_updated_rows")),
        metrics.getLong(metrics.fieldIndex("num_deleted_rows")));
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

  private Column[] keysAnd(Column extra) {
    List<Column> columns = new ArrayList<>(List.of(SqlNames.columns(contract.keys())));
    columns.add(extra);
    return columns.toArray(Column[]::new);
  }
}
