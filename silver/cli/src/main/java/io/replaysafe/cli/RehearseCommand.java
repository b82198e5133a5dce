package io.replaysafe.cli;

import io.replaysafe.common.config.ConfigErrors;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.rehearsal.Rehearsal;
import io.replaysafe.rehearsal.RehearsalEndpoint;
import io.replaysafe.rehearsal.RehearsalReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "rehearse",
    description =
        "The seed-004 rehearsal against a real S3 protocol endpoint: retries, restarts, replays,"
            + " an older and a conflicting version, a deleted bronze checkpoint, and the job killed"
            + " in a bronze write and in a silver MERGE. Writes report.md and report.json; exit 0"
            + " only when every assertion passed.")
final class RehearseCommand implements Callable<Integer> {
  static final String LOCALSTACK_UNAVAILABLE = LocalStackBackend.NO_DOCKER;

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
      description =
          "The S3 endpoint: embedded (in-process, default) or localstack (started through"
              + " Testcontainers; needs a Docker engine).")
  String backend;

  @Option(
      names = "--endpoint",
      paramLabel = "URL",
      description =
          "Rehearse against an S3 endpoint you started instead (LocalStack, MinIO, replaysafe"
              + " s3-server, a test bucket on AWS), with credentials from the AWS default chain."
              + " Missing buckets are created; nothing is deleted.")
  String endpoint;

  @Option(
      names = "--region",
      paramLabel = "REGION",
      description = "Signing region for --endpoint (default: $AWS_REGION, else us-east-1).")
  String region;

  @Option(
      names = "--landing-bucket",
      paramLabel = "NAME",
      defaultValue = Rehearsal.LANDING_BUCKET,
      description = "Bucket the built-in pipeline lands objects in (default: ${DEFAULT-VALUE}).")
  String landingBucket;

  @Option(
      names = "--lake-bucket",
      paramLabel = "NAME",
      defaultValue = Rehearsal.LAKE_BUCKET,
      description =
          "Bucket of the built-in pipeline's tables and checkpoints (default: ${DEFAULT-VALUE}).")
  String lakeBucket;

  @Option(
      names = "--report",
      paramLabel = "DIR",
      defaultValue = "rehearsal-report",
      description = "Where report.md and report.json go (default: ${DEFAULT-VALUE}).")
  Path reportDir;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    var parsed = spec.commandLine().getParseResult();
    if (endpoint != null && parsed.hasMatchedOption("--backend")) {
      throw new ParameterException(
          spec.commandLine(),
          "Give either --endpoint URL (an endpoint you started) or --backend, not both");
    }
    if (endpoint == null && parsed.hasMatchedOption("--region")) {
      throw new ParameterException(spec.commandLine(), "--region applies to --endpoint only");
    }
    if (config != null
        && (parsed.hasMatchedOption("--landing-bucket")
            || parsed.hasMatchedOption("--lake-bucket"))) {
      throw new ParameterException(
          spec.commandLine(),
          "--landing-bucket and --lake-bucket name the built-in pipeline's buckets; with"
              + " --config, the pipeline file's s3a:// paths name them");
    }
    if (endpoint == null && !"embedded".equals(backend) && !"localstack".equals(backend)) {
      throw new ParameterException(
          spec.commandLine(), "--backend must be embedded or localstack, not '" + backend + "'");
    }
    String template;
    if (config != null) {
      if (!Files.isRegularFile(config)) {
        throw ConfigErrors.inPipelineFile(
            config.toString(), "it does not exist; check the --config path.", null);
      }
      template = Files.readString(config, StandardCharsets.UTF_8);
    } else {
      // On an endpoint that outlives the rehearsal, every run gets its own prefix.
      String prefix =
          endpoint == null && !"localstack".equals(backend)
              ? ""
              : "rehearsal-" + RUN_PREFIX.format(Instant.now()) + "/";
      template = Rehearsal.defaultPipelineYaml(landingBucket, lakeBucket, prefix);
    }
    // Validate before starting anything: the endpoint is only known once the server runs.
    PipelineConfig probe =
        ConfigLoader.parse(
            config == null ? "rehearsal pipeline" : config.toString(),
            template.replace("${endpoint}", "http://127.0.0.1:1"));
    List<String> buckets = Rehearsal.buckets(probe);

    if (endpoint != null) {
      String chosenRegion =
          region != null
              ? region
              : System.getenv().getOrDefault("AWS_REGION", StorageConfig.REGION_DEFAULT);
      String yaml = withRegion(template.replace("${endpoint}", endpoint), chosenRegion);
      PipelineConfig pipeline = ConfigLoader.parse("rehearsal pipeline", yaml);
      Map<String, String> credentials = RehearsalEndpoint.defaultChainCredentials(endpoint);
      err.println("rehearse: S3 endpoint " + endpoint + " (credentials from the default chain)");
      RehearsalEndpoint.prepare(pipeline, buckets).forEach(l -> err.println("rehearse:   " + l));
      err.flush();
      return rehearse(yaml, credentials, "endpoint " + endpoint);
    }
    if ("localstack".equals(backend)) {
      Optional<LocalStackBackend> localstack = LocalStackBackend.startIfDocker();
      if (localstack.isEmpty()) {
        err.println("replaysafe: " + LOCALSTACK_UNAVAILABLE);
        err.flush();
        return ReplaysafeCli.EXIT_USAGE;
      }
      try (LocalStackBackend stack = localstack.get()) {
        Map<String, String> credentials = stack.credentials();
        // This JVM's default chain reads them as system properties (never the environment).
        System.setProperty("aws.accessKeyId", credentials.get("AWS_ACCESS_KEY_ID"));
        System.setProperty("aws.secretAccessKey", credentials.get("AWS_SECRET_ACCESS_KEY"));
        String yaml = withRegion(template.replace("${endpoint}", stack.endpoint()), stack.region());
        err.println("rehearse: LocalStack S3 on " + stack.endpoint() + " (a container)");
        RehearsalEndpoint.prepare(ConfigLoader.parse("rehearsal pipeline", yaml), buckets)
            .forEach(l -> err.println("rehearse:   " + l));
        err.flush();
        return rehearse(yaml, credentials, "localstack " + stack.endpoint());
      }
    }
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, buckets)) {
      server.credentials().installAsSystemProperties();
      err.println("rehearse: embedded S3 endpoint on " + server.endpoint() + " (in memory)");
      err.flush();
      String yaml = template.replace("${endpoint}", server.endpoint().toString());
      return rehearse(
          yaml,
          Map.of(
              "AWS_ACCESS_KEY_ID",
              server.credentials().accessKeyId(),
              "AWS_SECRET_ACCESS_KEY",
              server.credentials().secretAccessKey()),
          backend);
    }
  }

  private static final DateTimeFormatter RUN_PREFIX =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

  /** The built-in pipeline's region replaced; a pipeline file's own region is kept. */
  private String withRegion(String yaml, String chosen) {
    return config == null ? yaml.replace("region: us-east-1", "region: " + chosen) : yaml;
  }

  private int rehearse(String yaml, Map<String, String> childCredentials, String backendLabel)
      throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    SparkSession spark = SparkSessions.getOrCreate("replaysafe-rehearse");
    RehearsalReport report =
        Rehearsal.run(yaml, childCredentials, spark, reportDir.resolve("work"), backendLabel, err);
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
