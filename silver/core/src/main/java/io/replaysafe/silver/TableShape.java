package io.replaysafe.silver;

import io.replaysafe.common.config.SilverConfig;

/**
 * What silver stores, decided once from {@code silver.storedAsScdType}: the latest state of each
 * key beside the tombstones of its deleted keys (SCD type 1), or every version of each key beside
 * the events they are rebuilt from (SCD type 2). Code that treats the two differently asks the
 * contract's shape ({@link SilverContract#shape}) or the {@link TargetTable}, never the type again.
 */
public enum TableShape {
  CURRENT_STATE("silver", "current state (SCD type 1)", "tombstones", "tombstones of deleted keys"),
  HISTORY("history", "history (SCD type 2)", "events", "applied events of the history");

  private final String tableName;
  private final String description;
  private final String stateTableName;
  private final String stateDescription;

  TableShape(String tableName, String description, String stateTableName, String stateDescription) {
    this.tableName = tableName;
    this.description = description;
    this.stateTableName = stateTableName;
    this.stateDescription = stateDescription;
  }

  public static TableShape of(SilverConfig silver) {
    return silver.storedAsScdType() == 2 ? HISTORY : CURRENT_STATE;
  }

  /** The silver table's name in reports: {@code silver} or {@code history}. */
  public String tableName() {
    return tableName;
  }

  /** What the silver table holds, as its Delta comment says. */
  public String description() {
    return description;
  }

  /** The name of the table beside silver that keeps its stored state, in reports. */
  public String stateTableName() {
    return stateTableName;
  }

  /** What that table holds, as its Delta comment says. */
  public String stateDescription() {
    return stateDescription;
  }
}
