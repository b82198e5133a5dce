package io.replaysafe.cli;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.silver.ops.Erase;
import io.replaysafe.silver.ops.KeySelection;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code replaysafe erase}: a person's keys removed from every layer, at their request. */
@Command(
    name = "erase",
    description =
        "Remove the named keys' data from bronze, silver (or the history), the tombstones and the"
            + " quarantine, and rewrite the files that held it, so that a VACUUM removes it"
            + " physically. Keeps the key and its highest sequence only, so that no older event"
            + " brings it back; records the request (who, why, when, rows per table) in the erase"
            + " log. Run it again with the same keys to complete an erase that was interrupted.")
final class EraseCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Mixin KeysOption keys;

  @Option(
      names = "--reason",
      paramLabel = "WHY",
      description = "Why, for the erase log (a ticket number; no personal data).")
  String reason;

  @Option(
      names = "--by",
      paramLabel = "WHO",
      description = "Who asked or approved, for the erase log.")
  String by;

  @Option(names = "--json", description = "Print the outcome as one JSON object.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PipelineConfig pipeline = config.load();
    KeySelection selection = keys.selection();
    SparkSession spark = ReplaysafeCli.spark(pipeline, "erase");
    Erase.Outcome o =
        PipelineLease.holding(
            pipeline,
            spark,
            "erase",
            () -> new Erase(pipeline, spark).execute(selection, reason, by));
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(Json.compact(toMap(pipeline, o)));
      out.flush();
      return ReplaysafeCli.EXIT_OK;
    }
    // The keys themselves are not printed: a scheduler's log is no place for them either.
    out.println(
        "erase "
            + pipeline.name()
            + " "
            + o.requestId()
            + ": "
            + o.keysErased()
            + " of "
            + o.keysRequested()
            + " key(s) erased, "
            + o.rowsRemoved()
            + " row(s) removed ("
            + String.join(
                ", ",
                o.removed().entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList())
            + ")");
    if (o.keysRequested() > o.keysErased()) {
      out.println(
          "  "
              + (o.keysRequested() - o.keysErased())
              + " key(s) not found in any layer, nothing recorded for them: "
              + String.join(", ", o.notFound())
              + (o.keysRequested() - o.keysErased() > o.notFound().size() ? ", ..." : ""));
    }
    o.rewritten()
        .forEach(t -> out.println("  rewritten: " + t + " (VACUUM it to remove the old files)"));
    o.sourceFiles()
        .forEach(f -> out.println("  landing file held erased rows (the producer's copy): " + f));
    out.flush();
    return ReplaysafeCli.EXIT_OK;
  }

  private static Map<String, Object> toMap(PipelineConfig pipeline, Erase.Outcome o) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("pipeline", pipeline.name());
    map.put("requestId", o.requestId());
    map.put("keysRequested", o.keysRequested());
    map.put("keysErased", o.keysErased());
    map.put("keysNotFound", o.keysRequested() - o.keysErased());
    map.put("rowsRemoved", o.removed());
    map.put("rewritten", o.rewritten());
    map.put("sourceFiles", o.sourceFiles());
    return map;
  }
}
