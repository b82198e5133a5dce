package io.replaysafe.silver;

import static io.replaysafe.silver.BatchPreparation.INVALID_REASON;
import static io.replaysafe.silver.SilverContract.COMMIT_VERSION;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.when;

import io.replaysafe.common.ReservedNames;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Steps 1 and 2 of a batch: its rows identified and validated, with the totals of one pass over
 * them.
 *
 * @param valid the rows that passed validation (key events only)
 * @param invalid the rows that did not, with their reason
 * @param truncates valid truncate events (null when the contract has none)
 * @param inputRows every row of the batch, truncate events and Kafka tombstones included
 * @param tombstoneRecords Kafka tombstones ({@code null} lines), counted and ignored
 * @param bounds the batch's valid key range, or null when it cannot be used for pruning
 * @param erasedIgnored events of erased keys at or before their erased sequence ({@link Erasures}),
 *     counted and ignored: in neither {@code valid} nor {@code invalid}
 */
record PreparedBatch(
    Dataset<Row> valid,
    Dataset<Row> invalid,
    Dataset<Row> truncates,
    long inputRows,
    long invalidCount,
    long truncateCount,
    Long versionMin,
    Long versionMax,
    StoredState.KeyBounds bounds,
    long tombstoneRecords,
    long erasedIgnored) {

  static final String CHANGE_TYPE = ReservedNames.CHANGE_TYPE;
  private static final String INSERT = "insert";

  /**
   * The batch's valid key events: every row but the invalid ones, the Kafka tombstones, the events
   * of erased keys and the truncate events ({@code inputRows} counts those too, but they are not in
   * {@code valid}: counted here, each would read as an exact retry in the batch's report).
   */
  long validCount() {
    return inputRows - invalidCount - truncateCount - tombstoneRecords - erasedIgnored;
  }

  /**
   * Prepares a bronze batch; null when it holds no row. Throws {@link BatchRejectedException} when
   * bronze's change feed holds a change that is not an insert.
   */
  static PreparedBatch of(
      Dataset<Row> bronzeBatch,
      long batchId,
      SilverContract contract,
      Truncates truncates,
      BatchCache cache) {
    return of(bronzeBatch, batchId, contract, truncates, Erasures.NONE, cache);
  }

  static PreparedBatch of(
      Dataset<Row> bronzeBatch,
      long batchId,
      SilverContract contract,
      Truncates truncates,
      Erasures erasures,
      BatchCache cache) {
    // Erased keys are marked first: an erased key's row is ignored whatever else it is, so its
    // values reach neither the quarantine nor a report (an invalid row would carry them there).
    Dataset<Row> identified =
        erasures.mark(
            BatchPreparation.identity(
                bronzeInserts(withCommitVersion(bronzeBatch), contract), contract));
    Column isInsert = col(CHANGE_TYPE).equalTo(INSERT);
    // A Kafka tombstone (no key) is counted as one, never as an erased key's row.
    Column erased = col(Erasures.ERASED).and(not(col(BatchPreparation.KAFKA_TOMBSTONE)));
    Dataset<Row> truncateRows = null;
    if (truncates.enabled()) {
      // Truncate events are table-wide: they carry no key and are not validated as key events.
      // One without a sequence is invalid like any row without one (validated below).
      Column validTruncate =
          col(Truncates.IS_TRUNCATE).and(truncates.hasSequence()).and(isInsert).and(not(erased));
      identified =
          cache.fix(identified.withColumn(Truncates.IS_TRUNCATE, truncates.isTruncate()), -1);
      truncateRows = identified.where(validTruncate);
      identified = identified.where(not(validTruncate));
    }
    Dataset<Row> validated = BatchPreparation.validate(identified, contract);
    if (truncates.enabled()) {
      validated = truncates.invalidWithoutSequence(validated);
    }
    BatchCache.Fixed fixed = cache.fixKeepingRows(validated, -1);
    Dataset<Row> prepared = fixed.rows();
    // One pass for the batch's size, its invalid rows, its bronze versions, any row that is not
    // an insert into bronze, and its key bounds.
    Column notInsert = not(isInsert);
    List<Column> facts =
        new ArrayList<>(
            List.of(
                count(lit(1)),
                count(when(not(erased), col(INVALID_REASON))),
                min(COMMIT_VERSION),
                max(COMMIT_VERSION),
                count(when(notInsert, lit(1))),
                min(when(notInsert, col(COMMIT_VERSION))),
                max(when(notInsert, col(CHANGE_TYPE))),
                count(when(col(BatchPreparation.KAFKA_TOMBSTONE), lit(1))),
                count(when(erased, lit(1)))));
    for (String key : contract.keys()) {
      Column validKey = when(col(INVALID_REASON).isNull(), col(SilverContract.q(key)));
      facts.add(min(validKey));
      facts.add(max(validKey));
    }
    Row totals =
        prepared.agg(facts.get(0), facts.subList(1, facts.size()).toArray(Column[]::new)).first();
    if (totals.getLong(4) > 0) {
      throw SilverErrors.bronzeChanged(
          contract, batchId, totals.getLong(4), totals.get(5), totals.getString(6));
    }
    long truncateCount = truncateRows == null ? 0 : truncateRows.count();
    long inputRows = totals.getLong(0) + truncateCount;
    if (inputRows == 0) {
      return null;
    }
    return new PreparedBatch(
        prepared.where(BatchPreparation.isValidEvent().and(not(erased))),
        prepared.where(col(INVALID_REASON).isNotNull().and(not(erased))),
        truncateRows,
        inputRows,
        totals.getLong(1),
        truncateCount,
        totals.isNullAt(2) ? null : totals.getLong(2),
        totals.isNullAt(3) ? null : totals.getLong(3),
        keyBounds(prepared, fixed.collected(), totals, 9, contract),
        totals.getLong(7),
        totals.getLong(8));
  }

  /**
   * Bounds of the batch's valid keys from the totals row (min and max per key column from {@code
   * first}); null when a key type has no usable order or the batch has no valid key. With the
   * batch's rows on the driver ({@code rows}, else null) and few keys, the keys themselves.
   */
  private static StoredState.KeyBounds keyBounds(
      Dataset<Row> prepared, List<Row> rows, Row totals, int first, SilverContract contract) {
    List<Object> mins = new ArrayList<>();
    List<Object> maxs = new ArrayList<>();
    for (int i = 0; i < contract.keys().size(); i++) {
      String key = contract.keys().get(i);
      int at = first + 2 * i;
      if (!StoredState.KeyBounds.supported(prepared.schema().apply(key).dataType())
          || totals.isNullAt(at)
          || totals.isNullAt(at + 1)) {
        return null;
      }
      mins.add(totals.get(at));
      maxs.add(totals.get(at + 1));
    }
    return new StoredState.KeyBounds(
        contract.keys(), mins, maxs, listedKeys(prepared, rows, contract));
  }

  /** The distinct valid keys of {@code rows}, or null when they cannot or should not be listed. */
  private static List<Object> listedKeys(
      Dataset<Row> prepared, List<Row> rows, SilverContract contract) {
    if (rows == null
        || contract.keys().size() != 1
        || !StoredState.KeyBounds.listable(
            prepared.schema().apply(contract.keys().get(0)).dataType())) {
      return null;
    }
    int key = prepared.schema().fieldIndex(contract.keys().get(0));
    int invalid = prepared.schema().fieldIndex(INVALID_REASON);
    java.util.Set<Object> keys = new java.util.LinkedHashSet<>();
    for (Row r : rows) {
      if (r.isNullAt(invalid) && !r.isNullAt(key)) {
        keys.add(r.get(key));
        if (keys.size() > StoredState.KeyBounds.LISTED_KEYS) {
          return null;
        }
      }
    }
    return new ArrayList<>(keys);
  }

  /**
   * Bronze read as a change feed carries its commit version and change type; a plain read (and an
   * operation's rows) gets a null version and counts as inserts.
   */
  private static Dataset<Row> withCommitVersion(Dataset<Row> batch) {
    List<String> columns = List.of(batch.columns());
    Dataset<Row> result = batch;
    if (columns.contains(ReservedNames.COMMIT_TIMESTAMP)) {
      result = result.drop(ReservedNames.COMMIT_TIMESTAMP);
    }
    if (!columns.contains(CHANGE_TYPE)) {
      result = result.withColumn(CHANGE_TYPE, lit(INSERT));
    }
    if (!columns.contains(COMMIT_VERSION)) {
      result = result.withColumn(COMMIT_VERSION, lit(null).cast("long"));
    }
    return result;
  }

  /** With {@code ignoreBronzeChanges}, only the inserts of bronze's change feed. */
  private static Dataset<Row> bronzeInserts(Dataset<Row> batch, SilverContract contract) {
    return contract.silver().ignoreBronzeChanges()
        ? batch.where(col(CHANGE_TYPE).equalTo(INSERT))
        : batch;
  }
}
