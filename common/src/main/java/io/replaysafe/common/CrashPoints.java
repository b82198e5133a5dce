package io.replaysafe.common;

import io.replaysafe.common.spark.SparkSessions;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.SparkSession;

/**
 * Crash injection at the write boundaries of every job and operation, so the rehearsal and the
 * crash-matrix tests can kill a job process at a known point and prove that a rerun converges to
 * the tables of a run that never crashed. A no-op unless the JVM was started with {@code
 * -Dreplaysafe.crashPoint=NAME}; then the process halts (exit code 137, like {@code kill -9}: no
 * shutdown hooks, no finally blocks) the {@code replaysafe.crashAfter}-th time (default 1) the
 * named point is reached.
 *
 * <p>Bronze: {@link #BRONZE_AFTER_FILE_STATE_PLAN} (a batch's files in the file state, its offset
 * not yet written), {@link #BRONZE_MID_WRITE} (before the Delta commit), {@link
 * #BRONZE_BEFORE_CHECKPOINT_COMMIT} (after the Delta commit, before the streaming checkpoint's
 * commit: with Delta's streaming sink nothing happens between the two), {@link
 * #BRONZE_AFTER_FILE_STATE_COMMIT} (the batches marked ingested), {@link
 * #BRONZE_AFTER_LISTED_RANGES} (listing mode: the listing's settled ranges recorded), {@link
 * #BRONZE_AFTER_MESSAGES_DELETED} and {@link #BRONZE_AFTER_BACKFILL_RECORDED} (notification mode),
 * {@link #BRONZE_AFTER_CHECKPOINT_COMMIT} (bronze done, silver not started). Silver, in the order a
 * batch reaches them: {@link #SILVER_AFTER_QUARANTINE}, {@link #SILVER_AFTER_TRUNCATE_WATERMARK},
 * {@link #SILVER_AFTER_EVENTS_MERGE} (history), {@link #SILVER_AFTER_MERGE}, {@link
 * #SILVER_AFTER_TOMBSTONE_MERGE}, {@link #SILVER_AFTER_RUN_LOG}, {@link
 * #SILVER_BEFORE_CHECKPOINT_COMMIT}. Operations: {@link #QUARANTINE_BEFORE_DECISION}, {@link
 * #QUARANTINE_AFTER_DECISION}; {@code repair} and {@code reconcile --apply} write through the
 * silver batch path and so reach the silver points.
 */
public final class CrashPoints {
  public static final String PROPERTY = "replaysafe.crashPoint";
  public static final String BRONZE_MID_WRITE = "bronze-mid-write";
  public static final String BRONZE_BEFORE_CHECKPOINT_COMMIT = "bronze-before-checkpoint-commit";
  public static final String BRONZE_AFTER_CHECKPOINT_COMMIT = "bronze-after-checkpoint-commit";

  /** The files of the next batch written to the file state, its offset not yet in Spark's log. */
  public static final String BRONZE_AFTER_FILE_STATE_PLAN = "bronze-after-file-state-plan";

  /** The run's batches committed and marked ingested in the file state; notifications kept. */
  public static final String BRONZE_AFTER_FILE_STATE_COMMIT = "bronze-after-file-state-commit";

  /** Listing mode: the ranges of the run's listing that no run needs to look up again recorded. */
  public static final String BRONZE_AFTER_LISTED_RANGES = "bronze-after-listed-ranges";

  /** Notification mode: the committed batches' messages deleted from the queue. */
  public static final String BRONZE_AFTER_MESSAGES_DELETED = "bronze-after-messages-deleted";

  /** Notification mode: a backfill listing's time recorded in the file state. */
  public static final String BRONZE_AFTER_BACKFILL_RECORDED = "bronze-after-backfill-recorded";

