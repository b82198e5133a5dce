package io.replaysafe.common.testing;

import io.replaysafe.common.config.StorageConfig;
import java.time.Instant;
import java.util.Optional;

/**
 * Where a test's files land and its tables live: a local temp directory or an S3 bucket behind a
 * real S3 endpoint. The bronze and silver contract suites run once per implementation.
 */
public interface LandingZone {
  /** Base URI under which the test may create anything, without a trailing slash. */
  String root();

  /** The URI Spark reports as {@code _metadata.file_path} for {@code root()/relative}. */
  default String fileUri(String relative) {
    return root() + "/" + relative;
  }

  /** Writes an object or file at {@code root()/relative}. */
  void put(String relative, byte[] content);

  /** Modification time the store reports for {@code root()/relative}. */
  Instant modificationTime(String relative);

  /** Deletes everything under {@code root()/relative} (a file or a prefix). */
  void deleteTree(String relative);

  /** The pipeline file's storage section for this zone, if it needs one. */
  Optional<StorageConfig> storage();

  /** The YAML storage section, or an empty string. */
  default String storageYaml() {
    return storage()
        .map(
            s ->
                "storage:\n  endpoint: "
                    + s.endpoint()
                    + "\n  region: "
                    + s.region()
                    + "\n  pathStyleAccess: "
                    + s.pathStyleAccess()
                    + "\n")
        .orElse("");
  }
}
