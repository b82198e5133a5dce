package io.replaysafe.cli;

import io.replaysafe.bronze.PendingFiles;
import io.replaysafe.bronze.SampleParse;
import io.replaysafe.common.ErrorMessages;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.Policy;
import io.replaysafe.common.config.SchemaEvolutionMode;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.SampleCheck;
import io.replaysafe.silver.SilverContract;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * A dry run of the next {@code replaysafe run}: which files bronze would ingest, what the bronze
 * parser makes of a sample of them, and what the silver contract's batch checks find in that
 * sample. It reads the source and the bronze checkpoint and writes nothing anywhere: no table, no
 * checkpoint, no directory.
 */
public final class Plan {
  public static final int SAMPLE_FILES_DEFAULT = 10;
  public static final long SAMPLE_BYTES_DEFAULT = 64L << 20;

  private Plan() {}

  /**
   * What the plan found.
   *
   * @param sampled the files parsed (the first pending ones, in the order bronze takes them)
   * @param parse null when nothing is pending
   * @param check null when nothing is pending or the pipeline has no silver section
   */
  public record Result(
      PipelineConfig pipeline,
      PendingFiles pending,
      List<String> sampled,
      SampleParse parse,
      SampleCheck check) {

    /** True when the sample would be ingested and applied without rescue, quarantine or reject. */
    public boolean clean() {
      return (parse == null || parse.clean()) && (check == null || check.clean());
    }

    public String toText() {
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
      }
      if (check != null) {
        sb.append("silver contract on the sample:\n");
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
      sb.append("plan ").append(name).append(": ").append(verdict());
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

    private String verdict() {
      if (clean()) {
        return parse == null ? "nothing to ingest" : "the sample is clean";
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

    public Map<String, Object> toMap() {
      Map<String, Object> map = new LinkedHashMap<>();
      map.put("pipeline", pipeline.name());
      map.put("clean", clean());
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
        sample.put("files", sampled);
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
      }
      map.put("silver", silver);
      return map;
    }

    public String toJson() {
      return Json.compact(toMap());
    }
  }

  /** Plans the next run; reads only. */
  public static Result of(
      SparkSession spark, PipelineConfig pipeline, int sampleFiles, long sampleBytes) {
    SparkSessions.applyStorage(spark, pipeline.storage());
    PendingFiles pending = PendingFiles.of(spark, pipeline);
    List<String> sampled =
        pending.sample(sampleFiles, sampleBytes).stream()
            .map(PendingFiles.PendingFile::path)
            .toList();
    if (sampled.isEmpty()) {
      return new Result(pipeline, pending, sampled, null, null);
    }
    // Parsed in rescue mode even under failOnNewColumns, so the plan reports every new field
    // (and what else the sample holds) instead of stopping at the first, as the run would.
    SourceConfig source = pipeline.source();
    SourceConfig rescuing =
        new SourceConfig(
            source.path(),
            source.format(),
            source.schema(),
            source.rescuedDataColumn(),
            SchemaEvolutionMode.RESCUE,
            source.options(),
            source.maxLineBytes());
    Dataset<Row> rows =
        SampleParse.bronzeRows(spark, rescuing, sampled).persist(StorageLevel.MEMORY_AND_DISK());
    try {
      SampleParse parse = SampleParse.summarize(rows, pipeline.source(), sampled.size());
      SampleCheck check =
          pipeline.silver().isPresent()
              ? SampleCheck.of(spark, rows, new SilverContract(pipeline))
              : null;
      return new Result(pipeline, pending, sampled, parse, check);
    } catch (Exception e) { // SparkException is checked, but thrown from Scala unchecked
      // A sample file with a line over source.maxLineBytes: say so, not Spark's "cannot read".
      io.replaysafe.common.ReplaysafeException known = ErrorMessages.raisedOnPurpose(e);
      if (known != null) {
        throw known;
      }
      throw e;
    } finally {
      rows.unpersist();
    }
  }
}
