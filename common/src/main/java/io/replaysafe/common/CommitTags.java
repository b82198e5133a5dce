package io.replaysafe.common;

/**
 * What replaysafe writes into a Delta commit's {@code commitInfo.userMetadata}, so that a later
 * reader (silver reading bronze, a replay after a crash) can tell its own commits from others.
 */
public final class CommitTags {
  /** The Spark setting Delta copies into the next commit's {@code userMetadata}. */
  public static final String USER_METADATA = "spark.databricks.delta.commitInfo.userMetadata";

  /**
   * Part of the JSON a {@code bronze --promote-rescued} commit carries: the backfill of rescued
   * values into new columns, the one update of bronze rows that is not an event.
   */
  public static final String PROMOTE_RESCUED = "\"action\":\"promote-rescued\"";

  private CommitTags() {}
}
