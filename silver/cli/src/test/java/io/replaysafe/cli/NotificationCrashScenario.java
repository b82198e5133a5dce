package io.replaysafe.cli;

import static io.replaysafe.cli.CrashMatrix.delete;
import static io.replaysafe.cli.CrashMatrix.orders;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.bronze.SqsQueue;
import io.replaysafe.cli.CrashMatrix.Pipeline;
import io.replaysafe.cli.CrashMatrix.Step;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.S3LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.spark.sql.SparkSession;

/**
 * The crash matrix's notification-mode scenario ({@code source.discovery: notifications}), so a run
 * reaches the write boundaries only that mode has: the messages deleted, the backfill recorded. The
 * files are objects on the embedded S3 endpoint, announced on an SQS queue (ElasticMQ) with the
 * notifications S3 would send; bronze, its checkpoint (the file state) and silver stay in the
 * pipeline directory, as in {@link CrashScenarios}. Both endpoints live in the test JVM on loopback
 * ports: a child JVM reaches them through the pipeline file, with the credentials in its
 * environment.
 *
 * <p>Three runs:
 *
 * <ol>
 *   <li>The first run lists too (every first run backfills) and so finds, besides its announced
 *       file, one that landed unannounced (before notifications were set up, say).
 *   <li>Only the queue is read ({@code backfillInterval: 1 day}): an {@code s3:TestEvent}, the
 *       step's file announced twice byte for byte (SQS delivers at least once), and a file that
 *       lands unannounced and stays unfound.
 *   <li>The same tables through a second pipeline file with {@code backfillInterval: 1 second}, so
 *       this run's backfill is due whatever the timing: it finds the unannounced file, and reads
 *       the step's own notification and a late duplicate of the second step's.
 * </ol>
 *
 * <p>Silver (current state) gets an update, an older version, a delete, an exact retry, an in-batch
 * conflict, an invalid and a malformed row, a newer version from the backfilled file and an event
 * older than a delete.
 */
final class NotificationCrashScenario {
  static final String NAME = "notify-scd1";

  /**
   * How long a message received and not deleted stays invisible: short, so the messages a crashed
   * run took come back before its rerun (SQS's default is 30 s).
   */
  static final int VISIBILITY_SECONDS = 1;

  private static final String BUCKET = "crash-landing";
  private static final String SCHEMA =
      "order_id BIGINT, source_version BIGINT, status STRING, op STRING";

  private static EmbeddedS3Server server;
  private static Map<String, List<String>> faultFree;

  private NotificationCrashScenario() {}

  static List<Step> steps() {
    return List.of(
        new Step(
            "delivery 1",
            List.of(),
            NotificationCrashScenario::daily,
            p -> {
              Notified n = notified(p);
              n.land("before-the-queue.json", List.of(orders(5, 1, "Created")), false);
              n.land(
                  "delivery-1.json",
                  List.of(
                      orders(1, 10, "Created"),
                      orders(2, 10, "Created"),
                      orders(3, 10, "Created"),
                      orders(4, 10, "Created")),
                  true);
            }),
        new Step(
            "delivery 2",
            List.of(),
            NotificationCrashScenario::daily,
            p -> {
              Notified n = notified(p);
              n.testEvent();
              n.land(
                  "delivery-2.json",
                  List.of(
                      orders(1, 11, "Shipped"),
                      orders(1, 11, "Shipped"),
                      orders(2, 9, "Old"),
                      delete(3, 11),
                      orders(4, 12, "Alpha"),
                      orders(4, 12, "Beta"),
                      "{\"order_id\":null,\"source_version\":3,\"status\":\"x\",\"op\":\"UPSERT\"}",
                      "not json"),
                  true);
              n.announceAgain("delivery-2.json");
              n.land(
                  "never-announced.json",
                  List.of(orders(6, 20, "New"), orders(1, 12, "Delivered")),
                  false);
            }),
        new Step(
            "delivery 3",
            List.of(),
            NotificationCrashScenario::backfill,
            p -> {
              Notified n = notified(p);
              n.land(
                  "delivery-3.json",
                  List.of(orders(7, 1, "New"), orders(2, 12, "Paid"), orders(3, 5, "Ghost")),
                  true);
              n.announceAgain("delivery-2.json");
            }));
  }

