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
 * The Databricks Asset Bundle (infra/databricks/databricks.yml) against the jar it deploys: two JAR
 * tasks, silver after bronze, each main class in the built cluster jar, and each task's parameters
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

  @BeforeAll
  static void parseBundle() throws IOException {
    bundleDir = ClusterJarSupport.projectRoot().resolve("infra/databricks");
    bundle =
        new ObjectMapper(new YAMLFactory()).readTree(bundleDir.resolve("databricks.yml").toFile());
    JsonNode jobs = bundle.path("resources").path("jobs");
    assertThat(jobs.size()).as("jobs in the bundle").isEqualTo(1);
    job = jobs.elements().next();
  }

  static JsonNode task(String key) {
    for (JsonNode task : job.path("tasks")) {
      if (task.path("task_key").asText().equals(key)) {
        return task;
      }
    }
    throw new AssertionError("The bundle's job has no task '" + key + "'");
  }

  /** A value as the deployed job sees it: variables, job parameters and workspace paths filled. */
  static String resolve(String value) {
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
  void thePipelineFileTheTasksReadIsValid() {
    String deployed = resolve("${var.pipeline_file}");
    assertThat(deployed).startsWith(WORKSPACE_FILE_PATH + "/");
    // The bundle syncs its own directory to ${workspace.file_path}.
    Path local = bundleDir.resolve(deployed.substring(WORKSPACE_FILE_PATH.length() + 1));
    PipelineConfig pipeline = ConfigLoader.load(local);
    assertThat(pipeline.name()).isEqualTo("orders");
    assertThat(pipeline.silver()).isPresent();
    assertThat(pipeline.storage()).isEmpty();
  }
}
