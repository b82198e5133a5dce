package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.S3LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Notification mode's own rules, over the in-process S3 and SQS endpoints: between backfills a run
 * lists nothing and reads only the queue; what is not a new file of the source is counted and
 * acknowledged; what is not an S3 notification stays on the queue; a message stays until its batch
 * committed.
 */
class NotificationModeTest extends SparkTestBase {
  private static final String BUCKET = "bronze-notifications";
  private static EmbeddedS3Server server;
  private static S3LandingZone zone;
  private SqsQueue queue;
  private String run;

  @BeforeAll
  static void startS3() {
    server = EmbeddedS3Server.start(0, List.of(BUCKET));
    server.credentials().installAsSystemProperties();
    zone =
        new S3LandingZone(
            StorageConfig.of(server.endpoint().toString(), "us-east-1", true), BUCKET, "it");
  }

  @AfterAll
  static void stopS3() {
    server.close();
  }

  @BeforeEach
  void startQueue() {
    run = "n" + UUID.randomUUID().toString().substring(0, 8);
    // A message received and not deleted comes back after a second (SQS's default is 30 s).
    queue = SqsQueue.start("events-" + run, 1);
  }

  @AfterEach
  void stopQueue() {
    queue.close();
  }

  private String key(String relative) {
    return "it/" + run + "/" + relative;
  }

  /** Lands the object; announces it unless {@code announced} is false. */
  private void land(String relative, String line, boolean announced) {
    byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
    zone.put(run + "/" + relative, bytes);
    if (announced) {
      queue.notifyCreated(BUCKET, key(relative), bytes.length, "etag-" + relative);
    }
  }

  private PipelineConfig config(String extra) {
    return ConfigLoader.parse(
        "test",
        "name: orders\n"
            + zone.storageYaml()
            + "source:\n  path: "
            + zone.root()
            + "/"
            + run
            + "/landing\n  schema: \"order_id BIGINT, status STRING\"\n"
            + "  discovery: notifications\n  queueUrl: "
            + queue.url()
            + "\n"
            + extra
            + "bronze:\n  path: "
            + zone.root()
            + "/"
            + run
            + "/bronze\n  checkpoint: "
            + zone.root()
            + "/"
            + run
            + "/checkpoint\n");
  }

  private List<String> files(PipelineConfig config) {
    return rows(
        FileStateView.files(spark, config, FileStateView.Filter.ALL)
            .orElseThrow()
            .selectExpr("regexp_extract(path, '[^/]+$', 0)", "status", "discovered_by", "rows")
            .orderBy("path"));
  }

  @Test
  void readsOnlyTheQueueBetweenBackfillsAndCountsWhatItIgnores() throws Exception {
    PipelineConfig daily = config("  options:\n    pathGlobFilter: \"*.json\"\n");
    land("landing/a.json", "{\"order_id\":1,\"status\":\"Created\"}", true);

    BronzeResult first = BronzeIngest.from(daily, spark).execute();
    // The first run lists too: its backfill, as Auto Loader's includeExistingFiles.
    assertThat(first.files()).isEqualTo(1);
    assertThat(first.discovery().backfill()).isTrue();

    land("landing/b.json", "{\"order_id\":2,\"status\":\"Created\"}", false); // never announced
    land("landing/c.json", "{\"order_id\":3,\"status\":\"Created\"}", true);
    queue.notifyCreated(BUCKET, key("landing/c.json"), 36, "etag-c"); // a duplicate
    queue.send(SqsQueue.testEvent(BUCKET));
    queue.send(SqsQueue.objectRemoved(BUCKET, key("landing/a.json"), Instant.now()));
    queue.notifyCreated(BUCKET, key("elsewhere/x.json"), 10, "etag-x");
    queue.notifyCreated(BUCKET, key("landing/notes.txt"), 10, "etag-n");
    queue.send("hello, not an S3 notification");

    BronzeResult second = BronzeIngest.from(daily, spark).execute();

    assertThat(second).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(1L, 1L);
    assertThat(second.discovery())
        .usingRecursiveComparison()
        .ignoringFields("sqsCalls")
        .isEqualTo(new DiscoveryCounts(5, 1, 1, 2, 1, false, 0));
    assertThat(second.discovery().sqsCalls()).isPositive();
    assertThat(second.summary())
        .contains(
            "notifications: 5 (ignored: 1 test event(s), 1 removal(s), 2 outside the source; 1"
                + " message(s) not S3 notifications left on the queue; ");
    // Only the message that is not a notification is still there.
    assertThat(queue.depth()).isEqualTo(1);
    assertThat(files(daily))
        .containsExactly("a.json|ingested|notification|1", "c.json|ingested|notification|1");

    // The backfill comes when its interval has passed, and finds the file never announced.
    PipelineConfig often =
        config("  backfillInterval: 1 second\n  options:\n    pathGlobFilter: \"*.json\"\n");
    Thread.sleep(1100);
    BronzeResult third = BronzeIngest.from(often, spark).execute();
    assertThat(third.files()).isEqualTo(1);
    assertThat(third.discovery().backfill()).isTrue();
    assertThat(files(often))
        .containsExactly(
            "a.json|ingested|notification|1",
            "b.json|ingested|backfill|1",
            "c.json|ingested|notification|1");
  }