  public static final String SILVER_AFTER_QUARANTINE = "silver-after-quarantine";
  public static final String SILVER_AFTER_TRUNCATE_WATERMARK = "silver-after-truncate-watermark";
  public static final String SILVER_AFTER_EVENTS_MERGE = "silver-after-events-merge";
  public static final String SILVER_AFTER_MERGE = "silver-after-merge";
  public static final String SILVER_AFTER_TOMBSTONE_MERGE = "silver-after-tombstone-merge";
  public static final String SILVER_AFTER_RUN_LOG = "silver-after-run-log";
  public static final String SILVER_BEFORE_CHECKPOINT_COMMIT = "silver-before-checkpoint-commit";

  /**
   * A scheduled silver run's batches committed and its small files compacted (SmallFiles): only
   * reached when the run found enough small files.
   */
  public static final String SILVER_AFTER_SMALL_FILES = "silver-after-small-files";

  public static final String QUARANTINE_BEFORE_DECISION = "quarantine-before-decision";
  public static final String QUARANTINE_AFTER_DECISION = "quarantine-after-decision";

  /**
   * A lease claim written whole under its temporary name on a local disk, not yet linked to its own
   * name: where a kill used to leave an empty claim.
   */
  public static final String LEASE_CLAIM_MID_WRITE = "lease-claim-mid-write";

  public static final String ERASE_AFTER_ERASURES = "erase-after-erasures";
  public static final String ERASE_AFTER_SILVER = "erase-after-silver";
  public static final String ERASE_AFTER_BRONZE = "erase-after-bronze";

  /** Every point, in the order a run (then the operations) reaches them. */
  public static final List<String> ALL =
      List.of(
          BRONZE_AFTER_FILE_STATE_PLAN,
          BRONZE_MID_WRITE,
          BRONZE_BEFORE_CHECKPOINT_COMMIT,
          BRONZE_AFTER_FILE_STATE_COMMIT,
          BRONZE_AFTER_LISTED_RANGES,
          BRONZE_AFTER_MESSAGES_DELETED,
          BRONZE_AFTER_BACKFILL_RECORDED,
          BRONZE_AFTER_CHECKPOINT_COMMIT,
          SILVER_AFTER_QUARANTINE,
          SILVER_AFTER_TRUNCATE_WATERMARK,
          SILVER_AFTER_EVENTS_MERGE,
          SILVER_AFTER_MERGE,
          SILVER_AFTER_TOMBSTONE_MERGE,
          SILVER_AFTER_RUN_LOG,
          SILVER_BEFORE_CHECKPOINT_COMMIT,
          SILVER_AFTER_SMALL_FILES,
          QUARANTINE_BEFORE_DECISION,
          QUARANTINE_AFTER_DECISION,
          ERASE_AFTER_ERASURES,
          ERASE_AFTER_SILVER,
          ERASE_AFTER_BRONZE);

  public static final int EXIT_CODE = 137;

  private static final String ARMED = System.getProperty(PROPERTY);
  private static final long AFTER = Long.getLong("replaysafe.crashAfter", 1L);
  private static final AtomicLong REACHED = new AtomicLong();

  private CrashPoints() {}

  /** Halts the JVM when {@code point} is the armed crash point; otherwise does nothing. */
  public static void maybeCrash(String point) {
    if (ARMED != null && ARMED.equals(point) && REACHED.incrementAndGet() >= AFTER) {
      System.err.println("replaysafe: crash point " + point + " reached; halting (rehearsal)");
      System.err.flush();
      Runtime.getRuntime().halt(EXIT_CODE);
    }
  }

  /** The armed point, or null. */
  static String armed() {
    return ARMED;
  }

  /**
   * The checkpoint-commit points sit inside Spark's streaming engine, which writes the commit file
   * of a micro-batch through its checkpoint file manager: when one of them is armed, this session
   * writes its checkpoints through {@link CrashingCheckpointFileManager}. Otherwise nothing
   * changes.
   */
  public static void install(SparkSession spark) {
    if (BRONZE_BEFORE_CHECKPOINT_COMMIT.equals(ARMED)
        || SILVER_BEFORE_CHECKPOINT_COMMIT.equals(ARMED)) {
      spark
          .conf()
          .set(
              SparkSessions.CHECKPOINT_FILE_MANAGER, CrashingCheckpointFileManager.class.getName());
    }
  }
}
