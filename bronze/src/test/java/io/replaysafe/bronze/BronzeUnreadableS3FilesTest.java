package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.replaysafe.common.ErrorKind;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.FaultyS3Proxy;
import io.replaysafe.common.testing.FaultyS3Proxy.ObjectFault;
import io.replaysafe.common.testing.S3LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 10 on S3: an object listed but then denied (403 AccessDenied) or gone (404 NoSuchKey) is
 * skipped and recorded as a bad file, counted in the result, and the run neither fails nor stalls.
 * The landing bucket is read through a proxy that answers the reads of those two objects with the
 * error while listings still show them.
 */
class BronzeUnreadableS3FilesTest extends SparkTestBase {
  private static final String BUCKET = "unreadable-landing";
  private static final String GOOD = "s3a://" + BUCKET + "/o/a-good.json";
  private static final String DENIED = "s3a://" + BUCKET + "/o/b-denied.json";
  private static final String VANISHED = "s3a://" + BUCKET + "/o/c-vanished.json";

  @TempDir Path dir;

  /** Listed and looked up (HEAD), then the GET fails: the file is read in the batch's tasks. */
  @Test
  @Timeout(300) // a guard against a stall: about 25 s on an idle machine
  void skipsAndRecordsObjectsDeniedOrGoneWhenRead() throws Exception {
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of(BUCKET));
        FaultyS3Proxy proxy = new FaultyS3Proxy(server.endpoint())) {
      land(server);
      proxy.failGet(BUCKET, "o/b-denied.json", ObjectFault.ACCESS_DENIED);
      proxy.failGet(BUCKET, "o/c-vanished.json", ObjectFault.NO_SUCH_KEY);
      PipelineConfig config = config(proxy);

      BronzeResult result = BronzeIngest.from(config, spark).execute();

      assertSkippedAndRecorded(result, config);
      BadFiles badFiles = new BadFiles(config, spark);
      assertThat(
              rows(
                  badFiles
                      .unresolved()
                      .selectExpr(
                          "path",
                          "size",
                          "mtime IS NOT NULL",
                          "error_class",
                          "error_message",
                          "batch_id",
                          "status")))
          .containsExactly(
              DENIED
                  + "|9|true|java.io.IOException|Server error accessing s3://"
                  + BUCKET
                  + "/o/b-denied.json, request failed with: Access Denied (Service: S3, Status"
                  + " Code: 403, Request ID: FAULT) (SDK Attempt Count: 1)|0|open",
              VANISHED
                  + "|9|true|java.io.FileNotFoundException|Object not found s3://"
                  + BUCKET
                  + "/o/c-vanished.json|0|open");

      assertSecondRunRecordsNothingTwice(config, proxy);
    }
  }

  /**
   * Listed, then gone before the batch looked it up (HEAD and GET answer 404): Spark's file index
   * drops it with only a warning. Bronze sees that the batch planned a file it never read and that
   * the file no longer exists, and records it.
   */
  @Test
  @Timeout(300) // a guard against a stall: about 25 s on an idle machine
  void recordsAnObjectGoneBeforeTheBatchLookedItUp() throws Exception {
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of(BUCKET));
        FaultyS3Proxy proxy = new FaultyS3Proxy(server.endpoint())) {
      land(server);
      proxy.failGetAndHead(BUCKET, "o/c-vanished.json", ObjectFault.NO_SUCH_KEY);
      PipelineConfig config = config(proxy);

      BronzeResult result = BronzeIngest.from(config, spark).execute();

      assertThat(result.unreadableFiles()).containsExactly(VANISHED);
      assertThat(result.summary()).contains("; 1 file could not be read: " + VANISHED);
      assertThat(result.files()).isEqualTo(2);
      assertThat(result.rows()).isEqualTo(3);
      assertThat(rows(bronze().selectExpr("id", "source_file").orderBy("id")))
          .containsExactly("1|" + GOOD, "2|" + GOOD, "3|" + DENIED);
      BadFiles badFiles = new BadFiles(config, spark);
      assertThat(
              rows(
                  badFiles
                      .unresolved()
                      .selectExpr("path", "size", "error_class", "batch_id", "status")))
          .containsExactly(VANISHED + "|null|java.io.FileNotFoundException|0|open");
      assertThat(rows(badFiles.unresolved().select("error_message")).get(0))
          .contains(BUCKET + "/o/c-vanished.json");

      BronzeResult second = BronzeIngest.from(config, spark).execute();
      assertThat(second.unreadableFiles()).isEmpty();
      assertThat(second.rows()).isZero();
      assertThat(rows(spark.read().format("delta").load(badFiles.path()).selectExpr("path")))
          .containsExactly(VANISHED);
    }
  }

  /**
   * Listed, then every lookup fails (HEAD and GET): the file stream source fails while planning the
   * batch (it looks each file up), before any task reads it.
   */
  @Test
  @Timeout(300) // a guard against a stall: about 25 s on an idle machine
  void skipsAndRecordsObjectsDeniedOrGoneWhenLookedUp() throws Exception {
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of(BUCKET));
        FaultyS3Proxy proxy = new FaultyS3Proxy(server.endpoint())) {
      land(server);
      proxy.failGetAndHead(BUCKET, "o/b-denied.json", ObjectFault.ACCESS_DENIED);
      proxy.failGetAndHead(BUCKET, "o/c-vanished.json", ObjectFault.NO_SUCH_KEY);
      PipelineConfig config = config(proxy);

      BronzeResult result = BronzeIngest.from(config, spark).execute();

      assertSkippedAndRecorded(result, config);
      assertThat(
              rows(
                  new BadFiles(config, spark)
                      .unresolved()
                      .selectExpr("path", "error_class", "batch_id", "status")))
          .containsExactly(
              DENIED + "|java.nio.file.AccessDeniedException|0|open",
              VANISHED + "|java.io.FileNotFoundException|0|open");
      assertSecondRunRecordsNothingTwice(config, proxy);
    }
  }

  /**
   * The store failing for a while is no bad file (CI of stop 42, where a check reset mid-response
   * recorded a sound file as bad). Every read of one object is throttled (503 SlowDown) past S3A's
   * retries, in a batch's task (GET) or while the batch is planned (HEAD and GET): the run ends
   * retryable naming the file, records no bad file and commits nothing. Once the store answers
   * again, the next run reads every file.
   */
  @ParameterizedTest(name = "HEAD throttled too: {0}")
  @ValueSource(booleans = {false, true})
  @Timeout(300) // a guard against a stall: about 15 s each on an idle machine
  void anObjectThrottledPastItsRetriesIsNoBadFileAndTheRunIsRetryable(boolean head)
      throws Exception {
    var hadoop = spark.sparkContext().hadoopConfiguration();
    // S3A's own retries of a 503, for this bucket only: one, without waiting.
    List<String> retries =
        List.of("retry.throttle.limit", "retry.throttle.interval", "attempts.maximum");
    List<String> values = List.of("1", "10ms", "1");
    for (int i = 0; i < retries.size(); i++) {
      hadoop.set("fs.s3a.bucket." + BUCKET + "." + retries.get(i), values.get(i));
    }
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of(BUCKET));
        FaultyS3Proxy proxy = new FaultyS3Proxy(server.endpoint())) {
      land(server);
      if (head) {
        proxy.failGetAndHead(BUCKET, "o/b-denied.json", ObjectFault.SLOW_DOWN);
      } else {
        proxy.failGet(BUCKET, "o/b-denied.json", ObjectFault.SLOW_DOWN);
      }
      PipelineConfig config = config(proxy);

      Throwable failed = catchThrowable(() -> BronzeIngest.from(config, spark).execute());

      assertThat(ErrorKind.of(failed)).as(String.valueOf(failed)).isEqualTo(ErrorKind.RETRYABLE);
      assertThat(failed).hasMessageContaining(DENIED);
      assertThat(proxy.objectFaults()).isPositive();
      BadFiles badFiles = new BadFiles(config, spark);
      assertThat(badFiles.open()).isEmpty();
      assertThat(bronze().count()).isZero();

      proxy.heal(BUCKET, "o/b-denied.json");
      BronzeResult rerun = BronzeIngest.from(config, spark).execute();

      assertThat(rerun.unreadableFiles()).isEmpty();
      assertThat(rerun.files()).isEqualTo(3);
      assertThat(rows(bronze().selectExpr("id", "source_file").orderBy("id")))
          .containsExactly("1|" + GOOD, "2|" + GOOD, "3|" + DENIED, "4|" + VANISHED);
      assertThat(new BadFiles(config, spark).open()).isEmpty();
    } finally {
      retries.forEach(r -> hadoop.unset("fs.s3a.bucket." + BUCKET + "." + r));
    }
  }

  private void assertSkippedAndRecorded(BronzeResult result, PipelineConfig config) {
    assertThat(result.unreadableFiles()).containsExactlyInAnyOrder(DENIED, VANISHED);
    assertThat(result.summary()).contains("; 2 files could not be read: ");
    assertThat(result.files()).isEqualTo(1);
    assertThat(result.rows()).isEqualTo(2);
    assertThat(rows(bronze().selectExpr("id", "source_file").orderBy("id")))
        .containsExactly("1|" + GOOD, "2|" + GOOD);
    assertThat(new BadFiles(config, spark).open()).containsOnlyKeys(DENIED, VANISHED);
  }

  /** Nothing new: the next run reads neither object again and records nothing twice. */
  private void assertSecondRunRecordsNothingTwice(PipelineConfig config, FaultyS3Proxy proxy) {
    long faults = proxy.objectFaults();
    assertThat(faults).isPositive();

    BronzeResult second = BronzeIngest.from(config, spark).execute();

    assertThat(second.unreadableFiles()).isEmpty();
    assertThat(second.rows()).isZero();
    assertThat(proxy.objectFaults()).isEqualTo(faults);
    BadFiles badFiles = new BadFiles(config, spark);
    assertThat(rows(spark.read().format("delta").load(badFiles.path()).selectExpr("path")))
        .containsExactlyInAnyOrder(DENIED, VANISHED);
    assertThat(badFiles.open()).containsOnlyKeys(DENIED, VANISHED);
    assertThat(bronze().count()).isEqualTo(2);
  }

  private static void land(EmbeddedS3Server server) {
    server.credentials().installAsSystemProperties();
    S3LandingZone landing =
        new S3LandingZone(
            StorageConfig.of(server.endpoint().toString(), "us-east-1", true), BUCKET, "o");
    landing.put("a-good.json", lines("{\"id\":1}", "{\"id\":2}"));
    landing.put("b-denied.json", lines("{\"id\":3}"));
    landing.put("c-vanished.json", lines("{\"id\":4}"));
  }

  private PipelineConfig config(FaultyS3Proxy proxy) {
    return ConfigLoader.parse(
        "test",
        "name: unreadable\nstorage:\n  endpoint: "
            + proxy.endpoint()
            + "\n  region: us-east-1\n  pathStyleAccess: true\n"
            + "source:\n  path: s3a://"
            + BUCKET
            + "/o/\n  schema: \"id INT\"\n"
            + "bronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("checkpoint")
            + "\n");
  }

  private Dataset<Row> bronze() {
    return spark.read().format("delta").load(dir.resolve("bronze").toString());
  }

  private static byte[] lines(String... lines) {
    return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
  }
}
