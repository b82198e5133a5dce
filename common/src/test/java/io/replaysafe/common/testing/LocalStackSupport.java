package io.replaysafe.common.testing;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.S3Clients;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * LocalStack for the S3 contract suites. The image is pinned to the last tag that runs without an
 * auth token; {@code LOCALSTACK_IMAGE} overrides it and {@code LOCALSTACK_AUTH_TOKEN} is passed to
 * the container for newer tags.
 */
public final class LocalStackSupport {
  public static final String IMAGE_DEFAULT = "localstack/localstack:4.14.0";

  private LocalStackSupport() {}

  public static LocalStackContainer container() {
    String image = System.getenv().getOrDefault("LOCALSTACK_IMAGE", IMAGE_DEFAULT);
    LocalStackContainer container =
        new LocalStackContainer(
                DockerImageName.parse(image).asCompatibleSubstituteFor("localstack/localstack"))
            .withServices("s3");
    String token = System.getenv("LOCALSTACK_AUTH_TOKEN");
    if (token != null && !token.isBlank()) {
      container.withEnv("LOCALSTACK_AUTH_TOKEN", token);
    }
    return container;
  }

  /** Storage settings for the running container; its credentials become the JVM's. */
  public static StorageConfig storage(LocalStackContainer container) {
    System.setProperty("aws.accessKeyId", container.getAccessKey());
    System.setProperty("aws.secretAccessKey", container.getSecretKey());
    return StorageConfig.of(container.getEndpoint().toString(), container.getRegion(), true);
  }

  public static void createBucket(StorageConfig storage, String bucket) {
    try (var s3 = S3Clients.create(storage)) {
      s3.createBucket(b -> b.bucket(bucket));
    }
  }
}
