package io.replaysafe.silver;

import static io.replaysafe.silver.BatchPreparation.INVALID_MESSAGE;
import static io.replaysafe.silver.BatchPreparation.INVALID_REASON;
import static io.replaysafe.silver.BatchPreparation.KEY_DISPLAY;
import static io.replaysafe.silver.BatchPreparation.SEQ_DISPLAY;
import static io.replaysafe.silver.SilverContract.PAYLOAD_HASH;
import static io.replaysafe.silver.SilverContract.RAW_PAYLOAD;

import io.replaysafe.common.Columns;
import io.replaysafe.common.config.EvidenceConfig;
import io.replaysafe.common.config.Policy;
import io.replaysafe.common.spark.SqlNames;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Step 7 for a batch the policy rejects: the report of why, with the rows and keys that made it
 * fail (as many as {@link #MAX_REPORTED_ROWS} and {@link #MAX_REPORTED_KEYS}). Rows are named by
 * key, sequence, file and hash, their values only under {@code evidence.showValues}: the report
 * reaches stderr, {@code --json}, the run log and {@code status}.
 */
public record Rejection(Set<Rejection.Reason> reasons, String report) {
  static final int MAX_REPORTED_ROWS = 50;
  static final int MAX_REPORTED_KEYS = 20;

  /** Which rule under a {@code fail} policy the batch broke. */
  public enum Reason {
    /** Invalid rows under {@code onInvalid: fail}. */
    INVALID_ROWS,
    /** The same key and sequence with different payloads under {@code onConflict: fail}. */
    CONFLICTS
  }

  public Rejection {
    reasons = Set.copyOf(reasons);
  }

  /** The rejection of a batch, or empty when the policy applies it (quarantining what it must). */
  static Optional<Rejection> of(
      PreparedBatch batch, Conflicts conflicts, SilverContract contract, long batchId) {
    EnumSet<Reason> reasons = EnumSet.noneOf(Reason.class);
    List<String> reports = new ArrayList<>();
    if (batch.invalidCount() > 0 && contract.silver().onInvalid() == Policy.FAIL) {
      reasons.add(Reason.INVALID_ROWS);
      reports.add(invalid(batch.invalid(), batch.invalidCount(), batchId, contract));
    }
    if (conflicts.any() && contract.silver().onConflict() == Policy.FAIL) {
      reasons.add(Reason.CONFLICTS);
      reports.add(conflicts(batch.valid(), conflicts.conflicted(), batchId, contract));
    }
    return reasons.isEmpty()
        ? Optional.empty()
        : Optional.of(new Rejection(reasons, String.join("\n", reports)));
  }

  /** The exception that stops the run: its message is the whole report. */
  BatchRejectedException exception() {
    return SilverErrors.rejected(this);
  }

  private static String invalid(
      Dataset<Row> invalid, long count, long batchId, SilverContract contract) {
    EvidenceConfig evidence = contract.pipeline().evidence();
    StringBuilder sb =
        new StringBuilder(
            "Cannot apply batch "
                + batchId
                + " to silver "
                + contract.silver().path()
                + ": "
                + count
                + " invalid row(s) and onInvalid is fail. Nothing was written and the silver"
                + " checkpoint did not advance; fix the source rows (or set onInvalid: quarantine)"
                + " and run again.");
    for (Row r :
        invalid
            .select(INVALID_REASON, INVALID_MESSAGE, Columns.SOURCE_FILE, RAW_PAYLOAD)
            .orderBy(Columns.SOURCE_FILE, RAW_PAYLOAD)
            .limit(MAX_REPORTED_ROWS)
            .collectAsList()) {
      sb.append("\n  ")
          .append(r.getString(0))
          .append(": ")
          .append(r.getString(1))
          .append(" in ")
          .append(r.getString(2))
          .append(" (")
          .append(evidence.show(r.getString(3)))
          .append(")");
    }
    if (count > MAX_REPORTED_ROWS) {
      sb.append("\n  ... and ").append(count - MAX_REPORTED_ROWS).append(" more invalid row(s)");
    }
    return sb.toString();
  }

  private static String conflicts(
      Dataset<Row> valid, Dataset<Row> conflicted, long batchId, SilverContract contract) {
    EvidenceConfig evidence = contract.pipeline().evidence();
    StringBuilder sb =
        new StringBuilder(
            "Cannot merge batch "
                + batchId
                + " into silver "
                + contract.silver().path()
                + ": onConflict is fail and the same key and sequence carry different payloads."
                + " Nothing was written and the silver checkpoint did not advance; correct the"
                + " producer's data (or set onConflict: quarantine) and run again.");
    long keys = conflicted.count();
    sb.append("\n  ").append(keys).append(" conflicted key(s)");
    for (Row r :
        conflicted
            .select(Quarantine.CONFLICT_DESCRIPTION)
            .orderBy(Quarantine.CONFLICT_DESCRIPTION)
            .limit(MAX_REPORTED_KEYS)
            .collectAsList()) {
      sb.append("\n  ").append(r.getString(0));
    }
    if (keys > MAX_REPORTED_KEYS) {
      sb.append("\n  ... and ").append(keys - MAX_REPORTED_KEYS).append(" more key(s)");
    }
    Dataset<Row> rows = valid.join(conflicted, SqlNames.seq(contract.keys()), "left_semi");
    long count = rows.count();
    sb.append("\n  rows (")
        .append(Math.min(count, MAX_REPORTED_ROWS))
        .append(" of ")
        .append(count)
        .append("):");
    for (Row r :
        rows.select(KEY_DISPLAY, SEQ_DISPLAY, PAYLOAD_HASH, Columns.SOURCE_FILE, RAW_PAYLOAD)
            .orderBy(KEY_DISPLAY, SEQ_DISPLAY, PAYLOAD_HASH, Columns.SOURCE_FILE)
            .limit(MAX_REPORTED_ROWS)
            .collectAsList()) {
      sb.append("\n    key ")
          .append(r.getString(0))
          .append(" sequence ")
          .append(r.getString(1))
          .append(" hash ")
          .append(r.getString(2), 0, 12)
          .append(" in ")
          .append(r.getString(3));
      if (evidence.showValues()) {
        sb.append(" (").append(evidence.show(r.getString(4))).append(")");
      }
    }
    return sb.toString();
  }
}
