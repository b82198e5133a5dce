package io.replaysafe.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/spark-submit.sh} with {@code REPLAYSAFE_FORWARD_AWS_ENV=1} against a stand-in
 * spark-submit that records what it was given: the secret is on no command line; it reaches the
 * executors through a mode-600 properties file that also keeps spark-defaults.conf, and is removed.
 */
class SparkSubmitScriptTest {
  @TempDir Path dir;

  @Test
  void forwardedCredentialsGoThroughAPrivatePropertiesFileNeverTheCommandLine() throws Exception {
    Path home = dir.resolve("spark");
    Files.createDirectories(home.resolve("bin"));
    Files.createDirectories(home.resolve("jars"));
    Files.createDirectories(home.resolve("conf"));
    for (String jar :
        List.of(
            "delta-spark_2.13-4.4.0.jar", "hadoop-aws-3.5.0.jar", "scala-library-2.13.16.jar")) {
      Files.createFile(home.resolve("jars").resolve(jar));
    }
    Files.writeString(home.resolve("conf/spark-defaults.conf"), "spark.master local[1]\n");
    Path seen = Files.createDirectories(dir.resolve("seen"));
    Path submit = home.resolve("bin/spark-submit");
    Files.writeString(
        submit,
        "#!/usr/bin/env bash\n"
            + "printf '%s\\n' \"$@\" > \"$SEEN/args\"\n"
            + "prev=''\n"
            + "for a in \"$@\"; do\n"
            + "  if [ \"$prev\" = --properties-file ]; then\n"
            + "    stat -c %a \"$a\" > \"$SEEN/mode\"; cp \"$a\" \"$SEEN/props\";"
            + " echo \"$a\" > \"$SEEN/path\"\n"
            + "  fi\n"
            + "  prev=\"$a\"\n"
            + "done\n"
            + "exit 7\n");
    Files.setPosixFilePermissions(submit, PosixFilePermissions.fromString("rwx------"));
    Path jar = Files.createFile(dir.resolve("cluster.jar"));

    ProcessBuilder builder =
        new ProcessBuilder(
                InfraFilesTest.root().resolve("scripts/spark-submit.sh").toString(),
                "--master",
                "local",
                "silver",
                "--config",
                "p.yaml")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("out").toFile());
    builder.environment().put("SPARK_HOME", home.toString());
    builder.environment().put("SEEN", seen.toString());
    builder.environment().put("REPLAYSAFE_CLUSTER_JAR", jar.toString());
    builder.environment().put("REPLAYSAFE_FORWARD_AWS_ENV", "1");
    builder.environment().put("AWS_ACCESS_KEY_ID", "AKIDSUBMIT");
    builder.environment().put("AWS_SECRET_ACCESS_KEY", "s3cr/t+Canary\\x");
    builder.environment().put("AWS_SESSION_TOKEN", "tokenCanary");
    builder.environment().remove("SPARK_CONF_DIR");
    Process process = builder.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(process.exitValue()).as("spark-submit's exit code is passed on").isEqualTo(7);
    String args = Files.readString(seen.resolve("args"));
    assertThat(args).doesNotContain("Canary").contains("--properties-file");
    assertThat(Files.readString(seen.resolve("mode")).trim()).isEqualTo("600");
    assertThat(Files.readAllLines(seen.resolve("props")))
        .contains(
            "spark.master local[1]",
            "spark.executorEnv.AWS_SECRET_ACCESS_KEY=s3cr/t+Canary\\\\x",
            "spark.yarn.appMasterEnv.AWS_SECRET_ACCESS_KEY=s3cr/t+Canary\\\\x",
            "spark.executorEnv.AWS_SESSION_TOKEN=tokenCanary",
            "spark.executorEnv.AWS_ACCESS_KEY_ID=AKIDSUBMIT");
    assertThat(Path.of(Files.readString(seen.resolve("path")).trim())).doesNotExist();
  }
}
