package io.replaysafe.silver;

import io.replaysafe.common.io.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/** What one silver run did: its batches' reports and their totals. */
public record SilverResult(
    String pipeline,
    List<BatchReport> batches,
    long purgedTombstones,
    Long silverVersion,
    double seconds) {

  public long total(ToLongFunction<BatchReport> field) {
    return batches.stream().mapToLong(field).sum();
  }

  public String summary() {
    return String.format(
        Locale.ROOT,
        "silver %s: %d batch(es), %d row(s) in; %d invalid%s, %d exact retr%s collapsed, %d older"
            + " version(s) ignored, %d conflict(s) (%d in batch, %d with target), %d quarantined;"
            + " inserted %d, updated %d, deleted %d; silver table version %s; %.1f s",
        pipeline,
        batches.size(),
        total(BatchReport::inputRows),
        total(BatchReport::invalid),
        BatchReport.tombstones(total(BatchReport::tombstoneRecords)),
        total(BatchReport::exactRetries),
        total(BatchReport::exactRetries) == 1 ? "y" : "ies",
        total(BatchReport::olderIgnored),
        total(BatchReport::conflictsInBatch) + total(BatchReport::conflictsWithTarget),
        total(BatchReport::conflictsInBatch),
        total(BatchReport::conflictsWithTarget),
        total(BatchReport::quarantined),
        total(BatchReport::inserted),
        total(BatchReport::updated),
        total(BatchReport::deleted),
        silverVersion == null ? "none" : silverVersion.toString(),
        seconds);
  }

  /** Every batch's notable decisions, in order. */
  public List<Note> notes() {
    List<Note> notes = new ArrayList<>();
    batches.forEach(b -> notes.addAll(b.notes()));
    return notes;
  }

  public Map<String, Object> toMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("layer", "silver");
    map.put("pipeline", pipeline);
    map.put("batches", batches.size());
    map.put("inputRows", total(BatchReport::inputRows));
    map.put("invalid", total(BatchReport::invalid));
    long tombstoneRecords = total(BatchReport::tombstoneRecords);
    if (tombstoneRecords > 0) {
      map.put("tombstoneRecords", tombstoneRecords);
    }
    map.put("exactRetries", total(BatchReport::exactRetries));
    map.put("distinctKeys", total(BatchReport::distinctKeys));
    map.put("conflictsInBatch", total(BatchReport::conflictsInBatch));
    map.put("conflictsWithTarget", total(BatchReport::conflictsWithTarget));
    map.put("olderIgnored", total(BatchReport::olderIgnored));
    map.put("supersededInBatch", total(BatchReport::supersededInBatch));
    map.put("inserted", total(BatchReport::inserted));
    map.put("updated", total(BatchReport::updated));
    map.put("deleted", total(BatchReport::deleted));
    map.put("quarantined", total(BatchReport::quarantined));
    map.put("purgedTombstones", purgedTombstones);
    map.put("silverVersion", silverVersion);
    map.put("seconds", Math.round(seconds * 1000) / 1000.0);
    map.put("batchReports", batches);
    return map;
  }

  public String toJson() {
    return Json.compact(toMap());
  }
}
