package io.replaysafe.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Spark standalone cluster on loopback: one master and N workers, each its own JVM started from a
 * stand-in {@code SPARK_HOME} of Maven's jars, as {@code sbin/start-master.sh} and {@code
 * sbin/start-worker.sh} would start them. Each worker launches its executors as child JVMs of its
 * own from the same {@code SPARK_HOME}.
 *
 * <p>No daemon inherits AWS credentials from this JVM's environment: whatever an executor
 * authenticates with must come through the application, not through the machine.
 */
final class StandaloneCluster implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

  /** A worker: its JVM, its {@code --work-dir} (one directory per app and executor) and its log. */
  record Worker(int number, Process process, Path workDir, Path log) {}

  private final Path sparkHome;
  private final Path logs;
  private final int masterPort;
  private final int masterUiPort;
  private final Process master;
  private final List<Worker> workers = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  private StandaloneCluster(Path sparkHome, Path logs, int masterPort, int masterUiPort)
      throws IOException {
    this.sparkHome = sparkHome;
    this.logs = logs;
    this.masterPort = masterPort;
    this.masterUiPort = masterUiPort;
    this.master =
        daemon(
            "master",
            List.of(
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                String.valueOf(masterPort),
                "--webui-port",
                String.valueOf(masterUiPort)));
  }

  /**
   * Starts a master and {@code workers} workers of {@code cores} cores and {@code memory} each
   * ("1g"), and returns once the master counts them all alive.
   */
  static StandaloneCluster start(Path sparkHome, Path dir, int workers, int cores, String memory)
      throws IOException, InterruptedException {
    Path logs = Files.createDirectories(dir.resolve("logs"));
    StandaloneCluster cluster = new StandaloneCluster(sparkHome, logs, freePort(), freePort());
    try {
      for (int i = 1; i <= workers; i++) {
        cluster.startWorker(i, dir, cores, memory);
      }
      cluster.awaitAliveWorkers(workers);
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** The master URL for {@code --master}. */
  String masterUrl() {
    return "spark://127.0.0.1:" + masterPort;
  }

  List<Worker> workers() {
    return List.copyOf(workers);
  }

  Path logs() {
    return logs;
  }

  /** SIGKILLs a worker and the executors it launched: a machine lost mid-job. */
  void killWorker(Worker worker) throws InterruptedException {
    List<ProcessHandle> tree =
        Stream.concat(worker.process().descendants(), Stream.of(worker.process().toHandle()))
            .toList();
    tree.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle handle : tree) {
      handle.onExit().join();
    }
  }

  /** The master's view: {@code aliveworkers}, {@code activeapps}, ... ({@code /json}). */
  JsonNode masterState() throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + masterUiPort + "/json/"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(response.body());
  }

  private void startWorker(int number, Path dir, int cores, String memory) throws IOException {
    Path workDir = Files.createDirectories(dir.resolve("worker-" + number));
    Process process =
        daemon(
            "worker-" + number,
            List.of(
                "org.apache.spark.deploy.worker.Worker",
                masterUrl(),
                "--host",
                "127.0.0.1",
                "--port",
                String.valueOf(freePort()),
                "--webui-port",
                String.valueOf(freePort()),
                "--cores",
                String.valueOf(cores),
                "--memory",
                memory,
                "--work-dir",
                workDir.toString()));
    workers.add(new Worker(number, process, workDir, logs.resolve("worker-" + number + ".log")));
  }

  private void awaitAliveWorkers(int expected) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      if (!master.isAlive()) {
        throw new IllegalStateException(
            "The master died on start; its log:\n" + Files.readString(logs.resolve("master.log")));
      }
      try {
        JsonNode state = masterState();
        last = state.toString();
        if (state.path("aliveworkers").asInt() == expected) {
          return;
        }
      } catch (IOException e) {
        last = e.toString(); // not listening yet
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException(
        "The master did not count "
            + expected
            + " alive workers within "
            + START_TIMEOUT
            + " (last state: "
            + last
            + "); see the logs in "
            + logs);
  }

  private Process daemon(String name, List<String> mainAndArgs) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ClusterJarSupport.java());
    command.addAll(ClusterJarSupport.sparkJvmFlags());
    // Small daemons, C1 only: they schedule, they do not compute.
    command.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    command.addAll(List.of("-cp", sparkHome.resolve("jars") + "/*"));
    command.addAll(mainAndArgs);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.redirectOutput(logs.resolve(name + ".log").toFile());
    Map<String, String> env = builder.environment();
    cleanEnvironment(env);
    env.put("SPARK_HOME", sparkHome.toString());
    // Without it a worker cannot build an executor's command ("Cannot find any build
    // directories"): a distribution sets it in bin/load-spark-env.sh.
    env.put("SPARK_SCALA_VERSION", "2.13");
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    return builder.start();
  }

  /** Nothing of this JVM's environment that is a credential or another Spark installation. */
  static void cleanEnvironment(Map<String, String> env) {
    env.keySet().removeIf(name -> name.startsWith("AWS_") || name.startsWith("SPARK_"));
    env.remove("DATABRICKS_RUNTIME_VERSION");
    env.remove("HADOOP_CONF_DIR");
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find a free port on loopback", e);
    }
  }

  @Override
  public void close() {
    List<Process> all = new ArrayList<>();
    workers.forEach(w -> all.add(w.process()));
    all.add(master);
    for (Process process : all) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroy();
    }
    for (Process process : all) {
      try {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }
}
