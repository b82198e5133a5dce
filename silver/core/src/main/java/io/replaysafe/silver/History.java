package io.replaysafe.silver;

import static io.replaysafe.silver.SilverContract.PAYLOAD_HASH;
import static io.replaysafe.silver.SilverContract.SEQ;
import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;

import io.replaysafe.common.spark.SqlNames;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * SCD type 2: the events table keeps every event of a key, and silver its history rebuilt from them
 * ({@link HistoryWriter}). A stored event is the state a batch's rows are checked against.
 */
final class History implements TargetTable {
  private final SilverTables tables;
  private final SilverContract contract;
  private final HistoryWriter writer;

  History(SilverTables tables, SilverContract contract) {
    this.tables = tables;
    this.contract = contract;
    this.writer = new HistoryWriter(tables, contract);
  }

  @Override
  public String statePath() {
    return contract.eventsPath();
  }

  /** Every stored event of the batch's keys (all of them: history has no key-bound pruning). */
  @Override
  public Dataset<Row> storedState(Dataset<Row> collapsed, StoredState.KeyBounds bounds) {
    Dataset<Row> keys = collapsed.select(SqlNames.columns(contract.keys())).distinct();
    List<Column> columns = new ArrayList<>(List.of(SqlNames.columns(contract.keys())));
    columns.add(contract.sequence(null).as(StoredState.T_SEQ));
    columns.add(col(PAYLOAD_HASH).as(StoredState.T_HASH));
    columns.add(col(SilverContract.HASH_VERSION).as(StoredState.T_HASH_VERSION));
    return tables
        .events()
        .join(broadcast(keys), SqlNames.seq(contract.keys()), "left_semi")
        .select(columns.toArray(Column[]::new));
  }

  /**
   * A waived row (a quarantine release) is no conflict: it replaces the stored event at its
   * sequence ({@link HistoryWriter}), and the key's history is rebuilt with it in its place.
   */
  @Override
  public Dataset<Row> conflictsWithStored(Dataset<Row> collapsed, Dataset<Row> storedState) {
    return collapsed
        .join(storedState, SqlNames.seq(contract.keys()), "inner")
        .where(
            col(SEQ)
                .equalTo(col(StoredState.T_SEQ))
                .and(
                    contract
                        .comparableHash(StoredState.T_HASH_VERSION)
                        .notEqual(col(StoredState.T_HASH)))
                .and(org.apache.spark.sql.functions.not(col(BatchPreparation.WAIVED))));
  }

  /** A history keeps every event: nothing expires. */
  @Override
  public long expireState() {
    return 0;
  }

  @Override
  public Applied apply(PreparedBatch batch, Conflicts conflicts, Dataset<Row> clean) {
    HistoryWriter.Applied applied =
        writer.apply(HistoryPlan.of(clean, conflicts.storedState(), contract));
    List<Note> notes =
        applied.retriesOfStored() > 0
            ? List.of(Note.storedEvents(applied.retriesOfStored()))
            : List.of();
    return new Applied(
        applied.retriesOfStored(),
        applied.newEvents(),
        0,
        0,
        applied.inserted(),
        applied.updated(),
        applied.deleted(),
        notes);
  }
}
