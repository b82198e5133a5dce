package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.net.URI;

/**
 * Where s3a:// paths live. Credentials are deliberately absent: they come from the AWS default
 * provider chain (environment, profile, instance role) and are never read from, or written to, the
 * pipeline file or a log.
 *
 * @param endpoint S3 endpoint URL; null means AWS itself
 * @param region signing region, e.g. {@code us-east-1}
 * @param pathStyleAccess true for emulators (S3Proxy, LocalStack, MinIO)
 */
public record StorageConfig(String endpoint, String region, boolean pathStyleAccess) {
  public static final String REGION_DEFAULT = "us-east-1";

  @JsonCreator
  public static StorageConfig of(
      @Help(
              value =
                  "The S3 endpoint URL, e.g. http://127.0.0.1:9000 for an emulator; omit it for AWS itself.",
              defaultValue = "AWS")
          @JsonProperty("endpoint")
          String endpoint,
      @Help(value = "The signing region.", defaultValue = "us-east-1") @JsonProperty("region")
          String region,
      @Help(
              value =
                  "Path-style bucket addressing: true for emulators (the embedded endpoint, LocalStack, MinIO).",
              defaultValue = "false")
          @JsonProperty("pathStyleAccess")
          Boolean pathStyleAccess) {
    return new StorageConfig(
        endpoint,
        region == null || region.isBlank() ? REGION_DEFAULT : region,
        pathStyleAccess != null && pathStyleAccess);
  }

  public StorageConfig {
    if (endpoint != null) {
      // The value is never echoed: a URL can carry credentials (user:secret@host), and a secret
      // pasted into the wrong key must not reach a log. The key and the rule say enough.
      URI uri;
      try {
        uri = URI.create(endpoint);
      } catch (IllegalArgumentException e) {
        throw ConfigErrors.endpointNotAUrl();
      }
      if (uri.getScheme() == null || uri.getHost() == null) {
        throw ConfigErrors.endpointWithoutHost();
      }
      if (uri.getRawUserInfo() != null) {
        throw ConfigErrors.endpointWithCredentials();
      }
    }
  }

  /** True when the endpoint is plain HTTP (emulators); S3A must then turn SSL off. */
  public boolean sslDisabled() {
    return endpoint != null && endpoint.startsWith("http://");
  }
}
