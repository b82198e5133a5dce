package io.replaysafe.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.SilverErrors;
import io.replaysafe.silver.ops.Check;
import io.replaysafe.silver.ops.KeySelection;
import io.replaysafe.silver.ops.QuarantineOps;
import io.replaysafe.silver.ops.Reconcile;
import io.replaysafe.silver.ops.Repair;
import io.replaysafe.silver.ops.Status;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The on-call commands: repair, reconcile, check, status, quarantine. */
final class OpsCommands {
  /** Exit code of {@code status} and {@code check} when a threshold or rule is crossed. */
  static final int EXIT_ALERT = io.replaysafe.common.ErrorKind.ALERT.exitCode();

  private OpsCommands() {}

  static SparkSession spark(PipelineConfig pipeline, String what) {
    return SparkSessions.getOrCreate("replaysafe-" + what + "-" + pipeline.name());
  }

  @Command(
      name = "repair",
      description =
          "Recompute the state of the named keys from their full bronze history and apply it,"
              + " touching no other key. Prints the keys' rows before and after.")
  static final class RepairCommand implements Callable<Integer> {
    @Mixin ConfigOption config;

    @Option(
        names = "--keys",
        paramLabel = "K1,K2",
        description = "Keys as reports print them (several key columns: v1/v2).")
    String keys;

