package io.replaysafe.rehearsal;

import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.config.ConfigErrors;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.Policy;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryListener;

/**
 * The seed-004 rehearsal: named steps against a real S3 protocol endpoint, each with its input
 * files, an action, the silver rows it must leave (written out here, not computed by the code under
 * test) and assertions that record why they passed or failed. Two steps kill a child job process at
 * a {@link CrashPoints crash point} and restart the job.
 */
public final class Rehearsal {
  /** The rehearsal's own buckets, so it never touches the demo's. */
  public static final String LANDING_BUCKET = "rehearsal-landing";

  public static final String LAKE_BUCKET = "rehearsal-lake";

  /** One named step: what it does, and the action that fills in its report entry. */
  record StepSpec(String name, String description, StepAction action) {}

  @FunctionalInterface
  interface StepAction {
    void run(RehearsalReport.Step step) throws Exception;
  }

  private final PipelineConfig pipeline;
  private final SparkSession spark;
  private final PrintWriter progress;
  private final List<String> runIds = new ArrayList<>();
  private final List<StepSpec> steps;

  private Rehearsal(
      PipelineConfig pipeline, SparkSession spark, RehearsalJobs jobs, PrintWriter progress) {
    this.pipeline = pipeline;
    this.spark = spark;
    this.progress = progress;
    this.steps = new RehearsalSteps(pipeline, new RehearsalLake(pipeline, spark), jobs).all();
  }

  /**
   * The pipeline file the rehearsal runs: {@code yaml} (a template where {@code ${endpoint}} is the
   * endpoint's address), or the demo's order contract on the rehearsal's own buckets when null.
   */
  public static String pipelineYaml(String yaml) throws IOException {
    return yaml != null ? yaml : defaultPipelineYaml(LANDING_BUCKET, LAKE_BUCKET, "");
  }

  /**
   * The demo's order contract with its landing path in {@code landingBucket} and its tables and
   * checkpoints in {@code lakeBucket}, every path under {@code prefix} ("" or "a/b/"), so that a
   * rehearsal on a long-lived endpoint never meets an earlier one's objects.
   */
  public static String defaultPipelineYaml(String landingBucket, String lakeBucket, String prefix)
      throws IOException {
    try (InputStream in =
        Rehearsal.class.getResourceAsStream("/io/replaysafe/cli/demo-orders.yaml")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .replace("s3a://landing/", "s3a://" + landingBucket + "/" + prefix)
          .replace("s3a://lake/", "s3a://" + lakeBucket + "/" + prefix)
          .replace("name: orders", "name: rehearsal_orders");
    }
  }

  /** Buckets named by the pipeline's s3a paths; refuses a pipeline the rehearsal cannot run. */
  public static List<String> buckets(PipelineConfig pipeline) {
    Set<String> buckets = new LinkedHashSet<>();
    List<String> paths = new ArrayList<>();
    paths.add(pipeline.source().path());
    paths.add(pipeline.bronze().path());
    paths.add(pipeline.bronze().checkpoint());
    var silver = pipeline.requireSilver();
    paths.addAll(
        List.of(silver.path(), silver.checkpoint(), silver.quarantinePath(), silver.runsPath()));
    for (String p : paths) {
      URI uri = URI.create(p);
      if (!"s3a".equals(uri.getScheme()) || uri.getHost() == null) {
        throw ConfigErrors.rule(
            "The rehearsal runs against an S3 endpoint: every path must be s3a://BUCKET/..., and "
                + p
                + " is not",
            "use s3a:// paths (and storage.endpoint: ${endpoint})");
      }
      buckets.add(uri.getHost());
    }
    if (silver.onConflict() != Policy.QUARANTINE || silver.onInvalid() != Policy.QUARANTINE) {
      throw ConfigErrors.rule(
          "The rehearsal expects onConflict: quarantine and onInvalid: quarantine (a conflicting"
              + " equal version is one of its steps), and the pipeline file says onConflict: "
              + silver.onConflict()
              + ", onInvalid: "
              + silver.onInvalid(),
          "set both to quarantine");
    }
    return List.copyOf(buckets);
  }

  /**
   * Runs every step against the pipeline's endpoint (already started, its buckets created, and its
   * credentials resolvable in this JVM through the default chain). {@code yaml} is the pipeline
   * file with the endpoint filled in; it is written to {@code workDir} for the child job processes,
   * which get {@code childCredentials} ({@code AWS_*} variables) in their environment.
   */
  public static RehearsalReport run(
      String yaml,
      Map<String, String> childCredentials,
      SparkSession spark,
      Path workDir,
      String backend,
      PrintWriter progress)
      throws IOException {
    PipelineConfig pipeline = ConfigLoader.parse("rehearsal pipeline", yaml);
    Files.createDirectories(workDir);
    Path configFile = workDir.resolve("rehearsal-pipeline.yaml");
    Files.writeString(configFile, yaml, StandardCharsets.UTF_8);
    RehearsalJobs jobs =
        new RehearsalJobs(pipeline, spark, childCredentials, workDir, configFile, progress);
    Rehearsal rehearsal = new Rehearsal(pipeline, spark, jobs, progress);
    return rehearsal.runSteps(backend);
  }

  private RehearsalReport runSteps(String backend) {
    RehearsalReport report = new RehearsalReport(backend, pipeline.name());
    StreamingQueryListener listener = new RunIdListener(runIds);
    spark.streams().addListener(listener);
    try {
      for (int i = 0; i < steps.size(); i++) {
        StepSpec spec = steps.get(i);
        RehearsalReport.Step step =
            new RehearsalReport.Step(i + 1, spec.name(), spec.description());
        progress.println(
            "rehearse: step " + (i + 1) + "/" + steps.size() + " " + spec.name() + " ...");
        progress.flush();
        long started = System.nanoTime();
        runIds.clear();
        step.checkpoints.add("bronze " + pipeline.bronze().checkpoint());
        step.checkpoints.add("silver " + pipeline.requireSilver().checkpoint());
        try {
          spec.action().run(step);
        } catch (Exception e) {
          step.check(
              "the step ran to completion",
              false,
              "it threw " + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()));
        }
        step.runIds.addAll(0, runIds);
        step.seconds = (System.nanoTime() - started) / 1e9;
        report.add(step);
        progress.println(
            String.format(
                "rehearse: step %d/%d %s ... %s (%.1f s)",
                i + 1, steps.size(), spec.name(), step.status(), step.seconds));
        for (RehearsalReport.Assertion a : step.assertions) {
          if (!a.passed()) {
            progress.println("rehearse:   FAILED " + a.name() + ": " + a.reason());
          }
        }
        progress.flush();
      }
    } finally {
      spark.streams().removeListener(listener);
    }
    return report;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** Collects the run id of every streaming query started during a step. */
  private static final class RunIdListener extends StreamingQueryListener {
    private final List<String> runIds;

    RunIdListener(List<String> runIds) {
      this.runIds = runIds;
    }

    @Override
    public void onQueryStarted(QueryStartedEvent event) {
      synchronized (runIds) {
        runIds.add(event.name() + " run " + event.runId());
      }
    }

    @Override
    public void onQueryProgress(QueryProgressEvent event) {}

    @Override
    public void onQueryTerminated(QueryTerminatedEvent event) {}
  }
}
