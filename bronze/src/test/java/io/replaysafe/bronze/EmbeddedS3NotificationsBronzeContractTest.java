package io.replaysafe.bronze;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.LandingZone;
import io.replaysafe.common.testing.S3LandingZone;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The bronze contract in notification mode: over s3a against the in-process S3 endpoint, each
 * object landed is announced on an SQS queue (ElasticMQ, in-process) with the notification S3 would
 * send. The first run of each test lists too (its backfill); later runs only read the queue. Tagged
 * slow (the whole bronze contract a third time, about 50 s); NotificationModeTest keeps
 * notification mode in the README's suite.
 */
@Tag("slow")
class EmbeddedS3NotificationsBronzeContractTest extends AbstractBronzeContractTest {
  private static final String BUCKET = "bronze-notified";
  private static final String PREFIX = "it";
  private static EmbeddedS3Server server;
  private static SqsQueue queue;
  private static LandingZone zone;

  @BeforeAll
  static void startEndpoints() {
    server = EmbeddedS3Server.start(0, List.of(BUCKET));
    server.credentials().installAsSystemProperties();
    queue = SqsQueue.start("landing-events", 30);
    S3LandingZone s3 =
        new S3LandingZone(
            StorageConfig.of(server.endpoint().toString(), "us-east-1", true), BUCKET, PREFIX);
    zone = new Notifying(s3, queue);
  }

  @AfterAll
  static void stopEndpoints() {
    queue.close();
    server.close();
  }

  @Override
  protected LandingZone zone() {
    return zone;
  }

  @Override
  protected String discoveryYaml() {
    return "  discovery: notifications\n  queueUrl: " + queue.url() + "\n";
  }

  /** The S3 landing zone, announcing every object it writes as S3 would. */
  private record Notifying(S3LandingZone s3, SqsQueue queue) implements LandingZone {
    @Override
    public String root() {
      return s3.root();
    }

    @Override
    public void put(String relative, byte[] content) {
      s3.put(relative, content);
      queue.notifyCreated(BUCKET, PREFIX + "/" + relative, content.length, md5(content));
    }

    @Override
    public Instant modificationTime(String relative) {
      return s3.modificationTime(relative);
    }

    @Override
    public void deleteTree(String relative) {
      s3.deleteTree(relative);
    }

    @Override
    public Optional<StorageConfig> storage() {
      return s3.storage();
    }

    private static String md5(byte[] content) {
      try {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
