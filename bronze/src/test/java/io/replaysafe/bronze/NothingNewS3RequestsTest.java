package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.FaultyS3Proxy;
import io.replaysafe.common.testing.S3LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On S3, through the counting proxy: a run with nothing new reads none of what starting the
 * streaming query reads (the checkpoint's metadata, the offset and commit files' contents, the
 * source's directory), only lists the checkpoint's offsets and commits to learn where it stands,
 * and asks each of its questions once: its request count is pinned.
 */
class NothingNewS3RequestsTest extends SparkTestBase {
  private static final Logger LOG = LoggerFactory.getLogger(NothingNewS3RequestsTest.class);
  private static final String BUCKET = "nothing-new-requests";

  @Test
  void anIdleRunReadsNoneOfTheCheckpointFilesTheQueryWouldRead() throws Exception {
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of(BUCKET));
        FaultyS3Proxy proxy = new FaultyS3Proxy(server.endpoint())) {
      server.credentials().installAsSystemProperties();
      new S3LandingZone(
              StorageConfig.of(server.endpoint().toString(), "us-east-1", true), BUCKET, "landing")
          .put("a.json", "{\"id\":1}\n".getBytes(StandardCharsets.UTF_8));
      PipelineConfig config =
          ConfigLoader.parse(
              "test",
              "name: idle\nstorage:\n  endpoint: "
                  + proxy.endpoint()
                  + "\n  region: us-east-1\n  pathStyleAccess: true\n"
                  + "source:\n  path: s3a://"
                  + BUCKET
                  + "/landing/\n  schema: \"id INT\"\n"
                  + "bronze:\n  path: s3a://"
                  + BUCKET
                  + "/bronze\n  checkpoint: s3a://"
                  + BUCKET
                  + "/checkpoint\n");
      BronzeResult first = BronzeIngest.from(config, spark).execute();
      assertThat(first.files()).isEqualTo(1);

      proxy.resetCounts();
      proxy.recordTargets(true);
      BronzeResult idle = BronzeIngest.from(config, spark).execute();

      assertThat(idle.files()).isZero();
      List<String> requests = proxy.recordedTargets();
      // For whoever counts: the run's requests, in the order sent.
      LOG.warn(
          "A bronze run with nothing new: {} S3 requests {}:\n  {}",
          requests.size(),
          proxy.requestsByKind(),
          String.join("\n  ", requests));
      String checkpoint = "/" + BUCKET + "/checkpoint/";
      assertThat(requests)
          .as("reads of what the query's start reads")
          .noneMatch(r -> r.startsWith("GET " + checkpoint + "metadata"))
          .noneMatch(r -> r.startsWith("GET " + checkpoint + "offsets/"))
          .noneMatch(r -> r.startsWith("GET " + checkpoint + "commits/"))
          .noneMatch(r -> r.contains(checkpoint + "sources") || r.contains("checkpoint%2Fsources"));
      // In this JVM (Delta's logs already loaded by the first run), 11 requests: the source binding
      // (HEAD, GET), the bronze log (LIST), the landing path (LIST), the bad-files table's missing
      // log directory (LIST), the commits and offsets (a LIST each), the file state's log (LIST),
      // the landing listing (LIST) and the file state's one data file (HEAD, GET; its size comes
      // from the log, so it is not looked up first). Each question is asked once.
      assertThat(requests).as("the idle run's requests").hasSize(11);
    }
  }
}
