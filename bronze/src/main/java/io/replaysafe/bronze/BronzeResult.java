package io.replaysafe.bronze;

import io.replaysafe.common.io.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one bronze run did.
 *
 * @param bronzeVersion the table's latest Delta version after the run; null when no table exists
 * @param discovery what notification mode saw besides files ({@link DiscoveryCounts#NONE} when
 *     listing)
 */
public record BronzeResult(
    String pipeline,
    long batches,
    long files,
    long rows,
    long rescuedRows,
    long corruptRows,
    Long bronzeVersion,
    double seconds,
    List<String> unreadableFiles,
    long retriedFiles,
    DiscoveryCounts discovery) {

  public BronzeResult {
    unreadableFiles = List.copyOf(unreadableFiles);
  }

  public BronzeResult(
      String pipeline,
      long batches,
      long files,
      long rows,
      long rescuedRows,
      long corruptRows,
      Long bronzeVersion,
      double seconds,
      List<String> unreadableFiles,
      long retriedFiles) {
    this(
        pipeline,
        batches,
        files,
        rows,
        rescuedRows,
        corruptRows,
        bronzeVersion,
        seconds,
        unreadableFiles,
        retriedFiles,
        DiscoveryCounts.NONE);
  }

  public BronzeResult(
      String pipeline,
      long batches,
      long files,
      long rows,
      long rescuedRows,
      long corruptRows,
      Long bronzeVersion,
      double seconds) {
    this(
        pipeline,
        batches,
        files,
        rows,
        rescuedRows,
        corruptRows,
        bronzeVersion,
        seconds,
        List.of(),
        0);
  }

  public String summary() {
    String summary =
        String.format(
            Locale.ROOT,
            "bronze %s: %d file(s), %d row(s) (%d with rescued data, %d corrupt) in %d batch(es);"
                + " bronze table version %s; %.1f s",
            pipeline,
            files,
            rows,
            rescuedRows,
            corruptRows,
            batches,
            bronzeVersion == null ? "none" : bronzeVersion.toString(),
            seconds);
    summary += discovery.summary();
    if (retriedFiles > 0) {
      summary += String.format(Locale.ROOT, "; %d file(s) re-ingested on request", retriedFiles);
    }
    if (!unreadableFiles.isEmpty()) {
      summary +=
          String.format(
              Locale.ROOT,
              "; %d file%s could not be read: %s (skipped and recorded: see 'replaysafe bad-files"
                  + " list')",
              unreadableFiles.size(),
              unreadableFiles.size() == 1 ? "" : "s",
              String.join(", ", unreadableFiles));
    }
    return summary;
  }

  public Map<String, Object> toMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("layer", "bronze");
    map.put("pipeline", pipeline);
    map.put("batches", batches);
    map.put("files", files);
    map.put("rows", rows);
    map.put("rescuedRows", rescuedRows);
    map.put("corruptRows", corruptRows);
    map.put("bronzeVersion", bronzeVersion);
    map.put("seconds", Math.round(seconds * 1000) / 1000.0);
    map.put("unreadableFiles", unreadableFiles);
    map.put("retriedFiles", retriedFiles);
    if (!discovery.equals(DiscoveryCounts.NONE)) {
      map.put("discovery", discovery.toMap());
    }
    return map;
  }

  public String toJson() {
    return Json.compact(toMap());
  }
}
