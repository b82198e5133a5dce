package io.replaysafe.bronze;

import io.replaysafe.common.io.Json;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What one bronze run did.
 *
 * @param bronzeVersion the table's latest Delta version after the run; null when no table exists
 */
public record BronzeResult(
    String pipeline,
    long batches,
    long files,
    long rows,
    long rescuedRows,
    long corruptRows,
    Long bronzeVersion,
    double seconds) {

  public String summary() {
    return String.format(
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
    return map;
  }

  public String toJson() {
    return Json.compact(toMap());
  }
}
