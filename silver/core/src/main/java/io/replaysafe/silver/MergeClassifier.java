package io.replaysafe.silver;

import static io.replaysafe.silver.SilverContract.ACTION;
import static io.replaysafe.silver.SilverContract.IS_DELETE;
import static io.replaysafe.silver.SilverContract.SEQ;
import static io.replaysafe.silver.StoredState.T_HASH;
import static io.replaysafe.silver.StoredState.T_HASH_VERSION;
import static io.replaysafe.silver.StoredState.T_KIND;
import static io.replaysafe.silver.StoredState.T_SEQ;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.when;

import io.replaysafe.common.spark.SqlNames;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Steps 6 and 8 decided before writing, against the {@link StoredState}: the incoming rows that
 * conflict with a stored version, and the action for each latest row.
 */
public final class MergeClassifier {
  private MergeClassifier() {}

  /** Step 6: incoming rows with a stored version's key and sequence but a different payload. */
  public static Dataset<Row> conflictsWithTarget(
      Dataset<Row> collapsed, Dataset<Row> targetState, SilverContract contract) {
    return collapsed
        .join(targetState, SqlNames.seq(contract.keys()), "inner")
        .where(
            col(SEQ)
                .equalTo(col(T_SEQ))
                .and(contract.comparableHash(T_HASH_VERSION).notEqual(col(T_HASH)))
                .and(org.apache.spark.sql.functions.not(col(BatchPreparation.WAIVED))));
  }

  /**
   * Step 8's decision for each latest row, before any write. A row whose conflict is waived wins at
   * the stored sequence too, when it changes something there (another payload, or a delete of the
   * live row).
   */
  public static Dataset<Row> classify(
      Dataset<Row> latest, Dataset<Row> targetState, SilverContract contract) {
    Column live = col(T_KIND).equalTo("LIVE");
    Column winsAtEqual =
        col(BatchPreparation.WAIVED)
            .and(
                contract
                    .comparableHash(T_HASH_VERSION)
                    .notEqual(col(T_HASH))
                    .or(col(IS_DELETE).and(live)));
    Column action =
        when(
                col(T_SEQ).isNull(),
                when(col(IS_DELETE), MergeAction.TOMBSTONE_ONLY.lit())
                    .otherwise(MergeAction.INSERT.lit()))
            .when(
                col(SEQ).gt(col(T_SEQ)).or(col(SEQ).equalTo(col(T_SEQ)).and(winsAtEqual)),
                when(
                        col(IS_DELETE),
                        when(live, MergeAction.DELETE.lit())
                            .otherwise(MergeAction.TOMBSTONE_ONLY.lit()))
                    .otherwise(
                        when(live, MergeAction.UPDATE.lit()).otherwise(MergeAction.REVIVE.lit())))
            .when(
                col(SEQ).equalTo(col(T_SEQ)),
                when(
                        contract.comparableHash(T_HASH_VERSION).equalTo(col(T_HASH)),
                        MergeAction.RETRY.lit())
                    .otherwise(MergeAction.CONFLICT.lit()))
            .otherwise(MergeAction.OLDER.lit());
    return latest
        .join(targetState, SqlNames.seq(contract.keys()), "left")
        .withColumn(ACTION, action);
  }
}
