package io.replaysafe.common;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaysafe.common.io.Json;
import java.util.Optional;

/**
 * What replaysafe writes into a Delta commit's {@code commitInfo.userMetadata}, so that a later
 * reader (silver reading bronze, a replay after a crash) can tell its own commits from others.
 */
public final class CommitTags {
  /** The Spark setting Delta copies into the next commit's {@code userMetadata}. */
  public static final String USER_METADATA = "spark.databricks.delta.commitInfo.userMetadata";

  /** The field of a replaysafe commit's user metadata (a JSON object) that names what it did. */
  public static final String ACTION = "action";

  /**
   * The action of a {@code bronze --promote-rescued} commit: the backfill of rescued values into
   * new columns, the one update of bronze rows that is not an event.
   */
  public static final String PROMOTE_RESCUED = "promote-rescued";

  /**
   * The action of a {@code replaysafe erase} commit: rows removed from bronze at a person's
   * request, and the rewrite of the files that held them. Not an event either: silver skips them
   * (the erasure itself is recorded beside bronze and applied by silver as such).
   */
  public static final String ERASE = "erase";

  private CommitTags() {}

  /**
   * The action a commit's user metadata names, or empty for any other commit: none, one whose
   * metadata is not a JSON object (another writer's), or one without an action.
   */
  public static Optional<String> action(String userMetadata) {
    return Json.tryRead(userMetadata)
        .filter(JsonNode::isObject)
        .map(node -> node.get(ACTION))
        .filter(JsonNode::isTextual)
        .map(JsonNode::asText);
  }

  /** True when the commit is a {@code bronze --promote-rescued} backfill. */
  public static boolean isPromotion(String userMetadata) {
    return action(userMetadata).filter(PROMOTE_RESCUED::equals).isPresent();
  }

  /**
   * True for replaysafe's own changes to bronze rows that are not events (a backfill of rescued
   * values, an erase): silver reads past their updates and deletes instead of stopping on them.
   */
  public static boolean isNotAnEvent(String userMetadata) {
    return action(userMetadata)
        .filter(a -> a.equals(PROMOTE_RESCUED) || a.equals(ERASE))
        .isPresent();
  }

  /**
   * Runs {@code writes} with every Delta commit they make carrying {@code value} as its user
   * metadata (none when null), set on each of {@code sessions} (Delta reads the setting from the
   * session a commit runs in), and puts back what each session had before, also on failure.
   */
  public static <T> T withUserMetadata(
      String value,
      java.util.function.Supplier<T> writes,
      java.util.Collection<org.apache.spark.sql.SparkSession> sessions) {
    java.util.Map<org.apache.spark.sql.SparkSession, String> previous =
        new java.util.IdentityHashMap<>();
    for (org.apache.spark.sql.SparkSession s : sessions) {
      previous.put(s, s.conf().getOption(USER_METADATA).getOrElse(() -> null));
      setUserMetadata(s, value);
    }
    try {
      return writes.get();
    } finally {
      previous.forEach(CommitTags::setUserMetadata);
    }
  }

  /**
   * {@link #withUserMetadata(String, java.util.function.Supplier, java.util.Collection)} on one
   * session.
   */
  public static <T> T withUserMetadata(
      org.apache.spark.sql.SparkSession spark,
      String value,
      java.util.function.Supplier<T> writes) {
    return withUserMetadata(value, writes, java.util.List.of(spark));
  }

  private static void setUserMetadata(org.apache.spark.sql.SparkSession session, String value) {
    if (value == null) {
      session.conf().unset(USER_METADATA);
    } else {
      session.conf().set(USER_METADATA, value);
    }
  }

  /** The user metadata of a commit made for {@code action}, with its details. */
  public static String of(String action, java.util.Map<String, ?> details) {
    java.util.Map<String, Object> tag = new java.util.LinkedHashMap<>();
    tag.put(ACTION, action);
    tag.putAll(details);
    return Json.compact(tag);
  }
}
