package io.replaysafe.bronze;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.LandingZone;
import io.replaysafe.common.testing.S3LandingZone;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The bronze contract over s3a against the in-process S3 endpoint. */
class EmbeddedS3BronzeContractTest extends AbstractBronzeContractTest {
  private static EmbeddedS3Server server;
  private static LandingZone zone;

  @BeforeAll
  static void startEndpoint() {
    server = EmbeddedS3Server.start(0, List.of("bronze-embedded"));
    server.credentials().installAsSystemProperties();
    zone =
        new S3LandingZone(
            StorageConfig.of(server.endpoint().toString(), "us-east-1", true),
            "bronze-embedded",
            "it");
  }

  @AfterAll
  static void stopEndpoint() {
    server.close();
  }

  @Override
  protected LandingZone zone() {
    return zone;
  }
}
