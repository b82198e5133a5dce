package io.replaysafe.cli;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.rehearsal.Rehearsal;
import io.replaysafe.rehearsal.RehearsalReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "rehearse",
    description =
        "The seed-004 rehearsal against a real S3 protocol endpoint: retries, restarts, replays,"
            + " an older and a conflicting version, a deleted bronze checkpoint, and the job killed"
            + " in a bronze write and in a silver MERGE. Writes report.md and report.json; exit 0"
            + " only when every assertion passed.")
final class RehearseCommand implements Callable<Integer> {
  static final String LOCALSTACK_UNAVAILABLE =
      "LocalStack backend needs Docker and the testcontainers jars; not available in this build."
          + " Use --backend embedded (the default).";

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description =
          "A pipeline file to rehearse (s3a:// paths, storage.endpoint: $${endpoint}, the order"
              + " columns of the demo, onConflict and onInvalid: quarantine). Default: the demo's"
              + " order contract on buckets rehearsal-landing and rehearsal-lake.")
  Path config;

  @Option(
      names = "--backend",
      paramLabel = "embedded|localstack",
      defaultValue = "embedded",
      description = "The S3 endpoint: embedded (in-process, default) or localstack.")
  String backend;

  @Option(
      names = "--report",
      paramLabel = "DIR",
      defaultValue = "rehearsal-report",
      description = "Where report.md and report.json go (default: ${DEFAULT-VALUE}).")
  Path reportDir;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if ("localstack".equals(backend)) {
      err.println("replaysafe: " + LOCALSTACK_UNAVAILABLE);
      err.flush();
      return ReplaysafeCli.EXIT_USAGE;
    }
    if (!"embedded".equals(backend)) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--backend must be embedded or localstack, not '" + backend + "'");
    }
    String template = null;
    if (config != null) {
      if (!Files.isRegularFile(config)) {
        throw new ConfigException(
            "Pipeline file " + config + ": it does not exist; check the --config path.");
      }
      template = Files.readString(config, StandardCharsets.UTF_8);
    }
    template = Rehearsal.pipelineYaml(template);
    // Validate before starting anything: the endpoint is only known once the server runs.
    PipelineConfig probe =
        ConfigLoader.parse(
            config == null ? "rehearsal pipeline" : config.toString(),
            template.replace("${endpoint}", "http://127.0.0.1:1"));
    List<String> buckets = Rehearsal.buckets(probe);

    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, buckets)) {
      server.credentials().installAsSystemProperties();
      err.println("rehearse: embedded S3 endpoint on " + server.endpoint() + " (in memory)");
      err.flush();
      String yaml = template.replace("${endpoint}", server.endpoint().toString());
      SparkSession spark = SparkSessions.getOrCreate("replaysafe-rehearse");
      RehearsalReport report =
          Rehearsal.run(yaml, server, spark, reportDir.resolve("work"), backend, err);
      report.write(reportDir);
      long passed = report.steps().stream().filter(RehearsalReport.Step::passed).count();
      out.println(
          "Rehearsal "
              + (report.passed() ? "PASSED" : "FAILED")
              + ": "
              + passed
              + " of "
              + report.steps().size()
              + " steps passed. Report: "
              + reportDir.resolve("report.md")
              + " and "
              + reportDir.resolve("report.json"));
      for (RehearsalReport.Step step : report.steps()) {
        out.println("  " + step.status() + "  " + step.name());
      }
      out.flush();
      return report.passed() ? ReplaysafeCli.EXIT_OK : ReplaysafeCli.EXIT_FAILURE;
    }
  }
}