  /**
   * A run with nothing new starts no query, yet does what a run does when its query stopped: the
   * duplicate notification and the test event are deleted, the backfill that was due is recorded.
   * The next run with a new file reads the queue once (its query plans from the run's look): two
   * receives, the second finding the queue empty, and one delete.
   */
  @Test
  void aRunWithNothingNewStartsNoQueryYetDeletesItsMessagesAndRecordsItsBackfill()
      throws Exception {
    PipelineConfig often = config("  backfillInterval: 1 second\n");
    land("landing/a.json", "{\"order_id\":1,\"status\":\"Created\"}", true);
    BronzeResult first = BronzeIngest.from(often, spark).execute();
    assertThat(first.files()).isEqualTo(1);
    queue.notifyCreated(BUCKET, key("landing/a.json"), 36, "etag-a"); // delivered again
    queue.send(SqsQueue.testEvent(BUCKET));
    Thread.sleep(1100); // the backfill is due again
    Instant idleStarted = Instant.now();

    BronzeResult idle;
    try (QueryStarts starts = QueryStarts.listen(spark)) {
      idle = BronzeIngest.from(often, spark).execute();
      assertThat(starts.names()).as("queries started by a run with nothing new").isEmpty();
    }

    assertThat(idle)
        .extracting(BronzeResult::files, BronzeResult::rows, BronzeResult::bronzeVersion)
        .containsExactly(0L, 0L, first.bronzeVersion());
    assertThat(idle.discovery())
        .usingRecursiveComparison()
        .ignoringFields("sqsCalls")
        .isEqualTo(new DiscoveryCounts(1, 1, 0, 0, 0, true, 0));
    assertThat(queue.depth()).isZero();
    String checkpoint = zone.root() + "/" + run + "/checkpoint";
    assertThat(FileState.of(spark, checkpoint).lastBackfill())
        .hasValueSatisfying(at -> assertThat(at).isAfterOrEqualTo(idleStarted));

    PipelineConfig daily = config("");
    land("landing/b.json", "{\"order_id\":2,\"status\":\"Shipped\"}", true);
    BronzeResult next;
    try (QueryStarts starts = QueryStarts.listen(spark)) {
      next = BronzeIngest.from(daily, spark).execute();
      assertThat(starts.names()).containsExactly("replaysafe_bronze_orders");
    }
    assertThat(next).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(1L, 1L);
    assertThat(next.discovery())
        .extracting(DiscoveryCounts::notifications, DiscoveryCounts::backfill)
        .containsExactly(1L, false);
    assertThat(next.discovery().sqsCalls()).isEqualTo(3);
    assertThat(queue.depth()).isZero();
    assertThat(files(daily))
        .containsExactly("a.json|ingested|notification|1", "b.json|ingested|notification|1");
  }

  @Test
  void keepsTheMessageOfAFileWhoseBatchDidNotCommit() throws InterruptedException {
    PipelineConfig strict = config("  schemaEvolutionMode: failOnNewColumns\n");
    BronzeIngest.from(strict, spark).execute(); // the first run's backfill: nothing yet
    land("landing/new.json", "{\"order_id\":1,\"status\":\"Created\",\"channel\":\"web\"}", true);

    assertThatThrownBy(() -> BronzeIngest.from(strict, spark).execute())
        .isInstanceOf(NewColumnException.class);

    assertThat(queue.depth()).isEqualTo(1);
    Thread.sleep(1100); // its visibility timeout
    // Rescued instead, the same notification brings the file in once, and is deleted.
    BronzeResult rescued = BronzeIngest.from(config(""), spark).execute();
    assertThat(rescued).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(1L, 1L);
    assertThat(queue.depth()).isZero();
  }

