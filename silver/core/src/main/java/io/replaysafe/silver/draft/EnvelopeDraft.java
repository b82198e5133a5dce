package io.replaysafe.silver.draft;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The silver contract {@link EnvelopeFinder} drafts for a sample of Debezium change events: one
 * derived column per field of the row image, the log position and {@code op}; the key and the
 * sequence with the evidence for them; {@code op} mapped to deletes and truncates.
 *
 * @param events the sample's change events (lines that are not JSON objects left out)
 * @param ops each {@code op} the sample holds and how often, in the order r, c, u, d, t
 * @param columns {@code silver.columns}: derived column to Spark SQL expression, in drafted order
 *     (keys, sequence, the row's other fields, {@code op})
 * @param keys key candidates in derived column names, the chosen one first; empty when no field of
 *     the row image fits a key in the sample
 * @param sequence the log position as the sequence, with its evidence
 * @param opColumn the derived column holding {@code op}
 * @param columnList the row's fields as derived columns: what lands in silver ({@code op} does not)
 * @param unavailable derived columns whose field holds {@link #UNAVAILABLE_VALUE} in the sample,
 *     with how many events hold it there, in drafted order: each is derived with the marker mapped
 *     to null, and {@link #ignoreNullUpdates()} keeps the stored value
 */
public record EnvelopeDraft(
    EnvelopeShape shape,
    long events,
    Map<String, Long> ops,
    Map<String, String> columns,
    List<Candidate> keys,
    Candidate sequence,
    String opColumn,
    List<String> columnList,
    Map<String, Long> unavailable) {

  /**
   * What Debezium writes for a column whose value it did not get: PostgreSQL does not send an
   * unchanged TOASTed column (under REPLICA IDENTITY DEFAULT).
   */
  public static final String UNAVAILABLE_VALUE = "__debezium_unavailable_value";

  /** Debezium's operations, in the order a table's life shows them, with what each one is. */
  static final Map<String, String> OPERATIONS;

  static {
    Map<String, String> ops = new LinkedHashMap<>();
    ops.put("r", "snapshot reads");
    ops.put("c", "creates");
    ops.put("u", "updates");
    ops.put("d", "deletes");
    ops.put("t", "truncates");
    OPERATIONS = Collections.unmodifiableMap(ops);
  }

  public EnvelopeDraft {
    ops = Collections.unmodifiableMap(new LinkedHashMap<>(ops));
    columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    keys = List.copyOf(keys);
    columnList = List.copyOf(columnList);
    unavailable = Collections.unmodifiableMap(new LinkedHashMap<>(unavailable));
  }

  /** A draft whose sample holds no {@link #UNAVAILABLE_VALUE}. */
  public EnvelopeDraft(
      EnvelopeShape shape,
      long events,
      Map<String, Long> ops,
      Map<String, String> columns,
      List<Candidate> keys,
      Candidate sequence,
      String opColumn,
      List<String> columnList) {
    this(shape, events, ops, columns, keys, sequence, opColumn, columnList, Map.of());
  }

  /**
   * {@code ignoreNullUpdates: true}, as silver/README.md says for Debezium's unavailable value:
   * drafted when a field holds the marker in the sample, so the stored value is kept.
   */
  public boolean ignoreNullUpdates() {
    return !unavailable.isEmpty();
  }

  /** The evidence for the marker: "notes (2 events), doc (1 event)". */
  public String unavailableEvidence() {
    List<String> parts = new ArrayList<>();
    unavailable.forEach((c, n) -> parts.add(c + " (" + n + (n == 1 ? " event)" : " events)")));
    return String.join(", ", parts);
  }

  /** The drafted {@code silver.keys}: the first candidate's columns; empty when there is none. */
  public List<String> chosenKeys() {
    return keys.isEmpty() ? List.of() : keys.get(0).columns();
  }

  /** The drafted {@code silver.sequenceBy}. */
  public List<String> sequenceBy() {
    return sequence.columns();
  }

  /** {@code applyAsDeletes}: Debezium's delete. */
  public String applyAsDeletes() {
    return EnvelopeFinder.identifier(opColumn) + " = 'd'";
  }

  /** {@code applyAsTruncates}: Debezium's truncate (current-state tables only). */
  public String applyAsTruncates() {
    return EnvelopeFinder.identifier(opColumn) + " = 't'";
  }

  /** How many of the sample's events had {@code op}. */
  public long count(String op) {
    return ops.getOrDefault(op, 0L);
  }

  /** The evidence for the op mapping: "2 r (snapshot reads), 1 c (creates), ...". */
  public String opEvidence() {
    List<String> parts = new ArrayList<>();
    ops.forEach((op, n) -> parts.add(n + " " + op + " (" + OPERATIONS.get(op) + ")"));
    return String.join(", ", parts);
  }
}
