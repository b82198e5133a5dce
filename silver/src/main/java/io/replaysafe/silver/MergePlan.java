package io.replaysafe.silver;

import static io.replaysafe.silver.SilverContract.ACTION;
import static io.replaysafe.silver.SilverContract.IS_DELETE;
import static io.replaysafe.silver.SilverContract.PAYLOAD_HASH;
import static io.replaysafe.silver.SilverContract.SEQ;
import static io.replaysafe.silver.SilverContract.q;
import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.when;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;

/**
 * Steps 6 and 8 decided before writing: what the target holds for each incoming key (the live row
 * or its tombstone, whichever is newer), conflicts with it, and the action for each latest row.
 */
public final class MergePlan {
  /** Target-state columns joined onto incoming rows. */
  static final String T_SEQ = "__t_seq";

  static final String T_HASH = "__t_hash";
  static final String T_KIND = "__t_kind";

  /** Actions, recorded per key so every decision can be explained. */
  public static final String INSERT = "INSERT";

  /** An insert newer than the key's tombstone: the key comes back and the tombstone goes. */
  public static final String REVIVE = "REVIVE";

  public static final String UPDATE = "UPDATE";
  public static final String DELETE = "DELETE";
  public static final String TOMBSTONE_ONLY = "TOMBSTONE_ONLY";
  public static final String RETRY = "RETRY";
  public static final String OLDER = "OLDER";
  public static final String CONFLICT = "CONFLICT";

  private MergePlan() {}

  /**
   * The stored state of the keys present in {@code incoming}: one row per key with its newest
   * stored sequence and payload hash, and whether that is a live row or a tombstone.
   */
  public static Dataset<Row> targetState(
      Dataset<Row> incoming, SilverTables tables, SilverContract contract) {
    List<String> keys = contract.keys();
    Dataset<Row> batchKeys = incoming.select(cols(keys)).distinct();
    Dataset<Row> live = stored(tables.silver(), contract, "LIVE");
    Dataset<Row> dead = stored(tables.tombstones(), contract, "TOMBSTONE");
    var newestFirst =
        Window.partitionBy(cols(keys))
            .orderBy(col(T_SEQ).desc(), when(col(T_KIND).equalTo("LIVE"), 0).otherwise(1));
    return live.unionByName(dead)
        .join(broadcast(batchKeys), asSeq(keys), "left_semi")
        .withColumn("__rank", row_number().over(newestFirst))
        .where(col("__rank").equalTo(1))
        .drop("__rank");
  }

  private static Dataset<Row> stored(Dataset<Row> table, SilverContract contract, String kind) {
    List<Column> columns = new ArrayList<>();
    contract.keys().forEach(k -> columns.add(col(q(k))));
    columns.add(contract.sequence(null).as(T_SEQ));
    columns.add(col(PAYLOAD_HASH).as(T_HASH));
    columns.add(lit(kind).as(T_KIND));
    return table.select(columns.toArray(Column[]::new));
  }

  /** Step 6: incoming rows with a stored version's key and sequence but a different payload. */
  public static Dataset<Row> conflictsWithTarget(
      Dataset<Row> collapsed, Dataset<Row> targetState, SilverContract contract) {
    return collapsed
        .join(targetState, asSeq(contract.keys()), "inner")
        .where(
            col(SEQ)
                .equalTo(col(T_SEQ))
                .and(col(PAYLOAD_HASH).notEqual(col(T_HASH)))
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
            .and(col(PAYLOAD_HASH).notEqual(col(T_HASH)).or(col(IS_DELETE).and(live)));
    Column action =
        when(col(T_SEQ).isNull(), when(col(IS_DELETE), lit(TOMBSTONE_ONLY)).otherwise(lit(INSERT)))
            .when(
                col(SEQ).gt(col(T_SEQ)).or(col(SEQ).equalTo(col(T_SEQ)).and(winsAtEqual)),
                when(col(IS_DELETE), when(live, lit(DELETE)).otherwise(lit(TOMBSTONE_ONLY)))
                    .otherwise(when(live, lit(UPDATE)).otherwise(lit(REVIVE))))
            .when(
                col(SEQ).equalTo(col(T_SEQ)),
                when(col(PAYLOAD_HASH).equalTo(col(T_HASH)), lit(RETRY)).otherwise(lit(CONFLICT)))
            .otherwise(lit(OLDER));
    return latest.join(targetState, asSeq(contract.keys()), "left").withColumn(ACTION, action);
  }

  static Column[] cols(List<String> names) {
    return names.stream().map(n -> col(q(n))).toArray(Column[]::new);
  }

  static scala.collection.immutable.Seq<String> asSeq(List<String> names) {
    return scala.jdk.javaapi.CollectionConverters.asScala(names).toSeq();
  }
}
