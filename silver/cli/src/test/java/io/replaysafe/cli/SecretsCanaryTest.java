package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.infra.InfraFilesTest;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A canary as AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN of a process that runs every command,
 * failing ones included (the canary also in a wrong key, as a wrong value, inside the endpoint URL
 * and in broken YAML): it appears in no stdout, stderr, log file, report, export or stored object.
 * A personal-data canary in a pipeline's payloads appears in no output or log of any command with
 * the defaults (only in the tables, which hold the data). scripts/spark-submit.sh asked to forward
 * the AWS canary in cluster deploy mode and to Kubernetes refuses (exit 2) before a stand-in
 * spark-submit could record it.
 */
// Slow (every command in a child JVM); runs in .ci/run with -Pslow.
@Tag("slow")
class SecretsCanaryTest {
  static final String CANARY = "rsCanary" + Long.toHexString(System.nanoTime()) + "Zq";

  /** A value in a producer's payload: personal data, which no output or log may carry. */
  static final String PERSONAL_DATA = "rsPerson" + Long.toHexString(System.nanoTime()) + "Qz";

  @TempDir Path work;

  @Test
  void theCanaryAppearsNowhere() throws Exception {
    List<String> command = new ArrayList<>();
    command.add(
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.add("-Xmx1g");
    command.addAll(SparkSessions.SHORT_JOB_JIT);
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens")
          || arg.startsWith("--add-exports")
          || arg.equals("-XX:+IgnoreUnrecognizedVMOptions")
          || arg.startsWith("-Djdk.reflect.")
          || arg.startsWith("-Dio.netty.")) {
        command.add(arg);
      }
    }
    command.add("-Dreplaysafe.sparkLogLevel=WARN");
    command.add("-D" + SecretsCanaryScript.REPO_ROOT + "=" + InfraFilesTest.root());
    command.add("-Dspark.sql.codegen.wholeStage=false");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SecretsCanaryScript.class.getName());
    command.add(work.toString());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(work.toFile())
            .redirectOutput(work.resolve("child.stdout").toFile())
            .redirectError(work.resolve("child.stderr").toFile());
    builder.environment().put("AWS_ACCESS_KEY_ID", "RSCANARYTESTID");
    builder.environment().put("AWS_SECRET_ACCESS_KEY", CANARY);
    builder.environment().put("AWS_SESSION_TOKEN", CANARY);
    builder.environment().put("AWS_REGION", "us-east-1");
    builder.environment().put("PERSONAL_DATA_CANARY", PERSONAL_DATA);
    builder.environment().putIfAbsent("SPARK_LOCAL_IP", "127.0.0.1");
    Process child = builder.start();
    assertThat(child.waitFor(30, TimeUnit.MINUTES)).isTrue();
    assertThat(child.exitValue()).as(Files.readString(work.resolve("child.stderr"))).isEqualTo(0);

    List<String> summary = Files.readAllLines(work.resolve("summary.txt"));
    assertThat(summary)
        .as(unexpectedExits(summary))
        .contains(
            "run 0",
            "repair 0",
            "quarantine-release 0",
            "reconcile-apply 0",
            "erase 0",
            "erase-json 0",
            "wrong-key-run 2",
            "wrong-shape-run 2",
            "in-url-run 2",
            "bad-yaml-run 2",
            "wrong-key-job 2",
            "wrong-key-inline 2",
            "dead-endpoint-run 4",
            "cluster-silver 0",
            "pii-plan 3",
            "pii-run 1",
            "pii-silver 1",
            "pii-export-runs 0",
            "spark-submit-cluster-mode 2",
            "spark-submit-kubernetes 2");
    assertThat(Files.readString(work.resolve("spark-submit-cluster-mode.err")))
        .contains("REPLAYSAFE_FORWARD_AWS_ENV=1 refused: in cluster deploy mode");
    assertThat(work.resolve("spark-home/submitted.txt"))
        .as("spark-submit never ran")
        .doesNotExist();
    assertThat(Files.readString(work.resolve("wrong-key-run.err")))
        .contains("unknown key 'storage.secretAccessKey'");
    assertThat(Files.readString(work.resolve("wrong-shape-run.err")))
        .contains("'storage.pathStyleAccess' has the wrong shape: expected true or false");

    byte[] needle = CANARY.getBytes(StandardCharsets.UTF_8);
    List<Path> leaks = new ArrayList<>();
    long files = 0;
    try (Stream<Path> all = Files.walk(work)) {
      for (Path file : all.filter(Files::isRegularFile).toList()) {
        if (file.getFileName().toString().endsWith(".yaml")) {
          continue; // the broken pipeline files hold the canary on purpose
        }
        files++;
        if (contains(Files.readAllBytes(file), needle)) {
          leaks.add(work.relativize(file));
        }
      }
    }
    assertThat(files).as("files searched").isGreaterThan(50);
    assertThat(leaks).as("files holding the canary").isEmpty();

    // Personal data: tables hold it (bronze, silver, the quarantine), so the copies of the store
    // and the commands that print a table's rows (export of a data layer, quarantine list) are
    // not searched; every other output, the run log's export and the process's log are.
    byte[] person = PERSONAL_DATA.getBytes(StandardCharsets.UTF_8);
    List<Path> personalLeaks = new ArrayList<>();
    long outputs = 0;
    try (Stream<Path> all = Files.walk(work)) {
      for (Path file : all.filter(Files::isRegularFile).toList()) {
        String name = file.getFileName().toString();
        if (name.endsWith(".yaml")
            || file.startsWith(work.resolve("store"))
            || name.matches("export-(bronze|silver|quarantine)\\..*")
            || name.startsWith("quarantine-list.")) {
          continue;
        }
        outputs++;
        if (contains(Files.readAllBytes(file), person)) {
          personalLeaks.add(work.relativize(file));
        }
      }
    }
    assertThat(Files.readString(work.resolve("pii-run.out"))).contains("row hash ");
    assertThat(outputs).as("outputs searched").isGreaterThan(40);
    assertThat(personalLeaks).as("outputs holding the personal-data canary").isEmpty();
  }

  /**
   * The end of the stderr of every command that exited with a code the test does not expect, so
   * that a failure in CI says why (the child's files go with the temporary directory).
   */
  private String unexpectedExits(List<String> summary) throws java.io.IOException {
    StringBuilder why = new StringBuilder();
    for (String line : summary) {
      String[] nameAndCode = line.split(" ");
      boolean expectedFailure =
          nameAndCode[0].startsWith("wrong-")
              || nameAndCode[0].startsWith("in-url-")
              || nameAndCode[0].startsWith("bad-yaml-")
              || nameAndCode[0].startsWith("dead-endpoint-");
      Path err = work.resolve(nameAndCode[0] + ".err");
      if (!expectedFailure && !"0".equals(nameAndCode[1]) && Files.exists(err)) {
        String text = Files.readString(err);
        why.append("\n--- ")
            .append(line)
            .append(", the end of its stderr:\n")
            .append(text, Math.max(0, text.length() - 4000), text.length());
      }
    }
    return why.toString();
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
