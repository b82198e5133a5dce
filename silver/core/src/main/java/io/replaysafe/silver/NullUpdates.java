package io.replaysafe.silver;

import static io.replaysafe.silver.SilverContract.IS_DELETE;
import static io.replaysafe.silver.SilverContract.SEQ;
import static io.replaysafe.silver.SilverContract.q;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.last;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.when;

import io.replaysafe.common.spark.SqlNames;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/**
 * {@code ignoreNullUpdates} for current state, decided over a whole batch as if its events had come
 * one per batch, in sequence order: an upsert's null keeps the value the key had just before it,
 * which is the latest non-null value of the batch's earlier upserts of that key, else the stored
 * row's; a delete ends the key, so nothing from before it carries over (an upsert after a delete,
 * in the batch or in an earlier one, starts from nulls like a new key). Events the stored state
 * makes older are not applied and so fill nothing. The history builder applies the same rule to a
 * history table's events, so current state and the open history records agree.
 */
final class NullUpdates {
  /**
   * Working column on the latest row of a key: true when a delete of this batch lies between the
   * stored state and the row, so the MERGE must not fill the row's nulls from the stored row.
   */
  static final String AFTER_DELETE = "__after_delete";

  private static final String APPLIES = "__applies";
  private static final String LAST_DELETE = "__last_delete";

  private NullUpdates() {}

  /**
   * The latest row of each key of {@code clean} with its nulls filled from the batch's earlier
   * upserts (see the class comment) and {@link #AFTER_DELETE} set; {@code storedState} is the
   * target's state of the batch's keys ({@link StoredState#targetState}).
   */
  static Dataset<Row> latestPerKey(
      Dataset<Row> clean, Dataset<Row> storedState, SilverContract contract) {
    List<String> keys = contract.keys();
    List<Column> stateColumns = new ArrayList<>(List.of(SqlNames.columns(keys)));
    stateColumns.add(col(StoredState.T_SEQ));
    // The guard of the MERGE: only what is newer than the stored state is applied.
    Column applies =
        col(StoredState.T_SEQ)
            .isNull()
            .or(col(SEQ).gt(col(StoredState.T_SEQ)))
            .or(col(SEQ).equalTo(col(StoredState.T_SEQ)).and(col(BatchPreparation.WAIVED)));
    WindowSpec key = Window.partitionBy(SqlNames.columns(keys));
    WindowSpec inOrder =
        key.orderBy(col(SEQ)).rowsBetween(Window.unboundedPreceding(), Window.unboundedFollowing());
    Dataset<Row> marked =
        clean
            .join(
                storedState.select(stateColumns.toArray(Column[]::new)), SqlNames.seq(keys), "left")
            .withColumn(APPLIES, applies)
            .withColumn(
                LAST_DELETE, max(when(col(APPLIES).and(col(IS_DELETE)), col(SEQ))).over(key));
    Column authors =
        col(APPLIES)
            .and(not(col(IS_DELETE)))
            .and(col(LAST_DELETE).isNull().or(col(SEQ).gt(col(LAST_DELETE))));
    for (String c : contract.silverColumns()) {
      if (!contract.silver().identityColumns().contains(c)) {
        marked =
            marked.withColumn(
                c,
                when(authors, last(when(authors, col(q(c))), true).over(inOrder))
                    .otherwise(col(q(c))));
      }
    }
    return BatchPreparation.latestPerKey(
            marked.withColumn(AFTER_DELETE, col(LAST_DELETE).isNotNull()), contract)
        .drop(APPLIES, LAST_DELETE, StoredState.T_SEQ);
  }
}
