package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.testing.FaultyS3Proxy;
import io.replaysafe.common.testing.S3LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a run with new files asks of the landing bucket, counted on the embedded endpoint through
 * the counting proxy (the tables and checkpoint in a bucket of their own): each new file is looked
 * up once when its batch is planned (a HEAD), then opened and read (S3A's HEAD on opening, a GET),
 * and nothing is listed for it. In notification mode between backfills that makes no LIST at all;
 * in listing mode only LISTs of the source's prefix. The same for CSV, whose reader opens its files
 * on its own.
 */
class NewFilesS3RequestsTest extends SparkTestBase {
  private static final Logger LOG = LoggerFactory.getLogger(NewFilesS3RequestsTest.class);
  private static final String LANDING = "new-files-landing";
  private static final String LAKE = "new-files-lake";
  private static final int NEW_FILES = 3;

  /**
   * The lookup that plans the batch, and S3A's when the reader opens the file (S3A 3.5.0 sent it
   * here even when told the file's length, {@code fs.option.openfile.length}).
   */
  private static final long HEADS_PER_FILE = 2;

  /**
   * A listing run's requests to the lake bucket with NEW_FILES new files, in a JVM that ran bronze
   * on the pipeline before (Delta's logs already loaded): measured, and pinned so that a change
   * that adds one is seen. See theFileStateIsWrittenInTwoCommitsWithoutReadingItsLog. 56 until
   * 2026-12-06, when the three commits' checksums stopped costing a HEAD each; 54 until bronze
   * committed its batches itself ({@link BronzeAppend}): Delta's sink read bronze's log again to
   * rebuild the table's state for the query's last batch.
   */
  private static final int LAKE_REQUESTS = 49;

  /**
   * Of those, the file state's: its look (a LIST of its log, its one data file's HEAD and GET); the
   * plan (one data file written on the driver: a PUT alone, its size known as it was written; the
   * commit: HEAD, PUT and HEAD; its checksum: a PUT alone); the mark, which reads the files it
   * rewrites (this run's plan, a HEAD and a GET; the previous run's compacted file, which the look
   * just read, costs nothing more) and writes one as the plan does, with its commit and checksum.
   * Written by Spark, each data file cost two HEADs more (23 requests until 2026-12-05); each
   * checksum cost a HEAD more until 2026-12-06 (17).
   */
  private static final int FILE_STATE_REQUESTS = 16;

  private static EmbeddedS3Server server;
  private static FaultyS3Proxy proxy;
  private static S3LandingZone zone;

  @BeforeAll
  static void start() throws Exception {
    server = EmbeddedS3Server.start(0, List.of(LANDING, LAKE));
    server.credentials().installAsSystemProperties();
    proxy = new FaultyS3Proxy(server.endpoint());
    zone =
        new S3LandingZone(
            StorageConfig.of(server.endpoint().toString(), "us-east-1", true), LANDING, "in");
  }

  @AfterAll
  static void stop() throws Exception {
    proxy.close();
    server.close();
  }

  @Test
  void notificationModeListsNothingForItsNewFiles() {
    notificationRunLooksEachNewFileUpOnce("n", "", ".json", NewFilesS3RequestsTest::json, "");
  }

  @Test
  void csvFilesAreLookedUpOnceAndReadWithoutAnotherLookup() {
    notificationRunLooksEachNewFileUpOnce(
        "c", "  format: csv\n", ".csv", NewFilesS3RequestsTest::csv, " (CSV)");
  }

  /**
   * A notification-mode run of NEW_FILES announced files in one format: no LIST on the landing
   * bucket, each file looked up and read once.
   */
  private void notificationRunLooksEachNewFileUpOnce(
      String prefix,
      String formatLine,
      String extension,
      java.util.function.IntFunction<byte[]> content,
      String label) {
    String run = prefix + UUID.randomUUID().toString().substring(0, 8);
    try (SqsQueue queue = SqsQueue.start("requests-" + run, 1)) {
      PipelineConfig config =
          config(run, formatLine + "  discovery: notifications\n  queueUrl: " + queue.url() + "\n");
      land(run, "f0" + extension, content.apply(0), queue);
      assertThat(BronzeIngest.from(config, spark).execute().files()).isEqualTo(1); // backfill
      for (int i = 1; i <= NEW_FILES; i++) {
        land(run, "f" + i + extension, content.apply(i), queue);
      }

      List<String> landing = landingRequestsOf(config, "notifications" + label);

      assertThat(proxy.requestsByKind(LANDING))
          .as("the landing bucket's requests, by kind")
          .isEqualTo(Map.of("HEAD", HEADS_PER_FILE * NEW_FILES, "GET", (long) NEW_FILES));
      assertEachNewFileLookedUpAndRead(run, extension, landing);
    }
  }

  @Test
  void listingModeListsOnlyThePrefix() {
    String run = "l" + UUID.randomUUID().toString().substring(0, 8);
    PipelineConfig config = config(run, "");
    land(run, "f0.json", json(0), null);
    assertThat(BronzeIngest.from(config, spark).execute().files()).isEqualTo(1);
    for (int i = 1; i <= NEW_FILES; i++) {
      land(run, "f" + i + ".json", json(i), null);
    }

    List<String> landing = landingRequestsOf(config, "listing");

    assertThat(landing)
        .as("the LISTs of the landing bucket: of the source's prefix, none of a file")
        .filteredOn(r -> r.startsWith("LIST "))
        .isNotEmpty()
        .allMatch(r -> r.endsWith("prefix=in%2F" + run + "%2Flanding%2F"));
    assertEachNewFileLookedUpAndRead(run, ".json", landing);
  }

  /**
   * The file state of a run with new files: two commits (the batch's files planned, then marked
   * ingested with the table's small files compacted into one), neither of which reads the table's
   * log back nor looks for its root. Delta's append, auto-compaction and UPDATE made three commits,
   * read every commit file twice and cost 75 requests in a fresh JVM (2026-12-03). The bronze run's
   * requests to the lake bucket are pinned.
   */
  @Test
  void theFileStateIsWrittenInTwoCommitsWithoutReadingItsLog() {
    String run = "s" + UUID.randomUUID().toString().substring(0, 8);
    PipelineConfig config = config(run, "");
    land(run, "f0.json", json(0), null);
    assertThat(BronzeIngest.from(config, spark).execute().files()).isEqualTo(1);
    for (int i = 1; i <= NEW_FILES; i++) {
      land(run, "f" + i + ".json", json(i), null);
    }

    proxy.resetCounts();
    proxy.recordTargets(true);
    BronzeResult result = BronzeIngest.from(config, spark).execute();
    proxy.recordTargets(false);

    assertThat(result.files()).isEqualTo(NEW_FILES);
    List<String> lake =
        proxy.recordedTargets().stream().filter(r -> r.contains("/" + LAKE)).toList();
    List<String> fileState = lake.stream().filter(r -> r.contains("file_state")).toList();
    LOG.warn(
        "A listing run with {} new files: lake bucket {} requests {}:\n  {}",
        NEW_FILES,
        lake.size(),
        proxy.requestsByKind(LAKE),
        String.join("\n  ", lake));
    String log = "/" + LAKE + "/" + run + "/checkpoint/file_state/_delta_log/";
    assertThat(fileState)
        .as("the file state's commits")
        .filteredOn(r -> r.startsWith("PUT " + log) && r.endsWith(".json"))
        .hasSize(2);
    assertThat(fileState)
        .as("reads of the file state's commit files, and probes for its root")
        .noneMatch(r -> r.startsWith("GET " + log) && r.endsWith(".json"))
        .noneMatch(
            r -> r.startsWith("HEAD /" + LAKE + "/" + run + "/checkpoint/file_state/_delta_log "));
    // The mark's read of the previous run's file costs its HEAD and GET, or only the HEAD (seen in
    // a class run alone and in the full module run): one request either way.
    assertThat(fileState)
        .as("the file state's requests")
        .hasSizeBetween(FILE_STATE_REQUESTS - 1, FILE_STATE_REQUESTS);
    assertThat(lake)
        .as("the run's requests to the lake bucket")
        .hasSizeBetween(LAKE_REQUESTS - 1, LAKE_REQUESTS);

    String table = "s3a://" + LAKE + "/" + run + "/checkpoint/file_state";
    assertThat(
            DeltaTables.filesFromChecksum(DeltaTables.snapshot(spark, table).orElseThrow())
                .orElseThrow())
        .as("the file state's data files, compacted by the mark")
        .hasSize(1);
    assertThat(
            spark
                .read()
                .format("delta")
                .load(table)
                .groupBy("status")
                .count()
                .collectAsList()
                .stream()
                .map(r -> r.getString(0) + "=" + r.getLong(1))
                .toList())
        .containsExactly(FileState.INGESTED + "=" + (NEW_FILES + 1));
  }

  /** Each new file's own requests: its lookup and its read, nothing else. */
  private static void assertEachNewFileLookedUpAndRead(
      String run, String suffix, List<String> landing) {
    for (int i = 1; i <= NEW_FILES; i++) {
      String name = "f" + i + suffix;
      String object = "/" + LANDING + "/in/" + run + "/landing/" + name;
      assertThat(landing)
          .as("the requests naming " + object)
          .filteredOn(r -> r.contains(name))
          .containsExactly("HEAD " + object, "HEAD " + object, "GET " + object);
    }
  }

  /** Runs bronze, which must ingest the new files, and returns the landing bucket's requests. */
  private List<String> landingRequestsOf(PipelineConfig config, String mode) {
    proxy.resetCounts();
    proxy.recordTargets(true);
    BronzeResult result = BronzeIngest.from(config, spark).execute();
    proxy.recordTargets(false);
    assertThat(result)
        .extracting(BronzeResult::files, BronzeResult::rows)
        .containsExactly((long) NEW_FILES, (long) NEW_FILES);
    List<String> landing =
        proxy.recordedTargets().stream().filter(r -> r.contains("/" + LANDING)).toList();
    // For whoever counts: the landing bucket's requests, in the order sent.
    LOG.warn(
        "A {} run with {} new files: landing bucket {}:\n  {}",
        mode,
        NEW_FILES,
        proxy.requestsByKind(LANDING),
        String.join("\n  ", landing));
    return landing;
  }

  private static byte[] json(int id) {
    return ("{\"order_id\":" + id + ",\"status\":\"Created\"}\n").getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] csv(int id) {
    return ("order_id,status\n" + id + ",Created\n").getBytes(StandardCharsets.UTF_8);
  }

  private static void land(String run, String name, byte[] line, SqsQueue queue) {
    zone.put(run + "/landing/" + name, line);
    if (queue != null) {
      queue.notifyCreated(LANDING, "in/" + run + "/landing/" + name, line.length, "etag-" + name);
    }
  }

  private static PipelineConfig config(String run, String discovery) {
    return ConfigLoader.parse(
        "test",
        "name: requests\nstorage:\n  endpoint: "
            + proxy.endpoint()
            + "\n  region: us-east-1\n  pathStyleAccess: true\n"
            + "source:\n  path: s3a://"
            + LANDING
            + "/in/"
            + run
            + "/landing\n  schema: \"order_id BIGINT, status STRING\"\n"
            + discovery
            + "bronze:\n  path: s3a://"
            + LAKE
            + "/"
            + run
            + "/bronze\n  checkpoint: s3a://"
            + LAKE
            + "/"
            + run
            + "/checkpoint\n");
  }
}
