package io.replaysafe.cli;

import io.replaysafe.bronze.PendingFiles;
import io.replaysafe.bronze.SampleParse;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.Policy;
import io.replaysafe.common.config.SchemaEvolutionMode;
import io.replaysafe.common.io.Json;
import io.replaysafe.jobs.DryRun;
import io.replaysafe.silver.SampleCheck;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code replaysafe plan}'s output: a {@link DryRun.Result} as text or as one JSON object. */
final class PlanReport {
  private PlanReport() {}

  static String text(DryRun.Result plan) {
    PipelineConfig pipeline = plan.pipeline();
    PendingFiles pending = plan.pending();
    SampleParse parse = plan.parse();
    SampleCheck check = plan.check();
    StringBuilder sb = new StringBuilder();
    String name = pipeline.name();
    sb.append("plan ").append(name).append(": dry run, nothing was written\n");
    sb.append("bronze would ingest next: ")
        .append(pending.files().size())
        .append(" file(s), ")
        .append(pending.bytes())
        .append(" byte(s)");
    pending.oldest().ifPresent(t -> sb.append(", oldest ").append(t));
    pending.newest().ifPresent(t -> sb.append(", newest ").append(t));
    sb.append(" (already ingested: ").append(pending.alreadyIngested());
    if (pending.tooOld() > 0) {
      sb.append("; skipped as older than maxFileAge: ").append(pending.tooOld());
    }
    sb.append(")\n");
    if (parse == null) {
      sb.append("nothing new to sample\n");
    } else {
      sb.append("sample: ")
          .append(parse.files())
          .append(" file(s), ")
          .append(parse.rows())
          .append(" row(s) parsed as bronze parses them\n");
      sb.append("  rows with rescued data: ").append(parse.rescuedRows()).append('\n');
      parse
          .rescuedByField()
          .forEach(
              (field, rescue) -> {
                appendCount(sb, field, rescue.rows());
                rescue.examples().forEach(e -> appendExample(sb, e.text() + " in " + e.file()));
              });
      sb.append("  corrupt rows: ").append(parse.corruptRows()).append('\n');
      parse.corruptExamples().forEach(e -> appendExample(sb, e.text() + " in " + e.file()));
      if (parse.kafkaTombstones() > 0) {
        // Not corrupt: bronze keeps the line as it keeps a corrupt one, silver ignores it.
        sb.append("  Kafka tombstone records: ")
            .append(parse.kafkaTombstones())
            .append(
                " (lines that are the JSON literal null: kept by bronze, ignored by silver,"
                    + " not an error)\n");
      }
    }
    if (check != null) {
      sb.append("silver contract on the sample:\n");
      if (pipeline.requireSilver().derives()) {
        // The contract reads the derived columns only: say which, so keys, payload and silver's
        // columns are not looked for among bronze's.
        sb.append("  business columns: ")
            .append(String.join(", ", pipeline.businessColumns()))
            .append(", derived by silver.columns from bronze's ")
            .append(String.join(", ", pipeline.sourceColumns()))
            .append(" (which are neither payload nor in silver)\n");
      }
      sb.append("  invalid rows: ")
          .append(check.invalidRows())
          .append(" (onInvalid: ")
          .append(policy(pipeline.requireSilver().onInvalid()))
          .append(")\n");
      check
          .invalidByReason()
          .forEach(
              (reason, invalid) -> {
                appendCount(sb, reason, invalid.rows());
                invalid.examples().forEach(e -> appendExample(sb, e));
              });
      sb.append("  exact retries: ")
          .append(check.exactRetries())
          .append(" row(s) (collapsed into one, not an error)\n");
      sb.append("  conflicts: ")
          .append(check.conflicts())
          .append(" key/sequence pair(s) (onConflict: ")
          .append(policy(pipeline.requireSilver().onConflict()))
          .append(")\n");
      check.conflictExamples().forEach(e -> sb.append("    ").append(e).append('\n'));
      if (check.truncateEvents() > 0) {
        sb.append("  truncate events: ").append(check.truncateEvents()).append('\n');
      }
    }
    sb.append("plan ").append(name).append(": ").append(verdict(plan));
    return sb.toString();
  }

  /** One line under a heading, indented: {@code <what>: <n> row(s)}. */
  private static void appendCount(StringBuilder sb, String what, long rows) {
    sb.append("    ").append(what).append(": ").append(rows).append(" row(s)\n");
  }