  static int stepIndex(String name) {
    List<Step> steps = steps();
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException(name);
  }

  /** The run of steps 1 and 2: the queue only, after the first run's backfill. */
  private static List<String> daily(Pipeline p) {
    return List.of("run", "--config", p.file().toString());
  }

  /** The run of step 3, through the pipeline file whose backfill is always due. */
  private static List<String> backfill(Pipeline p) {
    return List.of("run", "--config", p.dir().resolve("pipeline-backfill.yaml").toString());
  }

  private static Notified notified(Pipeline p) {
    return (Notified) p.endpoints();
  }

  /** Stops the pipeline's queue (the S3 endpoint is shared: {@link #stopServer}). */
  static void close(Pipeline p) {
    notified(p).close();
  }

  /**
   * A pipeline in {@code dir} whose files land under its own prefix of the bucket and are announced
   * on its own queue; close its endpoints when done.
   */
  static Pipeline create(SparkSession spark, Path dir) throws IOException {
    EmbeddedS3Server s3 = server();
    String prefix = dir.getFileName().toString();
    Notified notified =
        new Notified(
            new S3LandingZone(
                StorageConfig.of(s3.endpoint().toString(), "us-east-1", true), BUCKET, prefix),
            prefix,
            SqsQueue.start("landing-" + UUID.randomUUID(), VISIBILITY_SECONDS),
            s3.credentials());
    Files.createDirectories(dir);
    Path daily = Files.writeString(dir.resolve("pipeline.yaml"), yaml(dir, notified, "1 day"));
    Files.writeString(dir.resolve("pipeline-backfill.yaml"), yaml(dir, notified, "1 second"));
    return new Pipeline(spark, dir, daily, notified);
  }

  private static String yaml(Path dir, Notified notified, String backfillInterval) {
    return "name: orders\n"
        + notified.zone.storageYaml()
        + "source:\n  path: "
        + notified.landing()
        + "/landing\n  schema: \""
        + SCHEMA
        + "\"\n  discovery: notifications\n  queueUrl: "
        + notified.queue.url()
        + "\n  backfillInterval: "
        + backfillInterval
        + "\nbronze:\n  path: "
        + dir.resolve("bronze")
        + "\n  checkpoint: "
        + dir.resolve("checkpoints/bronze")
        + "\nsilver:\n  path: "
        + dir.resolve("silver")
        + "\n  checkpoint: "
        + dir.resolve("checkpoints/silver")
        + "\n"
        + CrashScenarios.silverYaml(CrashScenarios.SCD1).indent(2);
  }

  /**
   * The embedded S3 endpoint, started on first use with its credentials installed in this JVM (a
   * child gets them in its environment, {@link Notified#childEnvironment}).
   */
  private static synchronized EmbeddedS3Server server() {
    if (server == null) {
      server = EmbeddedS3Server.start(0, List.of(BUCKET));
      server.credentials().installAsSystemProperties();
    }
    return server;
  }

  static synchronized void stopServer() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  /**
   * The tables after the scenario without faults, computed once per test JVM; first checks that the
   * runs found each file as the scenario says, each once, and emptied the queue.
   */
  static synchronized Map<String, List<String>> faultFree(SparkSession spark, Path dir)
      throws Exception {
    if (faultFree == null) {
      Pipeline p = create(spark, dir.resolve("fault-free-" + NAME));
      try {
        Map<String, List<String>> tables = CrashMatrix.faultFree(p, steps());
        assertFoundAsDescribed(p);
        faultFree = tables;
      } finally {
        close(p);
      }
    }
    return faultFree;
  }

