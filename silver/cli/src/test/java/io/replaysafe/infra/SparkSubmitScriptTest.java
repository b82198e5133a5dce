package io.replaysafe.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/spark-submit.sh's {@code REPLAYSAFE_FORWARD_AWS_ENV=1}: the shell's AWS variables reach
 * spark-submit through a mode-600 properties file, never its command line, and the file is gone
 * when spark-submit ends. A stand-in {@code bin/spark-submit} records what it was given.
 */
class SparkSubmitScriptTest {
  static final String SECRET = "wJalr/K7MDENG+bPxRfi\\CYEXAMPLEKEY";

  @TempDir Path dir;
  Path home;
  Path record;

  @BeforeEach
  void fakeSparkHome() throws IOException {
    home = dir.resolve("spark");
    Path jars = Files.createDirectories(home.resolve("jars"));
    // Delta and hadoop-aws present: the script adds no --packages.
    Files.writeString(jars.resolve("delta-spark_2.13-4.4.0.jar"), "");
    Files.writeString(jars.resolve("hadoop-aws-3.5.0.jar"), "");
    record = dir.resolve("record.txt");
    Path submit = Files.createDirectories(home.resolve("bin")).resolve("spark-submit");
    Files.writeString(
        submit,
        String.join(
            "\n",
            "#!/usr/bin/env bash",
            "out=\"" + record + "\"",
            ": > \"$out\"",
            "for a in \"$@\"; do echo \"ARG $a\" >> \"$out\"; done",
            "while [ $# -gt 0 ]; do",
            "  if [ \"$1\" = --properties-file ]; then",
            "    echo \"MODE $(stat -c %a \"$2\")\" >> \"$out\"",
            "    echo \"FILE $2\" >> \"$out\"",
            "    sed 's/^/PROP /' \"$2\" >> \"$out\"",
            "  fi",
            "  shift",
            "done",
            "exit 3",
            ""));
    Files.setPosixFilePermissions(submit, PosixFilePermissions.fromString("rwx------"));
  }

  @Test
  void credentialsGoThroughAPrivatePropertiesFileThatIsRemovedAfterwards() throws Exception {
    int exit = run(List.of("--master", "local[2]", "silver", "--config", "p.yaml"));

    assertThat(exit).as("spark-submit's exit code is the script's").isEqualTo(3);
    List<String> lines = Files.readAllLines(record, StandardCharsets.UTF_8);
    assertThat(lines).filteredOn(l -> l.startsWith("ARG ")).noneMatch(l -> l.contains("wJalr"));
    assertThat(lines)
        .contains(
            "ARG --load-spark-defaults",
            "MODE 600",
            "PROP spark.executorEnv.AWS_ACCESS_KEY_ID=AKIDEXAMPLE",
            "PROP spark.yarn.appMasterEnv.AWS_ACCESS_KEY_ID=AKIDEXAMPLE",
            "PROP spark.executorEnv.AWS_SECRET_ACCESS_KEY=wJalr/K7MDENG+bPxRfi\\\\CYEXAMPLEKEY",
            "PROP spark.yarn.appMasterEnv.AWS_SECRET_ACCESS_KEY="
                + "wJalr/K7MDENG+bPxRfi\\\\CYEXAMPLEKEY");
    assertThat(lines)
        .filteredOn(l -> l.startsWith("ARG "))
        .endsWith(
            "ARG --class",
            "ARG io.replaysafe.jobs.SilverMain",
            "ARG " + jar(),
            "ARG --config",
            "ARG p.yaml");
    Path file = Path.of(fileOf(lines));
    assertThat(file).doesNotExist();
  }

  @Test
  void aPropertiesFileOfTheCallerIsMergedNotReplaced() throws Exception {
    Path own = Files.writeString(dir.resolve("own.conf"), "spark.executor.memory=2g\n");

    run(List.of("--properties-file", own.toString(), "bronze", "--config", "p.yaml"));

    List<String> lines = Files.readAllLines(record, StandardCharsets.UTF_8);
    assertThat(lines)
        .filteredOn(l -> l.startsWith("PROP spark.e"))
        .startsWith("PROP spark.executor.memory=2g")
        .contains("PROP spark.executorEnv.AWS_ACCESS_KEY_ID=AKIDEXAMPLE");
    // One properties file only (ours, holding theirs), and spark-defaults.conf stays off as the
    // caller's --properties-file had it.
    assertThat(lines).filteredOn(l -> l.equals("ARG --properties-file")).hasSize(1);
    assertThat(lines).doesNotContain("ARG " + own, "ARG --load-spark-defaults");
  }

