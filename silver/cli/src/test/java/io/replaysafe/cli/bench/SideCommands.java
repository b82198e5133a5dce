package io.replaysafe.cli.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The command each side is started with, as its users start it: replaysafe through the launcher
 * ({@code scripts/replaysafe run --config FILE --json}, with its class-data sharing archive), the
 * hand-written job as a plain {@code java} command. Both get the same heap and the launcher's JVM
 * flags ({@code spark.jvm.flags} in pom.xml); on s3a both reach the same endpoint, credentials in
 * the environment.
 */
final class SideCommands {
  private final Path checkout;
  private final String heap;
  private final List<String> jvmFlags;
  private final String handWrittenClasspath;
  private final Path logging;

  private SideCommands(
      Path checkout,
      String heap,
      List<String> jvmFlags,
      String handWrittenClasspath,
      Path logging) {
    this.checkout = checkout;
    this.heap = heap;
    this.jvmFlags = jvmFlags;
    this.handWrittenClasspath = handWrittenClasspath;
    this.logging = logging;
  }

  /** From the system properties scripts/bench-scheduled sets. */
  static SideCommands fromSystemProperties() {
    Path checkout = Path.of(required("bench.root"));
    return new SideCommands(
        checkout,
        required("bench.heap"),
        Arrays.stream(required("bench.jvmFlags").trim().split("\\s+")).toList(),
        required("bench.handWrittenClasspath"),
        checkout.resolve("silver/cli/src/main/resources/log4j2.properties"));
  }

  /** The heap both sides run with; the launcher reads it from {@code REPLAYSAFE_JAVA_OPTS}. */
  String heap() {
    return heap;
  }

  /**
   * The launcher's class-data sharing archive. It holds the classes of the run that recorded it, so
   * the benchmark removes it before each storage's first (untimed) run: the timed runs then map the
   * classes a run on that storage loads, as a user's scheduled runs do.
   */
  Path classDataArchive() {
    return checkout.resolve("silver/cli/target/replaysafe-classes.jsa");
  }

  List<String> replaysafe(Path pipelineFile) {
    return List.of(
        checkout.resolve("scripts/replaysafe").toString(),
        "run",
        "--config",
        pipelineFile.toString(),
        "--json");
  }

  /** replaysafe's pipeline file for {@code lake}: keys, sequence and deletes as the seeds'. */
  Path pipelineFile(Lake lake, Optional<URI> s3Endpoint, Path dir) throws IOException {
    String storage =
        s3Endpoint
            .map(
                e ->
                    "storage:\n  endpoint: "
                        + e
                        + "\n  region: us-east-1\n  pathStyleAccess: true\n")
            .orElse("");
    String yaml =
        "name: orders\n"
            + storage
            + "source:\n  path: "
            + lake.landing().root()
            + "\n  schema: \""
            + OrderEvents.SCHEMA
            + "\"\nbronze:\n  path: "
            + lake.bronze()
            + "\n  checkpoint: "
            + lake.checkpoints()
            + "/bronze\nsilver:\n  path: "
            + lake.silver()
            + "\n  checkpoint: "
            + lake.checkpoints()
            + "/silver\n  keys: [order_id]\n  sequenceBy: [source_version]\n"
            + "  applyAsDeletes: \"op = 'DELETE'\"\n";
    Path file = dir.resolve("orders-" + (s3Endpoint.isPresent() ? "s3a" : "local") + ".yaml");
    Files.writeString(file, yaml);
    return file;
  }

  /** The hand-written job; on s3a, S3A's settings as Spark configuration in system properties. */
  List<String> handWritten(Lake lake, Optional<URI> s3Endpoint) {
    List<String> command = new ArrayList<>(List.of("java", heap));
    command.addAll(jvmFlags);
    command.add("-Dlog4j2.configurationFile=" + logging);
    s3Endpoint.ifPresent(
        e -> {
          command.add("-Dspark.hadoop.fs.s3a.endpoint=" + e);
          command.add("-Dspark.hadoop.fs.s3a.endpoint.region=us-east-1");
          command.add("-Dspark.hadoop.fs.s3a.path.style.access=true");
          command.add("-Dspark.hadoop.fs.s3a.connection.ssl.enabled=false");
        });
    command.addAll(
        List.of(
            "-cp",
            handWrittenClasspath,
            HandWrittenJob.class.getName(),
            lake.landing().root(),
            lake.bronze(),
            lake.silver(),
            lake.checkpoints()));
    return command;
  }

  private static String required(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "System property "
              + property
              + " is not set: start the benchmark with"
              + " scripts/bench-scheduled");
    }
    return value;
  }
}
