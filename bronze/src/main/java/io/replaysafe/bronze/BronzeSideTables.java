package io.replaysafe.bronze;

import io.replaysafe.common.config.PipelineConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.fs.Path;

/** The Delta tables bronze keeps beside its own, by the name reports give them. */
public final class BronzeSideTables {
  private BronzeSideTables() {}

  /** The bad-files table and the file state (in bronze's checkpoint). */
  public static Map<String, String> of(PipelineConfig config) {
    Map<String, String> tables = new LinkedHashMap<>();
    tables.put("bad files", BadFiles.pathFor(config));
    tables.put(
        "file state", new Path(config.bronze().checkpoint(), FileState.DIRECTORY).toString());
    return tables;
  }
}