  /** One example under a count, indented one step further. */
  private static void appendExample(StringBuilder sb, String example) {
    sb.append("      ").append(example).append('\n');
  }

  private static String verdict(DryRun.Result plan) {
    PipelineConfig pipeline = plan.pipeline();
    SampleParse parse = plan.parse();
    SampleCheck check = plan.check();
    if (plan.clean()) {
      if (parse == null) {
        return "nothing to ingest";
      }
      return parse.kafkaTombstones() == 0
          ? "the sample is clean"
          : "the sample is clean ("
              + parse.kafkaTombstones()
              + " Kafka tombstone record(s) ignored)";
    }
    List<String> findings = new ArrayList<>();
    List<String> newFields =
        parse == null ? List.of() : parse.newFields(pipeline.source().schema());
    if (pipeline.source().schemaEvolutionMode() == SchemaEvolutionMode.FAIL_ON_NEW_COLUMNS
        && !newFields.isEmpty()) {
      findings.add(
          "bronze would stop at new field(s) "
              + String.join(", ", newFields)
              + " (schemaEvolutionMode: failOnNewColumns)");
    }
    if (parse != null && parse.rescuedRows() > 0) {
      findings.add("bronze would rescue data in " + parse.rescuedRows() + " row(s)");
    }
    if (parse != null && parse.corruptRows() > 0) {
      findings.add("bronze would keep " + parse.corruptRows() + " corrupt row(s)");
    }
    if (check != null && check.invalidRows() > 0) {
      findings.add(
          silverWould(
              pipeline.requireSilver().onInvalid(), check.invalidRows() + " invalid row(s)"));
    }
    if (check != null && check.conflicts() > 0) {
      findings.add(
          silverWould(pipeline.requireSilver().onConflict(), check.conflicts() + " conflict(s)"));
    }
    return String.join("; ", findings) + " (exit 3)";
  }

  private static String policy(Policy policy) {
    return policy == Policy.FAIL ? "fail" : "quarantine";
  }

  private static String silverWould(Policy policy, String what) {
    return "silver would "
        + (policy == Policy.FAIL ? "reject the batch for" : "quarantine")
        + " "
        + what;
  }

  static Map<String, Object> map(DryRun.Result plan) {
    PipelineConfig pipeline = plan.pipeline();
    PendingFiles pending = plan.pending();
    SampleParse parse = plan.parse();
    SampleCheck check = plan.check();
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("pipeline", pipeline.name());
    map.put("clean", plan.clean());
    Map<String, Object> next = new LinkedHashMap<>();
    next.put("files", pending.files().size());
    next.put("bytes", pending.bytes());
    next.put("oldest", pending.oldest().map(Object::toString).orElse(null));
    next.put("newest", pending.newest().map(Object::toString).orElse(null));
    next.put("alreadyIngested", pending.alreadyIngested());
    next.put("skippedOlderThanMaxFileAge", pending.tooOld());
    map.put("pending", next);
    Map<String, Object> sample = null;
    if (parse != null) {
      sample = new LinkedHashMap<>();
      sample.put("files", plan.sampled());
      sample.put("rows", parse.rows());
      sample.put("rescuedRows", parse.rescuedRows());
      Map<String, Object> byField = new LinkedHashMap<>();
      parse
          .rescuedByField()
          .forEach(
              (field, rescue) -> {
                // Ordered like every other object in the plan: the count, then the examples.
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("rows", rescue.rows());
                entry.put("examples", rescue.examples());
                byField.put(field, entry);
              });
      sample.put("rescuedByField", byField);
      sample.put("corruptRows", parse.corruptRows());
      sample.put("corruptExamples", parse.corruptExamples());
      sample.put("tombstoneRecords", parse.kafkaTombstones());
    }
    map.put("sample", sample);
    Map<String, Object> silver = null;
    if (check != null) {
      silver = new LinkedHashMap<>();
      silver.put("rows", check.rows());
      silver.put("invalidRows", check.invalidRows());
      silver.put("invalidByReason", check.invalidByReason());
      silver.put("exactRetries", check.exactRetries());
      silver.put("conflicts", check.conflicts());
      silver.put("conflictExamples", check.conflictExamples());
      silver.put("truncateEvents", check.truncateEvents());
      silver.put("businessColumns", pipeline.businessColumns());
      silver.put("derived", pipeline.requireSilver().derives());
    }
    map.put("silver", silver);
    return map;
  }

  static String json(DryRun.Result plan) {
    return Json.compact(map(plan));
  }
}
