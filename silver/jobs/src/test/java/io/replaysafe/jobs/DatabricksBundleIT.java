package io.replaysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Databricks Asset Bundle (infra/databricks/databricks.yml) against the jar it deploys: the
 * scheduled job's two JAR tasks, silver after bronze, and the continuous job's one task under
 * continuous scheduling; each main class in the built cluster jar, and each task's parameters
 * accepted by that jar's own argument parser.
 */
class DatabricksBundleIT {
  /** What ${workspace.file_path} becomes for a user deploying the dev target (CLI >= 0.230). */
  static final String WORKSPACE_FILE_PATH =
      "/Workspace/Users/someone@example.com/.bundle/replaysafe/dev/files";

  static final Pattern VARIABLE = Pattern.compile("\\$\\{var\\.([a-z_]+)}");
  static final Pattern JOB_PARAMETER = Pattern.compile("\\{\\{job\\.parameters\\.([a-z_]+)}}");

  static Path bundleDir;
  static JsonNode bundle;
  static JsonNode job;
  static JsonNode continuousJob;

  @BeforeAll
  static void parseBundle() throws IOException {
    bundleDir = ClusterJarSupport.projectRoot().resolve("infra/databricks");
    bundle =
        new ObjectMapper(new YAMLFactory()).readTree(bundleDir.resolve("databricks.yml").toFile());
    JsonNode jobs = bundle.path("resources").path("jobs");
    List<String> names = new ArrayList<>();
    jobs.fieldNames().forEachRemaining(names::add);
    assertThat(names)
        .as("jobs in the bundle")
        .containsExactly("replaysafe_orders", "replaysafe_orders_continuous");
    job = jobs.path("replaysafe_orders");
    continuousJob = jobs.path("replaysafe_orders_continuous");
  }

  static JsonNode task(String key) {
    return task(job, key);
  }

  static JsonNode task(JsonNode job, String key) {
    for (JsonNode task : job.path("tasks")) {
      if (task.path("task_key").asText().equals(key)) {
        return task;
      }
    }
    throw new AssertionError("The bundle's job has no task '" + key + "'");
  }

  /** A value as the scheduled job sees it. */
  static String resolve(String value) {
    return resolve(job, value);
  }

  /** A value as the deployed job sees it: variables, job parameters and workspace paths filled. */
  static String resolve(JsonNode job, String value) {
    String previous;
    do {
      previous = value;
      value = replace(value, VARIABLE, name -> bundle.path("variables").path(name).path("default"));
      value =
          replace(
              value,
              JOB_PARAMETER,
              name -> {
                for (JsonNode parameter : job.path("parameters")) {
                  if (parameter.path("name").asText().equals(name)) {
                    return parameter.path("default");
                  }
                }
                return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
              });
      value = value.replace("${workspace.file_path}", WORKSPACE_FILE_PATH);
    } while (!value.equals(previous));
    assertThat(value).as("unresolved references").doesNotContain("${", "{{");
    return value;
  }

