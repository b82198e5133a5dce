package io.replaysafe.silver;

import static io.replaysafe.silver.SilverContract.SEQ;
import static io.replaysafe.silver.SilverContract.START_AT;
import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.spark.SqlNames;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;

/**
 * SCD type 2's decided batch, the counterpart of {@link DecidedBatch}: which clean rows are new
 * events, and, once they are recorded, the versions the history of every touched key must have.
 *
 * <p>An event already stored at its key and sequence is an exact retry of the history (a different
 * payload there was a conflict, found before); a waived row with another payload (a quarantine
 * release) replaces the stored event. Every key of the batch is rebuilt, also when all its events
 * were stored already: a run that died between the events MERGE and the history MERGE left stored
 * events the history lacks, and only a rebuild from the events places them.
 */
final class HistoryPlan {
  /** The operation column of {@link #versionChanges}: {@code UPSERT} or {@code DELETE}. */
  static final String OP = ReservedNames.HISTORY_OP;

  private final SilverContract contract;
  private final Dataset<Row> newEvents;
  private final Dataset<Row> touchedKeys;
  private final long total;
  private final long newEventCount;

  private HistoryPlan(
      SilverContract contract,
      Dataset<Row> newEvents,
      Dataset<Row> touchedKeys,
      long total,
      long newEventCount) {
    this.contract = contract;
    this.newEvents = newEvents;
    this.touchedKeys = touchedKeys;
    this.total = total;
    this.newEventCount = newEventCount;
  }

  /** Decides the batch's {@code clean} rows against the {@code stored} events of their keys. */
  static HistoryPlan of(Dataset<Row> clean, Dataset<Row> stored, SilverContract contract) {
    List<String> keys = contract.keys();
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
    return new HistoryPlan(
        contract, fresh, clean.select(SqlNames.columns(keys)).distinct(), total, fresh.count());
  }

  /** True when the batch holds no clean row: nothing to record and no key to rebuild. */
  boolean empty() {
    return total == 0;
  }

  /** The rows to record in the events table (insert, or replace for a waived row). */
  Dataset<Row> newEvents() {
    return newEvents;
  }

  long newEventCount() {
    return newEventCount;
  }

  /** Clean rows whose event was stored already. */
  long retriesOfStored() {
    return total - newEventCount;
  }

  /**
   * The history the touched keys must have, rebuilt from all of their recorded events ({@link
   * HistoryBuilder}), as {@code UPSERT} rows, and every stored version that no longer starts where
   * it did as a {@code DELETE} row: the source of the history MERGE. Read after the new events are
   * recorded.
   */
  Dataset<Row> versionChanges(SilverTables tables) {
    List<String> keys = contract.keys();
    StructType eventsSchema = contract.eventsSchema();
    StructType keySchema = new StructType();
    for (String k : keys) {
      keySchema = keySchema.add(eventsSchema.apply(k));
    }
    int[] keyPositions = keys.stream().mapToInt(eventsSchema::fieldIndex).toArray();
    Dataset<Row> desired =
        tables
            .events()
            .join(broadcast(touchedKeys), SqlNames.seq(keys), "left_semi")
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
        tables.silver().join(broadcast(touchedKeys), SqlNames.seq(keys), "left_semi");
    List<String> versionId = new ArrayList<>(keys);
    versionId.add(START_AT);
    List<Column> desiredIds = new ArrayList<>(List.of(SqlNames.columns(keys)));
    desiredIds.add(col(START_AT));
    Dataset<Row> stale =
        current.join(
            desired.select(desiredIds.toArray(Column[]::new)),
            SqlNames.seq(versionId),
            "left_anti");
    return desired.withColumn(OP, lit("UPSERT")).unionByName(stale.withColumn(OP, lit("DELETE")));
  }
}
