package io.replaysafe.bronze;

import io.replaysafe.common.s3.EmbeddedS3Objects;
import io.replaysafe.common.s3.EmbeddedS3Server;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * The landing prefix's listing on S3 alone, without a run around it: S3A's bare {@code
 * listFiles(root, true)} (bench-discovery's bare listing), the same with each file made a {@code
 * Discovered} (the listing of every S3 run before {@link S3PrefixListing}), and {@link
 * S3PrefixListing}, in turn, each timed (wall, and this JVM's CPU) after two warm-up rounds. The
 * embedded endpoint runs in a JVM of its own, which holds the files: this JVM's CPU is the
 * listing's. Not a test: {@code java -cp <bronze test class path>
 * io.replaysafe.bronze.S3ListingTimings [files,...] [rounds]}.
 */
public final class S3ListingTimings {
  private static final com.sun.management.OperatingSystemMXBean CPU =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private static final String KEY_ENV = "REPLAYSAFE_TIMINGS_S3_KEY";
  private static final String SECRET_ENV = "REPLAYSAFE_TIMINGS_S3_SECRET";
  private static final String BUCKET = "timings";

  private interface Listing {
    long list(FileSystem fs, Path root) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 1 && args[0].equals("--serve")) {
      serve(args[1]);
      return;
    }
    String sizes = args.length > 0 ? args[0] : "1000,100000";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    // The endpoint's credentials go to its JVM in its environment, never on its command line.
    EmbeddedS3Server.S3Credentials credentials =
        EmbeddedS3Server.S3Credentials.random(new SecureRandom());
    ProcessBuilder child =
        new ProcessBuilder(
            ProcessHandle.current().info().command().orElse("java"),
            "-Xmx3g",
            "-cp",
            System.getProperty("java.class.path"),
            S3ListingTimings.class.getName(),
            "--serve",
            sizes);
    child.environment().put(KEY_ENV, credentials.accessKeyId());
    child.environment().put(SECRET_ENV, credentials.secretAccessKey());
    child.redirectError(ProcessBuilder.Redirect.DISCARD);
    Process server = child.start();
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      String port = out.readLine();
      if (port == null || !port.startsWith("port ")) {
        throw new IllegalStateException("the endpoint's JVM answered " + port);
      }
      measure("http://127.0.0.1:" + port.substring("port ".length()), credentials, sizes, rounds);
    } finally {
      server.getOutputStream().close();
      server.waitFor();
    }
  }

  /** The endpoint's JVM: each size's files put, its port printed; stops when stdin closes. */
  private static void serve(String sizes) throws Exception {
    EmbeddedS3Server.S3Credentials credentials =
        new EmbeddedS3Server.S3Credentials(System.getenv(KEY_ENV), System.getenv(SECRET_ENV));
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of(BUCKET), credentials)) {
      for (int n : sizes(sizes)) {
        for (int i = 0; i < n; i++) {
          byte[] line =
              ("{\"order_id\":" + i + ",\"status\":\"Created\"}\n")
                  .getBytes(StandardCharsets.UTF_8);
          EmbeddedS3Objects.put(server, BUCKET, "landing-" + n + "/f" + i + ".json", line);
        }
      }
      System.out.println("port " + server.port());
      System.out.flush();
      while (System.in.read() >= 0) {
        // until the parent closes this JVM's standard input
      }
    }
  }

  private static void measure(
      String endpoint, EmbeddedS3Server.S3Credentials credentials, String sizes, int rounds)
      throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.s3a.endpoint", endpoint);
    conf.set("fs.s3a.endpoint.region", "us-east-1");
    conf.setBoolean("fs.s3a.path.style.access", true);
    conf.setBoolean("fs.s3a.connection.ssl.enabled", false);
    conf.setInt("fs.s3a.bucket.probe", 0);
    conf.set(
        "fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    conf.set("fs.s3a.access.key", credentials.accessKeyId());
    conf.set("fs.s3a.secret.key", credentials.secretAccessKey());
    List<String> names = List.of("bare listFiles", "listFiles + Discovered", "S3PrefixListing");
    List<Listing> ways =
        List.of(
            (fs, root) -> {
              long n = 0;
              RemoteIterator<LocatedFileStatus> it = fs.listFiles(root, true);
              while (it.hasNext()) {
                it.next();
                n++;
              }
              return n;
            },
            (fs, root) -> {
              long[] n = {0};
              ListingDiscovery.listFiles(fs, fs.makeQualified(root), null, d -> n[0]++);
              return n[0];
            },
            (fs, root) -> {
              long[] n = {0};
              if (!S3PrefixListing.list(fs, fs.makeQualified(root), null, d -> n[0]++)) {
                throw new IllegalStateException("not listed with S3A's client");
              }
              return n[0];
            });
    System.out.printf(
        Locale.ROOT,
        "load average %.2f at the start%n",
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    try (FileSystem fs = FileSystem.get(URI.create("s3a://" + BUCKET + "/"), conf)) {
      for (int n : sizes(sizes)) {
        Path root = new Path("s3a://" + BUCKET + "/landing-" + n);
        for (int warm = 0; warm < 2; warm++) {
          for (Listing way : ways) {
            way.list(fs, root);
          }
        }
        double[][] wall = new double[ways.size()][rounds];
        double[][] cpu = new double[ways.size()][rounds];
        for (int r = 0; r < rounds; r++) {
          // Each round starts with another way, so that none always follows a collection.
          for (int i = 0; i < ways.size(); i++) {
            int k = (r + i) % ways.size();
            System.gc();
            long start = System.nanoTime();
            long cpuStart = CPU.getProcessCpuTime();
            long listed = ways.get(k).list(fs, root);
            wall[k][r] = (System.nanoTime() - start) / 1e9;
            cpu[k][r] = (CPU.getProcessCpuTime() - cpuStart) / 1e9;
            if (listed != n) {
              throw new IllegalStateException(names.get(k) + " listed " + listed + " of " + n);
            }
          }
        }
        for (int k = 0; k < ways.size(); k++) {
          System.out.printf(
              Locale.ROOT,
              "%7d files  %-24s wall s median %.3f (%s)  cpu s median %.3f (%s)%n",
              n,
              names.get(k),
              median(wall[k]),
              each(wall[k]),
              median(cpu[k]),
              each(cpu[k]));
        }
      }
    }
  }

  private static List<Integer> sizes(String sizes) {
    List<Integer> each = new ArrayList<>();
    for (String s : sizes.split(",")) {
      each.add(Integer.parseInt(s.strip().replace("_", "")));
    }
    return each;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static String each(double[] values) {
    List<String> each = new ArrayList<>();
    for (double v : values) {
      each.add(String.format(Locale.ROOT, "%.3f", v));
    }
    return String.join(" ", each);
  }
}
