package io.replaysafe.bronze.bench;

import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.s3.EmbeddedS3Server.S3Credentials;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * The embedded S3 endpoint in a JVM of its own, for {@link DiscoveryBenchmark}: its in-memory store
 * holds every object of the landing and lake buckets (100,000 landing files and the tables' files
 * at the largest size), which in the benchmark's JVM would be part of every heap reading and grow
 * with the size measured, and each table write a run makes would land in that heap as a run's own.
 * Here the benchmark's heap is bronze's alone.
 *
 * <p>The parent chooses the credentials and hands them over in the child's environment (never on
 * its command line, which other users of the machine can read); the child prints only its port, and
 * stops when its standard input closes (the parent stopped it, or died).
 */
final class SeparateS3Server implements AutoCloseable {
  static final String KEY_ENV = "REPLAYSAFE_BENCH_S3_KEY";
  static final String SECRET_ENV = "REPLAYSAFE_BENCH_S3_SECRET";

  private final Process process;
  private final URI endpoint;
  private final S3Credentials credentials;

  private SeparateS3Server(Process process, URI endpoint, S3Credentials credentials) {
    this.process = process;
    this.endpoint = endpoint;
    this.credentials = credentials;
  }

  /**
   * Starts the child JVM on this JVM's class path, with {@code buckets}, and waits for its port.
   */
  static SeparateS3Server start(List<String> buckets) throws IOException {
    S3Credentials credentials = S3Credentials.random(new SecureRandom());
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-Xmx3g");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SeparateS3Server.class.getName());
    command.add(String.join(",", buckets));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put(KEY_ENV, credentials.accessKeyId());
    builder.environment().put(SECRET_ENV, credentials.secretAccessKey());
    builder.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process process = builder.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    if (line == null || !line.startsWith("port ")) {
      process.destroy();
      throw new IOException("the separate S3 server did not start: " + line);
    }
    int port = Integer.parseInt(line.substring("port ".length()).strip());
    return new SeparateS3Server(process, URI.create("http://127.0.0.1:" + port), credentials);
  }

  URI endpoint() {
    return endpoint;
  }

  S3Credentials credentials() {
    return credentials;
  }

  @Override
  public void close() throws InterruptedException {
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // already closed: the child sees its input end either way
    }
    if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroy();
    }
  }

  /** The child: serves until its standard input closes. */
  public static void main(String[] args) throws IOException {
    S3Credentials credentials =
        new S3Credentials(System.getenv(KEY_ENV), System.getenv(SECRET_ENV));
    try (EmbeddedS3Server server =
        EmbeddedS3Server.start(0, List.of(args[0].split(",")), credentials)) {
      System.out.println("port " + server.port());
      System.out.flush();
      while (System.in.read() >= 0) {
        // nothing is sent: the parent closes the stream to stop the server
      }
    }
  }
}
