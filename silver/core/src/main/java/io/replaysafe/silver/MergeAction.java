package io.replaysafe.silver;

import static org.apache.spark.sql.functions.col;

import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Column;

/**
 * The decision for one key of a current-state batch, recorded per key (in the plan's {@link
 * SilverContract#ACTION} column) so every decision can be explained. The stored value is the
 * constant's name.
 */
public enum MergeAction {
  INSERT,
  /** An insert newer than the key's tombstone: the key comes back and the tombstone goes. */
  REVIVE,
  UPDATE,
  DELETE,
  TOMBSTONE_ONLY,
  RETRY,
  OLDER,
  CONFLICT;

  /** The value as a Spark literal. */
  public Column lit() {
    return org.apache.spark.sql.functions.lit(name());
  }

  /** The value as a SQL string literal: {@code 'INSERT'}. */
  public String sql() {
    return "'" + name() + "'";
  }

  /** SQL: {@code column} holds one of {@code actions}, e.g. {@code s.__action IN ('A', 'B')}. */
  static String sqlIn(String column, MergeAction... actions) {
    return column
        + " IN ("
        + Arrays.stream(actions).map(MergeAction::sql).collect(Collectors.joining(", "))
        + ")";
  }

  /** The rows of {@code ACTION} in {@code actions}. */
  static Column in(MergeAction... actions) {
    return col(SilverContract.ACTION)
        .isin(Arrays.stream(actions).map(a -> (Object) a.name()).toArray());
  }

  /** How many keys of a plan got any of {@code actions}. */
  static long count(Map<MergeAction, Long> counts, MergeAction... actions) {
    long total = 0;
    for (MergeAction a : actions) {
      total += counts.getOrDefault(a, 0L);
    }
    return total;
  }
}
