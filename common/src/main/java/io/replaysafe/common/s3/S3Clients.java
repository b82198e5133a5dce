package io.replaysafe.common.s3;

import io.replaysafe.common.config.StorageConfig;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** AWS SDK v2 clients built from the same {@link StorageConfig} S3A uses. */
public final class S3Clients {
  private S3Clients() {}

  public static S3Client create(StorageConfig storage) {
    var builder =
        S3Client.builder()
            .region(Region.of(storage.region()))
            .credentialsProvider(DefaultCredentialsProvider.builder().build())
            .forcePathStyle(storage.pathStyleAccess());
    if (storage.endpoint() != null) {
      // Emulators reject or mis-handle the SDK's default flexible checksums.
      builder
          .endpointOverride(URI.create(storage.endpoint()))
          .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
          .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    }
    return builder.build();
  }
}
