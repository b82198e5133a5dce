package io.replaysafe.silver;

import static org.apache.spark.sql.functions.col;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.CommitTags;
import io.replaysafe.common.io.Hashing;
import io.replaysafe.common.spark.DeltaTables;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a batch interrupted half-way replay as if it had never started. Every Delta commit a batch
 * makes carries the batch's tag in its commit info ({@code userMetadata}). When a batch is
 * processed and its tag is on the newest commits of a table it writes, the previous attempt died
 * part-way: the table is restored to the version before those commits, so the replay plans against
 * the same state, writes the same rows and reports the same counts as a run that never crashed. A
 * batch whose run-log row exists completed every write and is not rolled back. A table whose newest
 * commit is not the batch's (someone wrote after the crash) is never rolled back.
 */
public final class BatchCommits {
  private static final Logger LOG = LoggerFactory.getLogger(BatchCommits.class);

  /** Deep enough for every commit one batch makes to one table (at most three today). */
  private static final int HISTORY_DEPTH = 20;

  private final SparkSession spark;
  private final String tag;

  public BatchCommits(SparkSession spark, String runId, long batchId) {
    this(spark, "replaysafe " + runId + " batch " + batchId);
  }

  /**
   * Commits of an operation, tagged with what identifies it across a rerun of the same command (the
   * quarantine ids released, the source keys reconciled, the keys repaired).
   */
  public static BatchCommits ofOperation(SparkSession spark, String operation, String identity) {
    return new BatchCommits(spark, "replaysafe " + operation + " " + identity);
  }

  /** The commits tagged {@code tag}, as an {@link InFlightBatch} record names them. */
  static BatchCommits ofTag(SparkSession spark, String tag) {
    return new BatchCommits(spark, tag);
  }

  private BatchCommits(SparkSession spark, String tag) {
    this.spark = spark;
    this.tag = tag;
  }

  /** A short, stable fingerprint of a set of names (order and duplicates ignored). */
  public static String fingerprint(java.util.Collection<String> items) {
    return Hashing.sha256Hex(
        String.join("\n", new java.util.TreeSet<>(items))
            .getBytes(java.nio.charset.StandardCharsets.UTF_8),
        16);
  }

  public String tag() {
    return tag;
  }

  /**
   * Runs {@code writes} with every Delta commit they make tagged with this batch. The tag is set on
   * every session a commit may read it from: this one, the thread's active session (Delta's
   * transactions read the active one; in a streaming batch that is the query's own session) and
   * {@code others} (the session of the batch's DataFrame, whose writes run there).
   */
  public <T> T tagged(Supplier<T> writes, SparkSession... others) {
    return withMetadata(tag, writes, others);
  }

  /** Runs {@code writes} with their commits untagged (inside a {@link #tagged} block). */
  public <T> T untagged(Supplier<T> writes) {
    return withMetadata(null, writes);
  }

  private <T> T withMetadata(String value, Supplier<T> writes, SparkSession... others) {
    java.util.Set<SparkSession> sessions =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    sessions.add(spark);
    SparkSession.getActiveSession().foreach(s -> sessions.add(s));
    sessions.addAll(List.of(others));
    return CommitTags.withUserMetadata(value, writes, sessions);
  }

  /**
   * Rolls back the tables among {@code paths} whose newest commits are this batch's, unless the run
   * log ({@code runsPath}) already holds the batch. Returns what was restored, for the log.
   */
  public List<String> rollBackInterrupted(String runsPath, List<String> paths) {
    List<String> restored = new ArrayList<>();
    if (newestTaggedFrom(runsPath) >= 0) {
      return restored; // the batch finished: its replay is a no-op under the sequence guards
    }
    for (String path : paths) {
      long first = newestTaggedFrom(path);
      if (first > 0) {
        DeltaTable.forPath(spark, path).restoreToVersion(first - 1);
        restored.add(path + " to version " + (first - 1));
      }
    }
    if (!restored.isEmpty()) {
      LOG.warn("{} was interrupted before it finished; restored {}", tag, restored);
    }
    return restored;
  }

  /** The first version of the unbroken run of this batch's commits at the top; -1 if none. */
  private long newestTaggedFrom(String path) {
    if (!DeltaTables.exists(spark, path)) {
      return -1;
    }
    List<Row> newestFirst =
        DeltaTable.forPath(spark, path)
            .history(HISTORY_DEPTH)
            .select(col("version"), col("userMetadata"))
            .orderBy(col("version").desc())
            .collectAsList();
    long first = -1;
    for (Row r : newestFirst) {
      if (r.isNullAt(1) || !tag.equals(r.getString(1))) {
        break;
      }
      first = r.getLong(0);
    }
    return first;
  }
}