  private long lastCommitted(PipelineConfig config) {
    try {
      return FileSourceLog.lastCommittedBatch(
              spark.sparkContext().hadoopConfiguration(), config.bronze().checkpoint())
          .orElse(-1);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void await(java.util.function.BooleanSupplier condition, String what)
      throws InterruptedException {
    long end = System.nanoTime() + java.time.Duration.ofMinutes(2).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(end);
      Thread.sleep(100);
    }
  }

  @Test
  void aContinuousRunDeletesEachMessageOnceItsBatchCommittedNotWhenItEnds() throws Exception {
    // Two files, one batch each: the second waits for a later batch, and its message with it.
    PipelineConfig config = config("  options:\n    maxFilesPerTrigger: \"1\"\n");
    BronzeIngest.from(config, spark).execute(); // the first run's backfill: nothing yet
    land("landing/a.json", "{\"order_id\":1,\"status\":\"Created\"}", true);
    land("landing/b.json", "{\"order_id\":2,\"status\":\"Shipped\"}", true);
    io.replaysafe.common.spark.ContinuousTrigger trigger =
        io.replaysafe.common.spark.ContinuousTrigger.every(
            java.time.Duration.ofMillis(300), () -> {});
    java.util.concurrent.CompletableFuture<BronzeResult> running =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> BronzeIngest.from(config, spark).continuous(trigger).execute());
    try {
      await(() -> lastCommitted(config) >= 1, "both batches to commit");
      // Both messages go while the run goes on: a run of days must not hold them (they would
      // come back every visibility timeout, and end in a dead-letter queue).
      await(() -> queue.depth() == 0, "both messages to be deleted");
      assertThat(running).isNotDone();
    } finally {
      trigger.requestStop("test");
      for (var query : spark.streams().active()) {
        query.stop();
      }
    }
    BronzeResult result = running.get(2, java.util.concurrent.TimeUnit.MINUTES);

    assertThat(result.files()).isEqualTo(2);
    assertThat(files(config))
        .containsExactly("a.json|ingested|notification|1", "b.json|ingested|notification|1");
    assertThat(queue.depth()).isZero();
  }

  /** A clock the test moves. */
  private static final class MovingClock extends java.time.Clock {
    private Instant now;

    MovingClock(Instant now) {
      this.now = now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return java.time.ZoneOffset.UTC;
    }

    @Override
    public java.time.Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private static List<String> names(List<FileState.Discovered> files) {
    return files.stream().map(f -> f.path().replaceAll(".*/", "")).sorted().toList();
  }

  @Test
  void aRunOfDaysBackfillsOnceEachIntervalAndListsNothingBetween() {
    PipelineConfig config = config("");
    BronzeIngest.from(config, spark).execute(); // the first run's backfill: nothing yet
    land("landing/a.json", "{\"order_id\":1,\"status\":\"Created\"}", false);
    MovingClock clock = new MovingClock(Instant.now().plus(java.time.Duration.ofDays(2)));
    try (NotificationDiscovery discovery =
        new NotificationDiscovery(
            SqsClients.forQueue(config.storage(), queue.url()),
            config.source(),
            spark.sparkContext().hadoopConfiguration(),
            FileState.of(spark, config.bronze().checkpoint()),
            clock)) {
      // Due: the backfill finds the file whose notification never came.
      assertThat(names(discovery.discover())).containsExactly("a.json");
      discovery.planned(0, List.of(discovery.discover().get(0).path()), List.of());
      discovery.release(0); // batch 0 committed: the backfill is recorded, its files let go

      land("landing/b.json", "{\"order_id\":2,\"status\":\"Shipped\"}", false);
      clock.now = clock.now.plus(java.time.Duration.ofHours(23));
      assertThat(discovery.discover()).as("within the interval: no listing").isEmpty();

      clock.now = clock.now.plus(java.time.Duration.ofHours(2));
      assertThat(names(discovery.discover())).as("a day on: the next backfill").contains("b.json");
    }
  }
}