  /**
   * Cluster deploy mode, however it is asked for, and Kubernetes: forwarding would put the
   * credentials on the driver's command line or in pod specs, so the script refuses before
   * spark-submit runs, and says why and what to use instead without printing any value.
   */
  @Test
  void forwardingIsRefusedWhereSparkWouldPutTheCredentialsOnAProcessLineOrInASpec()
      throws Exception {
    Path props =
        Files.writeString(dir.resolve("cluster.conf"), "spark.submit.deployMode  cluster\n");
    List<List<String>> cluster =
        List.of(
            List.of("--master", "spark://h:7077", "--deploy-mode", "cluster"),
            List.of("--master", "yarn", "--deploy-mode=cluster"),
            List.of("--master", "yarn", "--conf", "spark.submit.deployMode=cluster"),
            List.of("--master", "yarn", "--properties-file", props.toString()));
    for (List<String> options : cluster) {
      String log = refused(options);
      assertThat(log)
          .as(options.toString())
          .contains(
              "spark-submit.sh: REPLAYSAFE_FORWARD_AWS_ENV=1 refused: in cluster deploy mode Spark"
                  + " starts the driver's JVM on a cluster node with every setting,"
                  + " spark.executorEnv.* included, as a -D option of its command line, which ps"
                  + " shows to every user of that node. Nothing was submitted.");
    }
    assertThat(refused(List.of("--master", "k8s://https://api:6443", "--deploy-mode", "client")))
        .contains(
            "refused: on Kubernetes Spark writes spark.executorEnv.* into the executor pods'"
                + " specs, which anyone who may read pods sees. Nothing was submitted. Give the"
                + " cluster its own credentials instead: an instance role or IAM role for service"
                + " accounts (EKS), a Kubernetes secret");
    // Client mode elsewhere still forwards (the first test), and no refusal names a value.
    assertThat(run(List.of("--master", "yarn", "--deploy-mode", "client", "bronze"))).isEqualTo(3);
  }

  private String refused(List<String> options) throws Exception {
    List<String> args = new ArrayList<>(options);
    args.addAll(List.of("silver", "--config", "p.yaml"));
    Files.deleteIfExists(record);
    assertThat(start(args)).as(options.toString()).isEqualTo(2);
    assertThat(record).as("spark-submit never ran").doesNotExist();
    String log = Files.readString(dir.resolve("script.log"));
    assertThat(log).doesNotContain("wJalr").doesNotContain("AKIDEXAMPLE");
    return log;
  }

  private String fileOf(List<String> lines) {
    return lines.stream()
        .filter(l -> l.startsWith("FILE "))
        .findFirst()
        .orElseThrow()
        .substring("FILE ".length());
  }

  private Path jar() throws IOException {
    Path jar = dir.resolve("replaysafe-cluster.jar");
    if (!Files.exists(jar)) {
      Files.writeString(jar, "");
    }
    return jar;
  }

  private int run(List<String> args) throws Exception {
    int exit = start(args);
    assertThat(record).as(Files.readString(dir.resolve("script.log"))).exists();
    return exit;
  }

  private int start(List<String> args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(InfraFilesTest.root().resolve("scripts/spark-submit.sh").toString());
    command.addAll(args);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("script.log").toFile());
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(name -> name.startsWith("AWS_"));
    env.put("SPARK_HOME", home.toString());
    env.put("REPLAYSAFE_CLUSTER_JAR", jar().toString());
    env.put("REPLAYSAFE_FORWARD_AWS_ENV", "1");
    env.put("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE");
    env.put("AWS_SECRET_ACCESS_KEY", SECRET);
    env.put("TMPDIR", Files.createDirectories(dir.resolve("tmp")).toString());
    Process process = builder.start();
    if (!process.waitFor(1, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("spark-submit.sh did not end within a minute");
    }
    return process.exitValue();
  }
}
