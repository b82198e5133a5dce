package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The CLI's default logging: library warnings in a file, not on the terminal. */
class QuietLoggingTest {
  @TempDir Path dir;

  @AfterEach
  void restoreTestLogging() {
    Configurator.reconfigure();
  }

  @Test
  void libraryWarningsGoToTheLogFileWhichIsCreatedOnlyWhenSomethingIsLogged() throws Exception {
    Path file = dir.resolve("logs/replaysafe.log");
    QuietLogging.install(file);
    LogManager.getLogger("org.apache.spark.sql.catalyst.util.SparkStringUtils")
        .info("an info line stays out");
    assertThat(file).doesNotExist();

    LogManager.getLogger("org.apache.spark.sql.catalyst.util.SparkStringUtils")
        .warn("Truncated the string representation of a plan");
    LogManager.getLogger("org.apache.hadoop.fs.s3a.S3AFileSystem").error("an S3A error");
    LogManager.getLogger("io.replaysafe.bronze.BronzeIngest").warn("a replaysafe warning");

    assertThat(Files.readAllLines(file))
        .hasSize(3)
        .satisfiesExactly(
            l ->
                assertThat(l)
                    .endsWith(
                        " WARN SparkStringUtils: Truncated the string representation of a plan"),
            l -> assertThat(l).endsWith(" ERROR S3AFileSystem: an S3A error"),
            l -> assertThat(l).endsWith(" WARN BronzeIngest: a replaysafe warning"));
  }

  @Test
  void verboseIsAcceptedOnEveryCommandAndDetectedAtAnyLevel() {
    CommandLine cli = ReplaysafeCli.commandLine(System.out, System.err);
    assertThat(ReplaysafeCli.verbose(cli.parseArgs("run", "--config", "x.yaml", "--verbose")))
        .isTrue();
    cli = ReplaysafeCli.commandLine(System.out, System.err);
    assertThat(ReplaysafeCli.verbose(cli.parseArgs("--verbose", "plan", "--config", "x.yaml")))
        .isTrue();
    cli = ReplaysafeCli.commandLine(System.out, System.err);
    assertThat(ReplaysafeCli.verbose(cli.parseArgs("plan", "--config", "x.yaml"))).isFalse();
  }
}
