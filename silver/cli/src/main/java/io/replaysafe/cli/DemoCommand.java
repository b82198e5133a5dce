package io.replaysafe.cli;

import io.replaysafe.common.Columns;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.io.JsonLinesExport;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.s3.S3Clients;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.jobs.PipelineRun;
import io.replaysafe.silver.BatchReport;
import io.replaysafe.silver.Note;
import io.replaysafe.silver.SilverResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

@Command(
    name = "demo",
    description =
        "The embedded default: an in-process S3 endpoint, synthetic order events in two"
            + " deliveries, bronze then silver over s3a, and what the contract did."
            + " No cloud account, no Docker, no network.")
final class DemoCommand implements Callable<Integer> {
  static final String LANDING_BUCKET = "landing";
  static final String LAKE_BUCKET = "lake";

  @picocli.CommandLine.Option(
      names = "--scd2",
      description =
          "Write a history table (storedAsScdType: 2) and show a late event placed in the past.")
  boolean scd2;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    try (EmbeddedS3Server server =
        EmbeddedS3Server.start(0, List.of(LANDING_BUCKET, LAKE_BUCKET))) {
      server.credentials().installAsSystemProperties();
      out.println("Embedded S3 endpoint on " + server.endpoint() + " (in memory)");
      PipelineConfig pipeline = demoPipeline(server.endpoint().toString(), scd2);
      StorageConfig storage = pipeline.storage().orElseThrow();
      SparkSession spark = SparkSessions.getOrCreate("replaysafe-demo");

      out.println("\n== Delivery 1");
      land(storage, DemoData.firstDelivery(), out);
      List<SilverResult> silverRuns = new ArrayList<>();
      silverRuns.add(runOnce(pipeline, spark, out));
      out.println("Bronze rows (JSON lines):");
      JsonLinesExport.write(
          spark.read().format("delta").load(pipeline.bronze().path()),
          List.of(Columns.SOURCE_FILE),
          out);

      out.println("\n== Delivery 2 (a replayed old event, a contradiction, a delete)");
      land(storage, DemoData.secondDelivery(), out);
      silverRuns.add(runOnce(pipeline, spark, out));

      List<String> order = new ArrayList<>(pipeline.requireSilver().keys());
      if (scd2) {
        out.println("\n== Delivery 3 (a late event, older than every stored version of 106)");
        land(storage, DemoData.lateDelivery(), out);
        silverRuns.add(runOnce(pipeline, spark, out));
        order.add(io.replaysafe.silver.SilverContract.START_AT);
      }

      out.println(scd2 ? "\nSilver (history, SCD type 2):" : "\nSilver (current state):");
      JsonLinesExport.write(
          spark.read().format("delta").load(pipeline.requireSilver().path()), order, out);
      out.println("Quarantine:");
      JsonLinesExport.write(
          spark
              .read()
              .format("delta")
              .load(pipeline.requireSilver().quarantinePath())
              .select("reason", "key", "sequence", "message", "source_file"),
          List.of("key", "sequence"),
          out);
      out.println("\nWhat the contract did: " + whatTheContractDid(silverRuns));
      out.flush();
    }
    return ReplaysafeCli.EXIT_OK;
  }

  private static SilverResult runOnce(
      PipelineConfig pipeline, SparkSession spark, PrintWriter out) {
    PipelineRun.Outcome run = PipelineRun.of(pipeline, spark).execute().orThrow();
    out.println(run.bronze().summary());
    SilverCommand.print(out, run.silver(), false);
    return run.silver();
  }

  /** "1 exact retry collapsed, 1 older version ignored, 1 conflict quarantined: key 102 ..." */
  static String whatTheContractDid(List<SilverResult> runs) {
    long retries = 0;
    long older = 0;
    long invalid = 0;
    long deleted = 0;
    List<String> conflicts = new ArrayList<>();
    for (SilverResult run : runs) {
      retries += run.total(BatchReport::exactRetries);
      older += run.total(BatchReport::olderIgnored);
      invalid += run.total(BatchReport::invalid);
      deleted += run.total(BatchReport::deleted);
      run.notes().stream()
          .filter(n -> n.kind() == Note.Kind.CONFLICT)
          .map(Note::text)
          .forEach(conflicts::add);
    }
    return retries
        + " exact retr"
        + (retries == 1 ? "y" : "ies")
        + " collapsed, "
        + older
        + " older version(s) ignored, "
        + conflicts.size()
        + " conflict(s) quarantined"
        + (conflicts.isEmpty() ? "" : ": " + String.join("; ", conflicts))
        + ", "
        + invalid
        + " invalid row(s) quarantined, "
        + deleted
        + " key(s) deleted (tombstones kept).";
  }

  static PipelineConfig demoPipeline(String endpoint, boolean history) throws IOException {
    try (InputStream in = DemoCommand.class.getResourceAsStream("demo-orders.yaml")) {
      String yaml =
          new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${endpoint}", endpoint);
      if (history) {
        yaml = yaml.replace("storedAsScdType: 1", "storedAsScdType: 2");
      }
      return ConfigLoader.parse("demo-orders.yaml", yaml);
    }
  }

  static void land(StorageConfig storage, Map<String, List<String>> files, PrintWriter out) {
    try (S3Client s3 = S3Clients.create(storage)) {
      for (Map.Entry<String, List<String>> file : files.entrySet()) {
        s3.putObject(
            b -> b.bucket(LANDING_BUCKET).key(file.getKey()),
            RequestBody.fromString(DemoData.body(file.getValue()), StandardCharsets.UTF_8));
        out.println(
            "Landed s3a://"
                + LANDING_BUCKET
                + "/"
                + file.getKey()
                + " ("
                + file.getValue().size()
                + " lines)");
      }
    }
  }
}
