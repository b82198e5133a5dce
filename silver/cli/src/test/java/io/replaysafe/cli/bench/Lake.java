package io.replaysafe.cli.bench;

import io.replaysafe.cli.bench.Measurement.Side;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.testing.LandingZone;
import io.replaysafe.common.testing.LocalLandingZone;
import io.replaysafe.common.testing.S3LandingZone;
import java.nio.file.Path;

/**
 * Where one side's files land and its tables and checkpoints live, on one storage. The two sides
 * never share a path: each reads only what landed for it.
 *
 * @param checkpoints the root under which the side keeps bronze's and silver's checkpoints
 */
record Lake(Side side, LandingZone landing, String bronze, String silver, String checkpoints) {
  static Lake local(Side side, Path dir) {
    Path root = dir.resolve(directory(side)).toAbsolutePath();
    return new Lake(
        side,
        new LocalLandingZone(root.resolve("landing")),
        root.resolve("bronze").toString(),
        root.resolve("silver").toString(),
        root.resolve("checkpoints").toString());
  }

  /**
   * On the embedded endpoint: files land through {@code direct}, the endpoint itself, so that
   * landing them is not counted with the requests of the run that follows.
   */
  static Lake s3(Side side, StorageConfig direct, String landingBucket, String lakeBucket) {
    String root = "s3a://" + lakeBucket + "/" + directory(side);
    return new Lake(
        side,
        new S3LandingZone(direct, landingBucket, directory(side)),
        root + "/bronze",
        root + "/silver",
        root + "/checkpoints");
  }

  /** The side's directory under a bucket or the benchmark's local directory. */
  static String directory(Side side) {
    return side == Side.REPLAYSAFE ? "replaysafe" : "hand-written";
  }
}
