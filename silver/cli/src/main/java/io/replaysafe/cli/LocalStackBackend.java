package io.replaysafe.cli;

import java.util.Map;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * LocalStack's S3 in a container started through Testcontainers, for {@code rehearse --backend
 * localstack}. The image is the last tag that starts without an account; {@code LOCALSTACK_IMAGE}
 * overrides it, and {@code LOCALSTACK_AUTH_TOKEN} is passed on for newer tags. The container is
 * removed when this is closed (and by Testcontainers' reaper if the JVM dies).
 */
final class LocalStackBackend implements AutoCloseable {
  static final String IMAGE_DEFAULT = "localstack/localstack:4.14.0";

  static final String NO_DOCKER =
      "The LocalStack backend needs a Docker engine, and none answers here. Start LocalStack"
          + " yourself and rehearse against it with --endpoint: scripts/localstack-run --rehearse"
          + " (Docker on another machine, or infra/localstack), or any S3 endpoint, e.g. in"
          + " another shell: replaysafe s3-server --port 9000, then: . /tmp/replaysafe-s3-server.env"
          + " && replaysafe rehearse --endpoint http://127.0.0.1:9000. Or use --backend embedded"
          + " (the default).";

  private final LocalStackContainer container;

  private LocalStackBackend(LocalStackContainer container) {
    this.container = container;
  }

  /** Starts LocalStack, or returns empty when no Docker engine answers. */
  static Optional<LocalStackBackend> startIfDocker() {
    if (!dockerAvailable()) {
      return Optional.empty();
    }
    String image = System.getenv().getOrDefault("LOCALSTACK_IMAGE", IMAGE_DEFAULT);
    LocalStackContainer container =
        new LocalStackContainer(
                DockerImageName.parse(image).asCompatibleSubstituteFor("localstack/localstack"))
            .withServices("s3");
    String token = System.getenv("LOCALSTACK_AUTH_TOKEN");
    if (token != null && !token.isBlank()) {
      container.withEnv("LOCALSTACK_AUTH_TOKEN", token);
    }
    container.start();
    return Optional.of(new LocalStackBackend(container));
  }

  static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (NoClassDefFoundError e) {
      return false; // a launcher class path without Testcontainers' jars
    }
  }

  String endpoint() {
    return container.getEndpoint().toString();
  }

  String region() {
    return container.getRegion();
  }

  /** LocalStack's own test credentials, for this JVM and the child jobs. */
  Map<String, String> credentials() {
    return Map.of(
        "AWS_ACCESS_KEY_ID", container.getAccessKey(),
        "AWS_SECRET_ACCESS_KEY", container.getSecretKey());
  }

  @Override
  public void close() {
    container.stop();
  }
}