  /**
   * Each file in the file state once, found the way the scenario says, in the batch of its run;
   * each in bronze once, a row per line; no message left on the queue (test event and duplicates
   * included).
   */
  static void assertFoundAsDescribed(Pipeline p) {
    SparkSession spark = p.spark();
    assertThat(
            SparkTestBase.rowsOf(
                spark
                    .read()
                    .format("delta")
                    .load(p.path("checkpoints/bronze/file_state"))
                    .selectExpr(
                        "regexp_extract(path, '[^/]+$', 0) AS file",
                        "discovered_by",
                        "batch_id",
                        "status")
                    .orderBy("file")))
        .containsExactly(
            "before-the-queue.json|backfill|0|ingested",
            "delivery-1.json|notification|0|ingested",
            "delivery-2.json|notification|1|ingested",
            "delivery-3.json|notification|2|ingested",
            "never-announced.json|backfill|2|ingested");
    assertThat(
            SparkTestBase.rowsOf(
                spark
                    .read()
                    .format("delta")
                    .load(p.path("bronze"))
                    .selectExpr("regexp_extract(source_file, '[^/]+$', 0) AS file")
                    .groupBy("file")
                    .count()
                    .orderBy("file")))
        .containsExactly(
            "before-the-queue.json|1",
            "delivery-1.json|4",
            "delivery-2.json|8",
            "delivery-3.json|3",
            "never-announced.json|2");
    assertThat(notified(p).queueDepth()).as("messages left on the queue").isZero();
  }

  /** A pipeline's S3 landing zone, under its own prefix, and its own queue. */
  static final class Notified implements CrashMatrix.Endpoints, AutoCloseable {
    private final S3LandingZone zone;
    private final String prefix;
    private final SqsQueue queue;
    private final EmbeddedS3Server.S3Credentials credentials;

    /** The notification sent for each file announced, to send again as SQS would. */
    private final Map<String, String> sent = new HashMap<>();

    private long sequencer = 0x0055AED6DCD90281L;

    Notified(
        S3LandingZone zone,
        String prefix,
        SqsQueue queue,
        EmbeddedS3Server.S3Credentials credentials) {
      this.zone = zone;
      this.prefix = prefix;
      this.queue = queue;
      this.credentials = credentials;
    }

    /** Puts {@code landing/FILE}; announces it as S3 would unless {@code announced} is false. */
    void land(String file, List<String> lines, boolean announced) {
      byte[] bytes = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
      String relative = "landing/" + file;
      zone.put(relative, bytes);
      if (announced) {
        String body =
            SqsQueue.objectCreated(
                BUCKET,
                prefix + "/" + relative,
                bytes.length,
                md5(bytes),
                Instant.now(),
                String.format("%018X", sequencer++));
        sent.put(file, body);
        queue.send(body);
      }
    }

    /** What S3 sends when a notification configuration is saved. */
    void testEvent() {
      queue.send(SqsQueue.testEvent(BUCKET));
    }

    /** The notification of {@code file} delivered again, byte for byte. */
    void announceAgain(String file) {
      queue.send(sent.get(file));
    }

    /** Messages on the queue, visible or in flight. */
    long queueDepth() {
      return queue.depth();
    }

    @Override
    public Map<String, String> childEnvironment() {
      return Map.of(
          "AWS_ACCESS_KEY_ID",
          credentials.accessKeyId(),
          "AWS_SECRET_ACCESS_KEY",
          credentials.secretAccessKey());
    }

    @Override
    public String landing() {
      return zone.root();
    }

    @Override
    public void afterCrash() throws InterruptedException {
      Thread.sleep((VISIBILITY_SECONDS + 1) * 1000L);
    }

    @Override
    public void close() {
      queue.close();
    }

    /** The ETag S3 gives an object put in one request. */
    private static String md5(byte[] content) {
      try {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
