package io.replaysafe.silver.ops;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.silver.BatchCommits;
import io.replaysafe.silver.BatchReport;
import io.replaysafe.silver.DecidedRows;
import io.replaysafe.silver.SilverBatchProcessor;
import io.replaysafe.silver.SilverContract;
import io.replaysafe.silver.SilverErrors;
import io.replaysafe.silver.SilverTables;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The quarantine's exit path. Every decision is recorded on the row (who, why, when). Discard
 * closes a row. Release applies a row's bronze row to silver through the same batch path as a
 * silver run (tombstones, sequence guards, {@code ignoreNullUpdates}, truncates, the run log), with
 * one difference the decision makes explicit: the conflict with the stored version at the same
 * sequence is waived, so the released payload wins there; a newer stored version, a tombstone or a
 * truncate still wins, and the row then stays OPEN with that reason.
 */
public final class QuarantineOps {
  private final PipelineConfig config;
  private final SparkSession spark;

  public QuarantineOps(PipelineConfig config, SparkSession spark) {
    this.config = config;
    this.spark = spark;
  }

  public Dataset<Row> open() {
    OpsContext.open(config, spark);
    return spark
        .read()
        .format("delta")
        .load(config.requireSilver().quarantinePath())
        .where(col("status").equalTo("OPEN"));
  }

  public long discard(List<String> ids, String by, String why) {
    return decide(ids, "DISCARDED", by, why);
  }

  /**
   * What a release did: rows released, silver rows changed, and the rows left open (quarantine id
   * to the reason the release could not take effect).
   */
  public record Released(long released, long changed, Map<String, String> leftOpen) {}

  /**
   * Applies the chosen rows through the silver batch path (as a batch of their bronze rows whose
   * conflict with the stored version is waived), then records the decision on each row: RELEASED
   * when it took effect, still OPEN with the reason when a newer stored version, a tombstone or a
   * truncate wins. Rerunning the same release after a crash finishes it.
   */
  public Released release(List<String> ids, String by, String why) {
    requireDecision(by, why);
    // History tables too: the released row takes its sequence's place among the key's events.
    OpsContext context = OpsContext.open(config, spark).recoverInFlight();
    SilverContract contract = context.contract();
    SilverTables tables = context.tables();
    SilverBatchProcessor processor = new SilverBatchProcessor(spark, contract, tables);
    String identity = BatchCommits.fingerprint(ids);
    BatchCommits commits = BatchCommits.ofOperation(spark, "quarantine-release", identity);
    processor.rollBackInterrupted(commits);
    List<String> open = pending(ids, "RELEASED", by, why);
    if (open.isEmpty()) {
      return new Released(ids.size(), 0, Map.of()); // a rerun after the decision was recorded
    }
    Dataset<Row> chosen = open().where(col("quarantine_id").isin(open.toArray()));
    List<Row> invalid =
        chosen
            .where(col("reason").startsWith("INVALID_"))
            .select("quarantine_id", "reason")
            .collectAsList();
    if (!invalid.isEmpty()) {
      throw SilverErrors.releaseOfInvalidRow(
          invalid.get(0).getString(0), invalid.get(0).getString(1));
    }
    if (chosen.select("key", "sequence").distinct().count() != chosen.count()) {
      throw SilverErrors.releaseOfSeveralPayloads();
    }
    Dataset<Row> rows = DecidedRows.fromBronze(spark, contract, chosen);
    BatchReport report =
        processor.process(
            rows.drop(DecidedRows.QUARANTINE_ID), 0, "quarantine-release-" + identity, commits);
    CrashPoints.maybeCrash(CrashPoints.QUARANTINE_BEFORE_DECISION);
    Map<String, String> refused = DecidedRows.refusals(rows, contract, tables);
    List<String> released = open.stream().filter(id -> !refused.containsKey(id)).toList();
    if (!released.isEmpty()) {
      record(released, "RELEASED", by, why);
    }
    for (Map.Entry<String, String> r : refused.entrySet()) {
      record(List.of(r.getKey()), "OPEN", by, "release refused: " + r.getValue());
    }
    CrashPoints.maybeCrash(CrashPoints.QUARANTINE_AFTER_DECISION);
    long changed = report == null ? 0 : report.inserted() + report.updated() + report.deleted();
    return new Released(ids.size() - refused.size(), changed, refused);
  }

  /**
   * The ids still open. An id already closed with this very decision (a rerun after a crash) is
   * done; any other id that is not open is an error.
   */
  private List<String> pending(List<String> ids, String status, String by, String why) {
    List<Row> rows =
        spark
            .read()
            .format("delta")
            .load(config.requireSilver().quarantinePath())
            .where(col("quarantine_id").isin(ids.toArray()))
            .select("quarantine_id", "status", "decided_by", "decision")
            .collectAsList();
    List<String> open = new java.util.ArrayList<>();
    long done = 0;
    for (Row r : rows) {
      if ("OPEN".equals(r.getString(1))) {
        open.add(r.getString(0));
      } else if (status.equals(r.getString(1))
          && by.equals(r.getString(2))
          && why.equals(r.getString(3))) {
        done++;
      }
    }
    if (open.size() + done != ids.size()) {
      throw SilverErrors.quarantineIdsNotOpen(open.size(), ids.size());
    }
    return open;
  }

  private static void requireDecision(String by, String why) {
    if (by == null || by.isBlank() || why == null || why.isBlank()) {
      throw SilverErrors.decisionWithoutAuthor();
    }
  }

  private long decide(List<String> ids, String status, String by, String why) {
    requireDecision(by, why);
    OpsContext.open(config, spark).recoverInFlight();
    List<String> open = pending(ids, status, by, why);
    if (!open.isEmpty()) {
      record(open, status, by, why);
    }
    CrashPoints.maybeCrash(CrashPoints.QUARANTINE_AFTER_DECISION);
    return ids.size();
  }

  /** Records a decision on open rows. */
  private void record(List<String> ids, String status, String by, String why) {
    Map<String, org.apache.spark.sql.Column> set = new LinkedHashMap<>();
    set.put("status", lit(status));
    set.put("decided_by", lit(by));
    set.put("decision", lit(why));
    set.put("decided_at", org.apache.spark.sql.functions.current_timestamp());
    OpsContext.open(config, spark)
        .tables()
        .quarantineTable()
        .update(col("quarantine_id").isin(ids.toArray()).and(col("status").equalTo("OPEN")), set);
  }
}
