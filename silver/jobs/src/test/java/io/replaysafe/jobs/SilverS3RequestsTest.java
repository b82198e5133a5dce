package io.replaysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.FaultyS3Proxy;
import io.replaysafe.common.testing.S3LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.silver.SilverJob;
import io.replaysafe.silver.SilverResult;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.spark.sql.delta.DeltaLog;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Silver's share of a scheduled run's S3 requests (issue 28), counted through the proxy as {@code
 * scripts/bench-scheduled} counts them: bronze then silver, as {@link PipelineRun} runs them, with
 * Delta's log cache emptied before each run as a scheduler's fresh JVM starts without one. The
 * figures are exact for this pipeline (no lease, whose renewals depend on time): a change that adds
 * a request to silver's fixed path fails here and says where.
 */
class SilverS3RequestsTest extends SparkTestBase {
  private static final Logger LOG = LoggerFactory.getLogger(SilverS3RequestsTest.class);
  private static final String BUCKET = "silver-requests";

  /**
   * Silver's requests in a run with nothing new: the contract history's log and file (7), one
   * listing of the checkpoint and its newest offsets file (2), the tombstones' log for the purge
   * (4), silver's log for the run's table version (4). Was 56 (issue 28's measurement on main),
   * then 17 (16 measured) until the log's commit and checksum files that a listing named were read
   * with their listed status, without a HEAD (13 measured).
   */
  static final int IDLE = 14;

  /**
   * Silver's requests in a run whose bronze appended 10 new events (a batch with updates, inserts
   * and deletes: silver, tombstones and the run log committed). Was 222 with the same data, then
   * 190; 150 once the query's offset and commit logs were listed once per query start, S3A's probes
   * before each data file's create were skipped, silver's and the tombstones' reads no longer
   * searched for their root, the missing erasures table cost one probe and the in-flight record's
   * delete one request. At most, not exactly: Spark purges old log files in the background. 128
   * (120 measured; 141 before) once a listed log file was read without a HEAD and once per JVM, and
   * a version's checksum written without a probe; 104 (96 measured) once the MERGE's target was
   * made without Delta's search for the table's root and the query listed bronze's log once.
   */
  static final int TEN_NEW = 104;

  @Test
  void aScheduledSilverRunMakesNoMoreRequestsThanItsFigures() throws Exception {
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of(BUCKET));
        FaultyS3Proxy proxy = new FaultyS3Proxy(server.endpoint())) {
      server.credentials().installAsSystemProperties();
      S3LandingZone landing =
          new S3LandingZone(
              StorageConfig.of(server.endpoint().toString(), "us-east-1", true), BUCKET, "landing");
      PipelineConfig config = pipeline(proxy);
      landing.put("first.json", events(0, 40, 0));
      run(config, proxy);

      List<String> idle = run(config, proxy).silverRequests();
      landing.put("second.json", events(35, 45, 1));
      Counted ten = run(config, proxy);

      assertThat(ten.silver().batches()).hasSize(1);
      LOG.warn(
          "silver's S3 requests: nothing new {}, 10 new events {}\nnothing new:\n  {}\n10 new:\n  {}",
          idle.size(),
          ten.silverRequests().size(),
          String.join("\n  ", idle),
          String.join("\n  ", ten.silverRequests()));
      // For whoever attributes them: each request in order, one file per case.
      java.nio.file.Files.write(java.nio.file.Path.of("target/silver-requests-idle.txt"), idle);
      java.nio.file.Files.write(
          java.nio.file.Path.of("target/silver-requests-ten.txt"), ten.silverRequests());
      assertThat(idle).as("silver's requests with nothing new").hasSizeLessThanOrEqualTo(IDLE);
      assertThat(ten.silverRequests())
          .as("silver's requests with 10 new events")
          .hasSizeLessThanOrEqualTo(TEN_NEW);
    }
  }

  private record Counted(BronzeResult bronze, SilverResult silver, List<String> silverRequests) {}

  /** One scheduled run in a "fresh JVM": Delta's cached logs dropped first. */
  private Counted run(PipelineConfig config, FaultyS3Proxy proxy) {
    DeltaLog.clearCache();
    BronzeResult bronze = BronzeIngest.from(config, spark).execute();
    proxy.resetCounts();
    proxy.recordTargets(true);
    // As PipelineRun runs it.
    SilverResult silver =
        SilverJob.from(config, spark).afterBronzeAt(bronze.bronzeVersion()).execute();
    List<String> requests = List.copyOf(proxy.recordedTargets());
    proxy.recordTargets(false);
    return new Counted(bronze, silver, requests);
  }

  private static PipelineConfig pipeline(FaultyS3Proxy proxy) {
    String lake = "s3a://" + BUCKET + "/lake";
    return ConfigLoader.parse(
        "test",
        "name: orders\nstorage:\n  endpoint: "
            + proxy.endpoint()
            + "\n  region: us-east-1\n  pathStyleAccess: true\n"
            + "source:\n  path: s3a://"
            + BUCKET
            + "/landing/\n  schema: \"order_id BIGINT, source_version BIGINT, status STRING,"
            + " op STRING\"\n"
            + "bronze:\n  path: "
            + lake
            + "/bronze\n  checkpoint: "
            + lake
            + "/checkpoints/bronze\n"
            + "silver:\n  path: "
            + lake
            + "/silver\n  checkpoint: "
            + lake
            + "/checkpoints/silver\n  keys: [order_id]\n  sequenceBy: [source_version]\n"
            + "  applyAsDeletes: \"op = 'DELETE'\"\n");
  }

  /**
   * Orders {@code from} (inclusive) to {@code to} (exclusive), each at version {@code to}; those
   * whose id leaves {@code deleted} divided by 7 deleted, so that silver keeps tombstones as the
   * benchmark's silver does.
   */
  private static byte[] events(int from, int to, int deleted) {
    StringBuilder lines = new StringBuilder();
    for (int id = from; id < to; id++) {
      lines
          .append("{\"order_id\":")
          .append(id)
          .append(",\"source_version\":")
          .append(to)
          .append(",\"status\":\"placed\",\"op\":\"")
          .append(id % 7 == deleted ? "DELETE" : "UPSERT")
          .append("\"}\n");
    }
    return lines.toString().getBytes(StandardCharsets.UTF_8);
  }
}
