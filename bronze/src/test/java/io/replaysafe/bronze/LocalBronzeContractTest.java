package io.replaysafe.bronze;

import io.replaysafe.common.testing.LandingZone;
import io.replaysafe.common.testing.LocalLandingZone;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The bronze contract on local disk. */
class LocalBronzeContractTest extends AbstractBronzeContractTest {
  @TempDir static Path dir;

  @Override
  protected LandingZone zone() {
    return new LocalLandingZone(dir);
  }
}
