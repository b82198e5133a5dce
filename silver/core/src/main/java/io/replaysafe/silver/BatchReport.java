package io.replaysafe.silver;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.sql.Timestamp;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The evidence of one silver micro-batch: what came in and what the contract did with each row.
 * Everything a batch reports is derived from it: the summary line ({@link #summary}), the JSON of
 * the CLI and the jobs (this record as Jackson writes it), and the run-log row ({@link #RUN_LOG}).
 *
 * @param exactRetries copies collapsed in the batch plus versions equal to the stored one
 * @param olderIgnored latest versions older than what silver (or a tombstone) already holds
 * @param supersededInBatch versions replaced by a newer one of the same key in the same batch
 * @param notes the first few decisions (printed "key 101 sequence 1: older than ...")
 * @param ruleVersion the contract's rule version the batch ran with (run log only)
 * @param startedAt when the batch started (run log only)
 * @param message why a rejected batch was rejected, or null (run log only)
 * @param tombstoneRecords Kafka tombstones ({@code null} lines) counted and ignored: not invalid,
 *     not events (in the JSON when not zero, and the summary; the run log's columns are fixed)
 */
@JsonPropertyOrder({
  "runId",
  "batchId",
  "status",
  "bronzeVersionMin",
  "bronzeVersionMax",
  "inputRows",
  "invalid",
  "tombstoneRecords",
  "exactRetries",
  "distinctKeys",
  "conflictsInBatch",
  "conflictsWithTarget",
  "olderIgnored",
  "supersededInBatch",
  "inserted",
  "updated",
  "deleted",
  "quarantined",
  "seconds",
  "notes"
})
public record BatchReport(
    String runId,
    long batchId,
    BatchStatus status,
    Long bronzeVersionMin,
    Long bronzeVersionMax,
    long inputRows,
    long invalid,
    long exactRetries,
    long distinctKeys,
    long conflictsInBatch,
    long conflictsWithTarget,
    long olderIgnored,
    long supersededInBatch,
    long inserted,
    long updated,
    long deleted,
    long quarantined,
    @JsonSerialize(using = Millis.class) double seconds,
    List<Note> notes,
    @JsonIgnore String ruleVersion,
    @JsonIgnore Timestamp startedAt,
    @JsonIgnore String message,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) long tombstoneRecords) {

  public BatchReport {
    notes = List.copyOf(notes);
  }

  /** Who ran a batch, under which rules and since when: what its report holds besides its rows. */
  record Run(String runId, long batchId, String ruleVersion, Timestamp startedAt, long startNanos) {
    static Run starting(String runId, long batchId, SilverContract contract) {
      return new Run(
          runId,
          batchId,
          contract.ruleVersion(),
          new Timestamp(System.currentTimeMillis()),
          System.nanoTime());
    }
  }

  /** The report of a batch the contract applied, from the batch's own records. */
  static BatchReport applied(
      Run run,
      PreparedBatch batch,
      Conflicts conflicts,
      TargetTable.Applied applied,
      long quarantined,
      List<Note> notes) {
    return of(run, BatchStatus.APPLIED, batch, conflicts, applied, quarantined, notes, null);
  }

  /** The report of a batch the policy rejected: it wrote nothing; its message says why. */
  static BatchReport rejected(
      Run run, PreparedBatch batch, Conflicts conflicts, Rejection rejection) {
    return of(
        run,
        BatchStatus.REJECTED,
        batch,
        conflicts,
        TargetTable.Applied.NOTHING,
        0,
        List.of(),
        rejection.report());
  }

  /**
   * Exact retries are the copies collapsed in the batch plus the rows equal to what the target
   * stored; older versions ignored include the events of erased keys.
   */
  private static BatchReport of(
      Run run,
      BatchStatus status,
      PreparedBatch batch,
      Conflicts conflicts,
      TargetTable.Applied applied,
      long quarantined,
      List<Note> notes,
      String message) {
    return new BatchReport(
        run.runId(),
        run.batchId(),
        status,
        batch.versionMin(),
        batch.versionMax(),
        batch.inputRows(),
        batch.invalidCount(),
        batch.validCount() - conflicts.collapsedCount() + applied.retriesOfStored(),
        applied.keys(),
        conflicts.inBatchCount(),
        conflicts.withTargetCount(),
        applied.olderIgnored() + batch.erasedIgnored(),
        applied.supersededInBatch(),
        applied.inserted(),
        applied.updated(),
        applied.deleted(),
        quarantined,
        (System.nanoTime() - run.startNanos()) / 1e9,
        notes,
        run.ruleVersion(),
        run.startedAt(),
        message,
        batch.tombstoneRecords());
  }

  public String summary() {
    return String.format(
        Locale.ROOT,
        "batch %d: %d row(s) in, %d invalid%s, %d exact retr%s collapsed, %d key(s), conflicts %d in"
            + " batch / %d with target, %d older version(s) ignored, %d superseded in batch;"
            + " inserted %d, updated %d, deleted %d, quarantined %d; %.1f s",
        batchId,
        inputRows,
        invalid,
        tombstones(tombstoneRecords),
        exactRetries,
        exactRetries == 1 ? "y" : "ies",
        distinctKeys,
        conflictsInBatch,
        conflictsWithTarget,
        olderIgnored,
        supersededInBatch,
        inserted,
        updated,
        deleted,
        quarantined,
        seconds);
  }

  /**
   * ", 2 Kafka tombstone record(s) ignored" after the invalid count, or nothing when there were
   * none: a feed without them prints what it always printed.
   */
  static String tombstones(long tombstoneRecords) {
    return tombstoneRecords == 0
        ? ""
        : String.format(Locale.ROOT, ", %d Kafka tombstone record(s) ignored", tombstoneRecords);
  }

  /**
   * The run-log table's columns, each with the evidence it stores: the table's schema and a batch's
   * row both come from this list.
   */
  static final List<RunLogColumn> RUN_LOG =
      List.of(
          new RunLogColumn("run_id", DataTypes.StringType, false, BatchReport::runId),
          new RunLogColumn("batch_id", DataTypes.LongType, false, BatchReport::batchId),
          new RunLogColumn("status", DataTypes.StringType, false, r -> r.status().name()),
          new RunLogColumn("rule_version", DataTypes.StringType, false, BatchReport::ruleVersion),
          new RunLogColumn("started_at", DataTypes.TimestampType, false, BatchReport::startedAt),
          new RunLogColumn("seconds", DataTypes.DoubleType, false, BatchReport::seconds),
          new RunLogColumn(
              "bronze_version_min", DataTypes.LongType, true, BatchReport::bronzeVersionMin),
          new RunLogColumn(
              "bronze_version_max", DataTypes.LongType, true, BatchReport::bronzeVersionMax),
          new RunLogColumn("input_rows", DataTypes.LongType, false, BatchReport::inputRows),
          new RunLogColumn("invalid", DataTypes.LongType, false, BatchReport::invalid),
          new RunLogColumn("exact_retries", DataTypes.LongType, false, BatchReport::exactRetries),
          new RunLogColumn("distinct_keys", DataTypes.LongType, false, BatchReport::distinctKeys),
          new RunLogColumn(
              "conflicts_in_batch", DataTypes.LongType, false, BatchReport::conflictsInBatch),
          new RunLogColumn(
              "conflicts_with_target", DataTypes.LongType, false, BatchReport::conflictsWithTarget),
          new RunLogColumn("older_ignored", DataTypes.LongType, false, BatchReport::olderIgnored),
          new RunLogColumn(
              "superseded_in_batch", DataTypes.LongType, false, BatchReport::supersededInBatch),
          new RunLogColumn("inserted", DataTypes.LongType, false, BatchReport::inserted),
          new RunLogColumn("updated", DataTypes.LongType, false, BatchReport::updated),
          new RunLogColumn("deleted", DataTypes.LongType, false, BatchReport::deleted),
          new RunLogColumn("quarantined", DataTypes.LongType, false, BatchReport::quarantined),
          new RunLogColumn("message", DataTypes.StringType, true, BatchReport::message));

  /** The run-log table's schema. */
  static final StructType RUN_LOG_SCHEMA = runLogSchema();

  private static StructType runLogSchema() {
    StructType schema = new StructType();
    for (RunLogColumn c : RUN_LOG) {
      schema = schema.add(c.name(), c.type(), c.nullable());
    }
    return schema;
  }

  /** This batch's row of the run log. */
  Row runLogRow() {
    return RowFactory.create(RUN_LOG.stream().map(c -> c.value().apply(this)).toArray());
  }

  /** One run-log column and the evidence it stores. */
  record RunLogColumn(
      String name, DataType type, boolean nullable, Function<BatchReport, Object> value) {}

  /** JSON carries the seconds to the millisecond. */
  static final class Millis extends StdSerializer<Double> {
    Millis() {
      super(Double.class);
    }

    @Override
    public void serialize(Double value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeNumber(Math.round(value * 1000) / 1000.0);
    }
  }
}