  static String replace(
      String value, Pattern pattern, java.util.function.Function<String, JsonNode> lookup) {
    Matcher matcher = pattern.matcher(value);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      JsonNode found = lookup.apply(matcher.group(1));
      assertThat(found.isMissingNode())
          .as("%s refers to %s, which the bundle does not define", value, matcher.group())
          .isFalse();
      matcher.appendReplacement(out, Matcher.quoteReplacement(found.asText()));
    }
    matcher.appendTail(out);
    return out.toString();
  }

  @Test
  void oneJobWithBronzeThenSilver() {
    List<String> keys = new ArrayList<>();
    job.path("tasks").forEach(task -> keys.add(task.path("task_key").asText()));
    assertThat(keys).containsExactly("bronze", "silver");
    assertThat(task("bronze").has("depends_on")).isFalse();
    assertThat(task("silver").path("depends_on").findValuesAsText("task_key"))
        .containsExactly("bronze");
    // one writer per Delta table: runs never overlap
    assertThat(job.path("max_concurrent_runs").asInt()).isEqualTo(1);
  }

  @Test
  void scheduledOnAJobClusterThatRunsTheJar() {
    assertThat(resolve(job.path("schedule").path("quartz_cron_expression").asText()))
        .isEqualTo("0 0/15 * * * ?");
    assertThat(job.path("schedule").path("timezone_id").asText()).isEqualTo("UTC");
    JsonNode clusters = job.path("job_clusters");
    assertThat(clusters.size()).isEqualTo(1);
    String clusterKey = clusters.get(0).path("job_cluster_key").asText();
    JsonNode cluster = clusters.get(0).path("new_cluster");
    // Spark 4.1 and Scala 2.13, as the jar is built; classic APIs need dedicated access mode.
    assertThat(resolve(cluster.path("spark_version").asText())).isEqualTo("18.2.x-scala2.13");
    assertThat(cluster.path("data_security_mode").asText()).isEqualTo("SINGLE_USER");
    for (String key : List.of("bronze", "silver")) {
      assertThat(task(key).path("job_cluster_key").asText()).as(key).isEqualTo(clusterKey);
    }
  }

  @Test
  void bothTasksUseTheBuiltClusterJar() {
    Path jar = ClusterJarSupport.clusterJar().toAbsolutePath().normalize();
    for (String key : List.of("bronze", "silver")) {
      List<String> libraries = task(key).path("libraries").findValuesAsText("jar");
      assertThat(libraries).as(key).hasSize(1);
      assertThat(bundleDir.resolve(libraries.get(0)).toAbsolutePath().normalize())
          .as(key)
          .isEqualTo(jar);
    }
    JsonNode artifact = bundle.path("artifacts").path("cluster_jar");
    assertThat(
            bundleDir
                .resolve(artifact.path("files").get(0).path("source").asText())
                .toAbsolutePath()
                .normalize())
        .isEqualTo(jar);
    assertThat(bundleDir.resolve(artifact.path("path").asText()).toAbsolutePath().normalize())
        .isEqualTo(ClusterJarSupport.projectRoot());
  }

  @Test
  void eachMainClassIsInTheJarAndAcceptsItsTasksParameters() throws Exception {
    try (URLClassLoader jarOnly = ClusterJarSupport.jarOnlyLoader()) {
      Class<?> jobArgs = Class.forName("io.replaysafe.jobs.JobArgs", true, jarOnly);
      for (String key : List.of("bronze", "silver")) {
        JsonNode jarTask = task(key).path("spark_jar_task");
        String mainClass = jarTask.path("main_class_name").asText();
        assertThat(mainClass)
            .isEqualTo(
                "io.replaysafe.jobs." + (key.equals("bronze") ? "BronzeMain" : "SilverMain"));
        ClusterJarSupport.mainOf(jarOnly, mainClass);

        List<String> parameters = new ArrayList<>();
        jarTask.path("parameters").forEach(p -> parameters.add(resolve(p.asText())));
        Object parsed;
        try {
          parsed =
              jobArgs
                  .getMethod("parse", String.class, String[].class)
                  .invoke(null, key, parameters.toArray(String[]::new));
        } catch (InvocationTargetException e) {
          throw new AssertionError(
              "The " + key + " task's parameters " + parameters + " are refused", e.getCause());
        }
        assertThat(jobArgs.getMethod("configPath").invoke(parsed))
            .isEqualTo(WORKSPACE_FILE_PATH + "/pipelines/orders.yaml");
        assertThat(jobArgs.getMethod("json").invoke(parsed)).isEqualTo(true);
      }
    }
  }

  @Test
  void theContinuousVariantIsOneTaskUnderContinuousScheduling() {
    assertThat(continuousJob.path("tasks").size()).isEqualTo(1);
    JsonNode pipeline = task(continuousJob, "pipeline");
    assertThat(pipeline.has("depends_on")).isFalse();
    // Continuous scheduling instead of a cron schedule: Databricks keeps one run going.
    assertThat(continuousJob.has("schedule")).isFalse();
    assertThat(continuousJob.path("continuous").size()).isEqualTo(1);
    assertThat(
            resolve(continuousJob, continuousJob.path("continuous").path("pause_status").asText()))
        .isEqualTo("UNPAUSED");
    // The same cluster as the scheduled job's, in its own job.
    JsonNode clusters = continuousJob.path("job_clusters");
    assertThat(clusters.size()).isEqualTo(1);
    assertThat(clusters.get(0).path("new_cluster"))
        .isEqualTo(job.path("job_clusters").get(0).path("new_cluster"));
    assertThat(pipeline.path("job_cluster_key").asText())
        .isEqualTo(clusters.get(0).path("job_cluster_key").asText());
    Path jar = ClusterJarSupport.clusterJar().toAbsolutePath().normalize();
    List<String> libraries = pipeline.path("libraries").findValuesAsText("jar");
    assertThat(libraries).hasSize(1);
    assertThat(bundleDir.resolve(libraries.get(0)).toAbsolutePath().normalize()).isEqualTo(jar);
  }

  @Test
  void theContinuousMainIsInTheJarAndAcceptsItsTasksParameters() throws Exception {
    JsonNode jarTask = task(continuousJob, "pipeline").path("spark_jar_task");
    assertThat(jarTask.path("main_class_name").asText())
        .isEqualTo("io.replaysafe.jobs.PipelineMain");
    try (URLClassLoader jarOnly = ClusterJarSupport.jarOnlyLoader()) {
      ClusterJarSupport.mainOf(jarOnly, "io.replaysafe.jobs.PipelineMain");
      Class<?> pipelineArgs = Class.forName("io.replaysafe.jobs.PipelineArgs", true, jarOnly);
      Class<?> jobArgs = Class.forName("io.replaysafe.jobs.JobArgs", true, jarOnly);
      List<String> parameters = new ArrayList<>();
      jarTask.path("parameters").forEach(p -> parameters.add(resolve(continuousJob, p.asText())));
      Object parsed;
      try {
        parsed =
            pipelineArgs
                .getMethod("parse", String[].class)
                .invoke(null, (Object) parameters.toArray(String[]::new));
      } catch (InvocationTargetException e) {
        throw new AssertionError(
            "The continuous task's parameters " + parameters + " are refused", e.getCause());
      }
      Object args = pipelineArgs.getMethod("job").invoke(parsed);
      assertThat(jobArgs.getMethod("configPath").invoke(args))
          .isEqualTo(WORKSPACE_FILE_PATH + "/pipelines/orders.yaml");
      assertThat(jobArgs.getMethod("json").invoke(args)).isEqualTo(true);
      assertThat(pipelineArgs.getMethod("interval").invoke(parsed))
          .isEqualTo(java.util.Optional.of(java.time.Duration.ofMinutes(1)));
      assertThat(pipelineArgs.getMethod("stopTimeout").invoke(parsed))
          .isEqualTo(java.time.Duration.ofMinutes(2));
    }
  }

  @Test
  void thePipelineFileTheTasksReadIsValid() {
    String deployed = resolve("${var.pipeline_file}");
    assertThat(deployed).startsWith(WORKSPACE_FILE_PATH + "/");
    // The bundle syncs its own directory to ${workspace.file_path}.
    Path local = bundleDir.resolve(deployed.substring(WORKSPACE_FILE_PATH.length() + 1));
    PipelineConfig pipeline = ConfigLoader.load(local);
    assertThat(pipeline.name()).isEqualTo("orders");
    assertThat(pipeline.silver()).isPresent();
    assertThat(pipeline.storage()).isEmpty();
    // The continuous job's housekeeping, at a retention no rule refuses by default.
    assertThat(pipeline.maintenance().optimizeEvery()).contains(java.time.Duration.ofDays(1));
    assertThat(pipeline.maintenance().vacuumRetention())
        .contains(pipeline.requireSilver().tombstoneRetention());
    assertThat(resolve(continuousJob, "{{job.parameters.pipeline_file}}"))
        .isEqualTo(resolve("{{job.parameters.pipeline_file}}"));
  }
}