    @Option(names = "--keys-file", paramLabel = "FILE", description = "One key per line.")
    Path keysFile;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PipelineConfig pipeline = config.load();
      KeySelection selection = KeySelection.of(keys, keysFile);
      SparkSession spark = spark(pipeline, "repair");
      Repair.Outcome outcome =
          PipelineLease.holding(
              pipeline, spark, "repair", () -> new Repair(pipeline, spark).execute(selection));
      PrintWriter out = spec.commandLine().getOut();
      out.println("before:");
      outcome.before().forEach(r -> out.println("  " + r));
      out.println("after:");
      outcome.after().forEach(r -> out.println("  " + r));
      out.println(
          outcome.report() == null ? "no bronze rows for these keys" : outcome.report().summary());
      out.flush();
      return ReplaysafeCli.EXIT_OK;
    }
  }

  @Command(
      name = "reconcile",
      description =
          "Compare a source-of-truth key extract with silver; report keys silver holds that the"
              + " source does not, and with --apply delete them through tombstones.")
  static final class ReconcileCommand implements Callable<Integer> {
    @Mixin ConfigOption config;

    @Option(
        names = "--source-keys",
        required = true,
        paramLabel = "FILE",
        description = "One key per line.")
    Path sourceKeys;

    @Option(
        names = "--apply",
        description = "Delete the missing keys (tombstones keep them deleted).")
    boolean apply;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PipelineConfig pipeline = config.load();
      SparkSession spark = spark(pipeline, "reconcile");
      Supplier<Reconcile.Outcome> reconcile =
          () ->
              new Reconcile(pipeline, spark)
                  .execute(KeySelection.of(null, sourceKeys), sourceKeys.toString(), apply);
      Reconcile.Outcome o =
          apply
              ? PipelineLease.holding(pipeline, spark, "reconcile --apply", reconcile)
              : reconcile.get();
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "reconcile "
              + pipeline.name()
              + ": silver holds "
              + o.silverKeys()
              + " key(s), the source "
              + o.sourceKeys()
              + "; "
              + o.missingAtSource()
              + " key(s) in silver are missing at the source"
              + (o.applied()
                  ? " and were deleted (tombstones kept)"
                  : apply ? "" : " (report only; --apply deletes them)"));
      o.sample().forEach(k -> out.println("  missing at source: " + k));
      out.flush();
      return ReplaysafeCli.EXIT_OK;
    }
  }

  @Command(
      name = "check",
      description =
          "Key uniqueness of silver and CHECK constraints (given or on the table): violations"
              + " counted and sampled. Exit 3 when something is violated.")
  static final class CheckCommand implements Callable<Integer> {
    @Mixin ConfigOption config;

    @Option(
        names = "--constraint",
        paramLabel = "NAME=PREDICATE",
        description = "A CHECK constraint; repeatable.")
    List<String> constraints;

    @Option(
        names = "--add",
        description = "Add each given constraint that no existing row violates; refuse the others.")
    boolean add;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PipelineConfig pipeline = config.load();
      Map<String, String> given = new LinkedHashMap<>();
      for (String c : constraints == null ? List.<String>of() : constraints) {
        int eq = c.indexOf('=');
        if (eq <= 0 || !c.substring(0, eq).matches("[A-Za-z_][A-Za-z0-9_]*")) {
          throw SilverErrors.badConstraintArgument(c);
        }
        given.put(c.substring(0, eq), c.substring(eq + 1));
      }
      SparkSession spark = spark(pipeline, "check");
      Supplier<Check.Outcome> check = () -> new Check(pipeline, spark).execute(given, add);
      Check.Outcome o =
          add ? PipelineLease.holding(pipeline, spark, "check --add", check) : check.get();
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "check "
              + pipeline.name()
              + ": "
              + o.rows()
              + " row(s); "
              + o.duplicateKeys()
              + " key(s) held more than once");
      o.duplicateSample().forEach(d -> out.println("  duplicate key: " + d));
      for (Check.ConstraintResult c : o.constraints()) {
        out.println(
            "constraint "
                + c.name()
                + " ("
                + c.predicate()
                + "): "
                + c.violations()
                + " violating row(s); "
                + c.state());
        c.sample().forEach(s -> out.println("  " + s));
      }
      out.flush();
      boolean refused = o.constraints().stream().anyMatch(c -> c.state().startsWith("refused"));
      return o.clean()
          ? ReplaysafeCli.EXIT_OK
          : refused ? io.replaysafe.common.ErrorKind.REJECTED.exitCode() : EXIT_ALERT;
    }
  }

  @Command(
      name = "status",
      description =
          "Source freshness, files not ingested, bronze versions not yet in silver, the last"
              + " runs, open quarantine. With --max-lag, exit 3 when input waits longer.")
  static final class StatusCommand implements Callable<Integer> {
    @Mixin ConfigOption config;

    @Option(
        names = "--max-lag",
        paramLabel = "DURATION",
        description = "e.g. '2 hours', '30 minutes'.")
    String maxLag;

    @Option(names = "--json", description = "Print the report as one JSON object.")
    boolean json;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @picocli.CommandLine.ParentCommand ReplaysafeCli root;

    @Override
    public Integer call() throws Exception {
      PipelineConfig pipeline = config.load();
      Duration lag = maxLag == null ? null : Durations.parse("--max-lag", maxLag);
      Status.Report r =
          new Status(pipeline, spark(pipeline, "status")).execute(lag, root.clock().instant());
      // Files bronze skipped as unreadable alert until someone retries or dismisses them.
      Map<String, String> badFiles =
          new io.replaysafe.bronze.BadFiles(pipeline, spark(pipeline, "status")).open();
      List<String> alerts = new java.util.ArrayList<>(r.alerts());
      badFiles.forEach(
          (path, error) ->
              alerts.add(
                  "bronze could not read "
                      + path
                      + " ("
                      + error
                      + "): see 'replaysafe bad-files list'"));
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        Map<String, Object> report = asMap(r);
        report.put("unreadableFiles", badFiles);
        report.put("alerts", alerts);
        out.println(new ObjectMapper().findAndRegisterModules().writeValueAsString(report));
      } else {
        out.println(
            "source: "
                + r.sourceFiles()
                + " file(s), newest "
                + r.newestSourceFile()
                + ", "
                + r.filesNotIngested()
                + " not ingested yet");
        out.println(
            "bronze: version "
                + r.bronzeVersion()
                + "; silver has processed up to bronze version "
                + r.silverProcessedVersion()
                + " ("
                + r.bronzeVersionsPending()
                + " bronze commit(s) pending)");
        out.println(
            "oldest input not yet in silver: "
                + (r.oldestPending() == null ? "none" : r.oldestPending()));
        out.println(
            "open quarantine: " + (r.openQuarantine().isEmpty() ? "none" : r.openQuarantine()));
        out.println("last runs:");
        r.lastRuns().forEach(l -> out.println("  " + l));
        if (!r.contractHistory().isEmpty()) {
          out.println("contract history:");
          r.contractHistory().forEach(l -> out.println("  " + l));
        }
        out.println("unreadable files: " + (badFiles.isEmpty() ? "none" : badFiles.keySet()));
        alerts.forEach(a -> out.println("ALERT: " + a));
      }
      out.flush();
      return alerts.isEmpty() ? ReplaysafeCli.EXIT_OK : EXIT_ALERT;
    }

    private static Map<String, Object> asMap(Status.Report r) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("newestSourceFile", String.valueOf(r.newestSourceFile()));
      m.put("sourceFiles", r.sourceFiles());
      m.put("filesNotIngested", r.filesNotIngested());
      m.put("bronzeVersion", r.bronzeVersion());
      m.put("silverProcessedVersion", r.silverProcessedVersion());
      m.put("bronzeVersionsPending", r.bronzeVersionsPending());
      m.put("oldestPending", r.oldestPending() == null ? null : r.oldestPending().toString());
      m.put("openQuarantine", r.openQuarantine());
      m.put("lastRuns", r.lastRuns());
      m.put("alerts", r.alerts());
      m.put("contractHistory", r.contractHistory());
      return m;
    }
  }

  @Command(
      name = "quarantine",
      description =
          "The quarantine's exit path: list open rows, release or discard them with a recorded decision.",
      subcommands = {QuarantineList.class, QuarantineRelease.class, QuarantineDiscard.class})
  static final class QuarantineCommand implements Runnable {
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "Missing a subcommand: list, release or discard");
    }
  }

  @Command(name = "list", description = "Open quarantine rows as JSON lines.")
  static final class QuarantineList implements Callable<Integer> {
    @Mixin ConfigOption config;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PipelineConfig pipeline = config.load();
      io.replaysafe.common.io.JsonLinesExport.write(
          new QuarantineOps(pipeline, spark(pipeline, "quarantine")).open(),
          List.of("key", "sequence", "quarantine_id"),
          spec.commandLine().getOut());
      return ReplaysafeCli.EXIT_OK;
    }
  }

  abstract static class Decision implements Callable<Integer> {
    @Mixin ConfigOption config;

    @Option(
        names = "--ids",
        required = true,
        paramLabel = "ID1,ID2",
        description = "quarantine_id values.")
    String ids;

    @Option(names = "--by", required = true, description = "Who decided.")
    String by;

    @Option(names = "--reason", required = true, description = "Why (recorded on the rows).")
    String reason;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    List<String> idList() {
      return Arrays.stream(ids.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
  }

  @Command(
      name = "release",
      description =
          "Apply the chosen rows to silver (their payload wins at their sequence) and record why.")
  static final class QuarantineRelease extends Decision {
    @Override
    public Integer call() {
      PipelineConfig pipeline = config.load();
      SparkSession spark = spark(pipeline, "quarantine");
      QuarantineOps.Released released =
          PipelineLease.holding(
              pipeline,
              spark,
              "quarantine release",
              () -> new QuarantineOps(pipeline, spark).release(idList(), by, reason));
      var out = spec.commandLine().getOut();
      out.println(
          "released "
              + released.released()
              + " row(s); "
              + released.changed()
              + " silver row(s) changed");
      released.leftOpen().forEach((id, why) -> out.println("  left OPEN " + id + ": " + why));
      out.flush();
      // A release that could not take effect is not a success: the row waits for a decision.
      return released.leftOpen().isEmpty() ? ReplaysafeCli.EXIT_OK : ReplaysafeCli.EXIT_FAILURE;
    }
  }

  @Command(
      name = "discard",
      description = "Close the chosen rows without applying them, and record why.")
  static final class QuarantineDiscard extends Decision {
    @Override
    public Integer call() {
      PipelineConfig pipeline = config.load();
      SparkSession spark = spark(pipeline, "quarantine");
      long n =
          PipelineLease.holding(
              pipeline,
              spark,
              "quarantine discard",
              () -> new QuarantineOps(pipeline, spark).discard(idList(), by, reason));
      spec.commandLine().getOut().println("discarded " + n + " row(s)");
      spec.commandLine().getOut().flush();
      return ReplaysafeCli.EXIT_OK;
    }
  }

  /** "2 hours", "30 minutes": the same words the pipeline file's durations use. */
  static final class Durations {
    private Durations() {}

    static Duration parse(String where, String text) {
      return io.replaysafe.common.config.SilverConfig.parseDuration(where, text);
    }
  }
}
