package io.replaysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.PipelineYaml;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Both jobs from the cluster jar through Spark's own entry point, {@code
 * org.apache.spark.deploy.SparkSubmit}, in a JVM whose class path is only what a Spark installation
 * with Delta has (Spark, Delta, Hadoop's client): nothing of the local launcher's. Bronze is
 * submitted directly, silver through scripts/spark-submit.sh on a stand-in SPARK_HOME.
 *
 * <p>Every test runs once per Spark line a user's cluster may run: the one the jar is built against
 * and the previous one (the root POM's {@code *.previous.version}), each resolved by Maven, so the
 * same jar is proven on both.
 */
// Slow (spark-submit child JVMs); runs in .ci/run with -Pslow.
@Tag("slow")
class SparkSubmitIT extends SparkTestBase {
  /** Spark settings a two-core CI machine needs; a cluster would pass its own. */
  static final List<String> SMALL =
      List.of(
          "--master",
          "local[2]",
          "--conf",
          "spark.ui.enabled=false",
          "--conf",
          "spark.sql.shuffle.partitions=2",
          "--conf",
          "spark.default.parallelism=2",
          "--conf",
          "spark.databricks.delta.snapshotPartitions=2",
          "--conf",
          "spark.driver.host=127.0.0.1",
          "--conf",
          "spark.driver.bindAddress=127.0.0.1");

  /** A stand-in installation per line, made once per JVM. */
  static final Map<ClusterJarSupport.SparkLine, Path> homes = new HashMap<>();

  @TempDir static Path installations;

  @TempDir Path dir;

  record Exit(int code, String out, String err) {
    String lastLine() {
      List<String> lines = out.lines().toList();
      return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }
  }

  static Stream<ClusterJarSupport.SparkLine> lines() {
    // The one cluster jar, built against the current line, on both lines users' clusters run.
    // -Dreplaysafe.previousSparkLine=false skips the previous line (a machine that cannot resolve
    // its jars from Maven Central).
    return Boolean.parseBoolean(System.getProperty("replaysafe.previousSparkLine", "true"))
        ? Stream.of(ClusterJarSupport.SparkLine.current(), ClusterJarSupport.SparkLine.previous())
        : Stream.of(ClusterJarSupport.SparkLine.current());
  }

  static synchronized Path sparkHome(ClusterJarSupport.SparkLine line) throws IOException {
    Path home = homes.get(line);
    if (home == null) {
      home =
          ClusterJarSupport.sparkHome(
              Files.createDirectories(installations.resolve("spark-" + line.spark())),
              ClusterJarSupport.sparkRuntimeClassPath(line, false));
      homes.put(line, home);
    }
    return home;
  }

  /**
   * Nothing of replaysafe's own. (Spark 4.2's catalyst brings jackson-dataformat-yaml and snakeyaml
   * itself, 4.1 does not: the cluster jar carries relocated copies, so either way they cannot
   * clash.)
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("lines")
  void theClassPathIsSparkDeltaAndHadoopOnly(ClusterJarSupport.SparkLine line) {
    List<String> names =
        ClusterJarSupport.sparkRuntimeClassPath(line, false).stream()
            .map(p -> p.getFileName().toString())
            .toList();
    assertThat(names)
        .contains(
            "spark-core_2.13-" + line.spark() + ".jar",
            "delta-spark_2.13-" + line.delta() + ".jar",
            "hadoop-client-api-" + line.hadoop() + ".jar")
        .noneMatch(n -> n.startsWith("replaysafe-"))
        .noneMatch(n -> n.startsWith("picocli-"))
        .noneMatch(n -> n.startsWith("hadoop-aws-"))
        .noneMatch(n -> n.startsWith("s3proxy-"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lines")
  void bothJobsRunFromTheClusterJarOnSparkAlone(ClusterJarSupport.SparkLine line) throws Exception {
    List<Path> sparkRuntime = ClusterJarSupport.sparkRuntimeClassPath(line, false);
    Path landing = Files.createDirectories(dir.resolve("landing/2026-11-29"));
    Files.writeString(
        landing.resolve("orders-0001.json"),
        String.join(
            "\n",
            "{\"order_id\":101,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\"}",
            "{\"order_id\":101,\"source_version\":2,\"status\":\"Shipped\",\"op\":\"UPSERT\"}",
            "{\"order_id\":102,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\","
                + "\"coupon\":\"WELCOME\"}",
            "{\"order_id\":103,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\"}",
            "{\"order_id\":103,\"source_version\":2,\"status\":null,\"op\":\"DELETE\"}",
            ""));
    Path pipeline =
        Files.writeString(
            dir.resolve("orders.yaml"),
            PipelineYaml.local(
                "orders",
                dir,
                "order_id BIGINT, source_version BIGINT, status STRING, op STRING",
                "keys: [order_id]\nsequenceBy: [source_version]\n"
                    + "applyAsDeletes: \"op = 'DELETE'\"\nexceptColumnList: [op]\n"));

    List<String> bronze = new ArrayList<>(ClusterJarSupport.sparkJvmFlags());
    bronze.addAll(
        List.of(
            "-Xmx1g",
            "-cp",
            sparkRuntime.stream()
                .map(Path::toString)
                .collect(Collectors.joining(File.pathSeparator)),
            "org.apache.spark.deploy.SparkSubmit"));
    bronze.addAll(SMALL);
    bronze.addAll(
        List.of(
            "--class",
            "io.replaysafe.jobs.BronzeMain",
            ClusterJarSupport.clusterJar().toString(),
            "--config",
            pipeline.toString()));
    bronze.add(0, ClusterJarSupport.java());
    Exit bronzeExit = run(bronze, Map.of());
    assertThat(bronzeExit.code()).as(bronzeExit.err()).isZero();
    assertThat(bronzeExit.lastLine())
        .startsWith(
            "bronze orders: 1 file(s), 5 row(s) (1 with rescued data, 0 corrupt) in 1 batch(es);"
                + " bronze table version 1;");

    List<String> silver =
        new ArrayList<>(
            List.of(ClusterJarSupport.projectRoot().resolve("scripts/spark-submit.sh").toString()));
    silver.addAll(SMALL);
    silver.addAll(List.of("silver", "--config", pipeline.toString(), "--json"));
    // Local paths only: no hadoop-aws to fetch.
    Exit silverExit =
        run(
            silver,
            Map.of(
                "SPARK_HOME",
                sparkHome(line).toString(),
                "REPLAYSAFE_S3A",
                "off",
                "REPLAYSAFE_CLUSTER_JAR",
                ClusterJarSupport.clusterJar().toString()));
    assertThat(silverExit.code()).as(silverExit.err()).isZero();
    assertThat(silverExit.lastLine())
        .startsWith(
            "{\"layer\":\"silver\",\"pipeline\":\"orders\",\"status\":\"ok\",\"batches\":1,"
                + "\"inputRows\":5,\"invalid\":0,\"exactRetries\":0,\"distinctKeys\":3,");

    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(dir.resolve("silver").toString())
                    .select("order_id", "source_version", "status")
                    .orderBy("order_id")))
        .containsExactly("101|2|Shipped", "102|1|Created");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lines")
  void aConfigurationErrorExitsWithTwoThroughSparkSubmit(ClusterJarSupport.SparkLine line)
      throws Exception {
    String missing = dir.resolve("missing.yaml").toString();
    List<String> command =
        new ArrayList<>(
            List.of(ClusterJarSupport.projectRoot().resolve("scripts/spark-submit.sh").toString()));
    command.addAll(SMALL);
    command.addAll(List.of("bronze", "--config", missing));
    Exit exit =
        run(
            command,
            Map.of(
                "SPARK_HOME",
                sparkHome(line).toString(),
                "REPLAYSAFE_S3A",
                "off",
                "REPLAYSAFE_CLUSTER_JAR",
                ClusterJarSupport.clusterJar().toString()));
    assertThat(exit.code()).as(exit.err()).isEqualTo(2);
    assertThat(exit.lastLine())
        .isEqualTo(
            "bronze "
                + missing
                + ": FAILED: Cannot read pipeline file "
                + missing
                + ": it does not exist; check the --config path");
  }

  /**
   * Runs a command to its end with stdout and stderr in files: at most 15 minutes, which a shared
   * two-core machine has needed (4 minutes were not enough at a load average of 40).
   */
  Exit run(List<String> command, Map<String, String> env) throws Exception {
    Path out = Files.createTempFile(dir, "stdout", ".txt");
    Path err = Files.createTempFile(dir, "stderr", ".txt");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    // Nothing of this JVM's environment that would make the child something else than a plain
    // Spark installation on this machine.
    builder.environment().remove("SPARK_HOME");
    builder.environment().remove("DATABRICKS_RUNTIME_VERSION");
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(15, TimeUnit.MINUTES)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError(
          "Did not end within 15 minutes: " + command + "\nstderr:\n" + Files.readString(err));
    }
    return new Exit(process.exitValue(), Files.readString(out), Files.readString(err));
  }
}
