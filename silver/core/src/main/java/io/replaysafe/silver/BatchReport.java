package io.replaysafe.silver;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The evidence of one silver micro-batch: what came in and what the contract did with each row.
 *
 * @param exactRetries copies collapsed in the batch plus versions equal to the stored one
 * @param olderIgnored latest versions older than what silver (or a tombstone) already holds
 * @param supersededInBatch versions replaced by a newer one of the same key in the same batch
 * @param notes the first few decisions (printed "key 101 sequence 1: older than ...")
 */
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
    double seconds,
    List<Note> notes) {

  public BatchReport {
    notes = List.copyOf(notes);
  }

  public String summary() {
    return String.format(
        Locale.ROOT,
        "batch %d: %d row(s) in, %d invalid, %d exact retr%s collapsed, %d key(s), conflicts %d in"
            + " batch / %d with target, %d older version(s) ignored, %d superseded in batch;"
            + " inserted %d, updated %d, deleted %d, quarantined %d; %.1f s",
        batchId,
        inputRows,
        invalid,
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

  public Map<String, Object> toMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("runId", runId);
    map.put("batchId", batchId);
    map.put("status", status.name());
    map.put("bronzeVersionMin", bronzeVersionMin);
    map.put("bronzeVersionMax", bronzeVersionMax);
    map.put("inputRows", inputRows);
    map.put("invalid", invalid);
    map.put("exactRetries", exactRetries);
    map.put("distinctKeys", distinctKeys);
    map.put("conflictsInBatch", conflictsInBatch);
    map.put("conflictsWithTarget", conflictsWithTarget);
    map.put("olderIgnored", olderIgnored);
    map.put("supersededInBatch", supersededInBatch);
    map.put("inserted", inserted);
    map.put("updated", updated);
    map.put("deleted", deleted);
    map.put("quarantined", quarantined);
    map.put("seconds", Math.round(seconds * 1000) / 1000.0);
    map.put("notes", notes.stream().map(Note::text).toList());
    return map;
  }
}
