package io.replaysafe.silver;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The silver table a batch is applied to, by the contract's SCD type: what it stores for the
 * batch's keys, which incoming rows conflict with that, and how the clean rows are written. The SCD
 * choice is made once, in {@link #of}.
 */
sealed interface TargetTable permits CurrentState, History {

  static TargetTable of(
      SparkSession spark, SilverContract contract, SilverTables tables, Truncates truncates) {
    return switch (contract.shape()) {
      case CURRENT_STATE -> new CurrentState(spark, tables, contract, truncates);
      case HISTORY -> new History(tables, contract);
    };
  }

  /** The table beside silver that keeps the stored state: the tombstones or the events. */
  String statePath();

  /**
   * What the target holds for the keys of {@code collapsed}, with {@link StoredState#T_SEQ}, {@link
   * StoredState#T_HASH} and {@link StoredState#T_HASH_VERSION}; {@code bounds} (null: none) bounds
   * the keys read.
   */
  Dataset<Row> storedState(Dataset<Row> collapsed, StoredState.KeyBounds bounds);

  /** Step 6: incoming rows with a stored key and sequence but another payload. */
  Dataset<Row> conflictsWithStored(Dataset<Row> collapsed, Dataset<Row> storedState);

  /**
   * After a run's batches: drops what the stored state keeps no longer (tombstones past {@code
   * tombstoneRetention}; a history keeps every event). Returns how many rows it dropped.
   */
  long expireState();

  /** Step 8: writes the batch's {@code clean} rows (conflicts removed). */
  Applied apply(PreparedBatch batch, Conflicts conflicts, Dataset<Row> clean);

  /**
   * What a batch changed in the target.
   *
   * @param retriesOfStored rows equal to what the target already stored
   * @param keys the keys (current state) or new events (history) the batch decided
   */
  record Applied(
      long retriesOfStored,
      long keys,
      long olderIgnored,
      long supersededInBatch,
      long inserted,
      long updated,
      long deleted,
      List<Note> notes) {
    /** A batch that wrote nothing. */
    static final Applied NOTHING = new Applied(0, 0, 0, 0, 0, 0, 0, List.of());

    public Applied {
      notes = List.copyOf(notes);
    }
  }
}
