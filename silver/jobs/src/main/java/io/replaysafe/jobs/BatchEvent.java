package io.replaysafe.jobs;

import io.replaysafe.bronze.BronzeBatch;
import io.replaysafe.silver.BatchReport;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One micro-batch of one layer of a continuous run, as its progress line on stderr and its JSON
 * line with {@code --json}: rows, what the layer did with them, seconds, and the freshness lag
 * (from the oldest source file's landing to the batch's end).
 *
 * @param counts what the layer did: bronze's files, rescued and corrupt rows; silver's decisions
 * @param lagSeconds null when the batch's rows carry no landing time
 */
public record BatchEvent(
    String layer,
    String pipeline,
    long batchId,
    long rows,
    Map<String, Long> counts,
    double seconds,
    Double lagSeconds,
    Instant endedAt) {

  public BatchEvent {
    // In the order the layer gave them: the line and the JSON list them so.
    counts = Collections.unmodifiableMap(new LinkedHashMap<>(counts));
  }

  static BatchEvent bronze(String pipeline, BronzeBatch batch) {
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("files", (long) batch.files());
    counts.put("rescued", batch.rescued());
    counts.put("corrupt", batch.corrupt());
    return new BatchEvent(
        PipelineRun.Layer.BRONZE.label(),
        pipeline,
        batch.batchId(),
        batch.rows(),
        counts,
        batch.seconds(),
        lag(batch.oldestLanded(), batch.endedAt()),
        batch.endedAt());
  }

  static BatchEvent silver(String pipeline, BatchReport report, Instant oldestLanded, Instant now) {
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("inserted", report.inserted());
    counts.put("updated", report.updated());
    counts.put("deleted", report.deleted());
    counts.put("exactRetries", report.exactRetries());
    counts.put("olderIgnored", report.olderIgnored());
    counts.put("conflicts", report.conflictsInBatch() + report.conflictsWithTarget());
    counts.put("quarantined", report.quarantined());
    counts.put("invalid", report.invalid());
    return new BatchEvent(
        PipelineRun.Layer.SILVER.label(),
        pipeline,
        report.batchId(),
        report.inputRows(),
        counts,
        report.seconds(),
        lag(oldestLanded, now),
        now);
  }

  private static Double lag(Instant landed, Instant end) {
    return landed == null ? null : Duration.between(landed, end).toMillis() / 1000.0;
  }

  /**
   * {@code silver orders: batch 7: 40 row(s); inserted 31, updated 6, ...; 2.1 s; lag 9.8 s}: the
   * counts in a fixed order, each named as in the JSON line.
   */
  public String line() {
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT, "%s %s: batch %d: %d row(s)", layer, pipeline, batchId, rows));
    String sep = "; ";
    for (var count : counts.entrySet()) {
      line.append(sep).append(count.getKey()).append(' ').append(count.getValue());
      sep = ", ";
    }
    line.append(String.format(Locale.ROOT, "; %.1f s", seconds));
    if (lagSeconds != null) {
      line.append(String.format(Locale.ROOT, "; lag %.1f s", lagSeconds));
    }
    return line.toString();
  }

  /** The JSON line's fields, in a stable order. */
  public Map<String, Object> toMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("event", "batch");
    map.put("layer", layer);
    map.put("pipeline", pipeline);
    map.put("batchId", batchId);
    map.put("rows", rows);
    map.putAll(counts);
    map.put("seconds", Math.round(seconds * 1000) / 1000.0);
    map.put("lagSeconds", lagSeconds == null ? null : Math.round(lagSeconds * 1000) / 1000.0);
    map.put("endedAt", endedAt.toString());
    return map;
  }
}
