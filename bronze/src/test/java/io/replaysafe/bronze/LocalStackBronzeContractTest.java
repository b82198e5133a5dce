package io.replaysafe.bronze;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.testing.LandingZone;
import io.replaysafe.common.testing.LocalStackSupport;
import io.replaysafe.common.testing.S3LandingZone;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.localstack.LocalStackContainer;

/**
 * The bronze contract over s3a against LocalStack. Needs a Docker engine: without one JUnit skips
 * the class and says "Docker is not available" (Testcontainers' disabledWithoutDocker).
 */
@Testcontainers(disabledWithoutDocker = true)
class LocalStackBronzeContractTest extends AbstractBronzeContractTest {
  @Container static final LocalStackContainer LOCALSTACK = LocalStackSupport.container();

  private static LandingZone zone;

  @BeforeAll
  static void bucket() {
    StorageConfig storage = LocalStackSupport.storage(LOCALSTACK);
    LocalStackSupport.createBucket(storage, "bronze-localstack");
    zone = new S3LandingZone(storage, "bronze-localstack", "it");
  }

  @Override
  protected LandingZone zone() {
    return zone;
  }
}
