package io.replaysafe.cli;

import io.replaysafe.bronze.BadFiles;
import io.replaysafe.bronze.NotificationQueue;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SilverConfig;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.lease.LeaseClaim;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.silver.ops.Status;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code replaysafe status}: freshness, backlog, last runs and open decisions, with alerts. */
@Command(
    name = "status",
    description =
        "Source freshness, files not ingested, bronze versions not yet in silver, the last"
            + " runs, open quarantine, who writes now (a continuous run) and the freshness lag. With --max-lag, exit 3 when input waits longer.")
final class StatusCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(
      names = "--max-lag",
      paramLabel = "DURATION",
      description = "e.g. '2 hours', '30 minutes'.")
  String maxLag;

  @Option(names = "--json", description = "Print the report as one JSON object.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @ParentCommand ReplaysafeCli root;

  @Override
  public Integer call() throws Exception {
    PipelineConfig pipeline = config.load();
    // "2 hours", "30 minutes": the same words the pipeline file's durations use.
    Duration lag = maxLag == null ? null : SilverConfig.parseDuration("--max-lag", maxLag);
    SparkSession spark = ReplaysafeCli.spark(pipeline, "status");
    Instant now = root.clock().instant();
    Status.Report r = new Status(pipeline, spark).execute(lag, now);
    // Who writes now: a continuous run holds the lease for as long as it runs.
    List<LeaseClaim> writers =
        PipelineLease.holders(pipeline, spark.sparkContext().hadoopConfiguration());
    Double freshnessLag =
        r.oldestPending() == null
            ? null
            : Duration.between(r.oldestPending(), now).toMillis() / 1000.0;
    // Files bronze skipped as unreadable alert until someone retries or dismisses them.
    Map<String, String> badFiles =
        new BadFiles(pipeline, ReplaysafeCli.spark(pipeline, "status")).open();
    List<String> alerts = new ArrayList<>(r.alerts());
    badFiles.forEach(
        (path, error) ->
            alerts.add(
                "bronze could not read "
                    + path
                    + " ("
                    + error
                    + "): see 'replaysafe bad-files list'"));
    // Notification mode: the notifications waiting on the queue (Auto Loader's
    // approximateQueueSize).
    OptionalLong queue = NotificationQueue.approximateSize(pipeline);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> report = asMap(r);
      queue.ifPresent(n -> report.put("notificationQueueDepth", n));
      report.put("writers", writers.stream().map(StatusCommand::writer).toList());
      report.put("freshnessLagSeconds", freshnessLag);
      report.put("unreadableFiles", badFiles);
      report.put("alerts", alerts);
      out.println(Json.mapper().copy().findAndRegisterModules().writeValueAsString(report));
    } else {
      queue.ifPresent(
          n ->
              out.println(
                  "notification queue: " + n + " message(s) waiting (approximateQueueSize)"));
      printText(out, r, badFiles, alerts);
      out.println(
          "writer: "
              + (writers.isEmpty()
                  ? "none"
                  : String.join(
                      "; ",
                      writers.stream()
                          .map(
                              w ->
                                  "'"
                                      + w.command()
                                      + "' on host "
                                      + w.host()
                                      + ", pid "
                                      + w.pid()
                                      + ", since "
                                      + w.since())
                          .toList())));
      out.println(
          "freshness lag: "
              + (freshnessLag == null ? "none (nothing waiting)" : freshnessLag + " s"));
    }
    out.flush();
    return alerts.isEmpty() ? ReplaysafeCli.EXIT_OK : ReplaysafeCli.EXIT_ALERT;
  }

  private static void printText(
      PrintWriter out, Status.Report r, Map<String, String> badFiles, List<String> alerts) {
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
    out.println("open quarantine: " + (r.openQuarantine().isEmpty() ? "none" : r.openQuarantine()));
    out.println("last runs:");
    r.lastRuns().forEach(l -> out.println("  " + l));
    if (!r.contractHistory().isEmpty()) {
      out.println("contract history:");
      r.contractHistory().forEach(l -> out.println("  " + l));
    }
    out.println("unreadable files: " + (badFiles.isEmpty() ? "none" : badFiles.keySet()));
    alerts.forEach(a -> out.println("ALERT: " + a));
  }

  private static Map<String, Object> writer(LeaseClaim claim) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("command", claim.command());
    m.put("continuous", claim.command().endsWith(" --continuous"));
    m.put("host", claim.host());
    m.put("pid", claim.pid());
    m.put("since", claim.since());
    return m;
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
