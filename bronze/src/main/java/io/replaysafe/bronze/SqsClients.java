package io.replaysafe.bronze;

import io.replaysafe.common.config.StorageConfig;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/** The SQS client of a notification queue; only notification mode loads this class. */
final class SqsClients {
  private SqsClients() {}

  /**
   * An SQS client for the queue, in the storage section's region with the default credentials
   * chain; a queue URL outside AWS (an SQS-compatible endpoint) is its own endpoint.
   */
  static SqsClient forQueue(Optional<StorageConfig> storage, String queueUrl) {
    var builder =
        SqsClient.builder()
            .region(
                Region.of(storage.map(StorageConfig::region).orElse(StorageConfig.REGION_DEFAULT)))
            .credentialsProvider(DefaultCredentialsProvider.builder().build());
    if (!NotificationDiscovery.endpointOf(queueUrl).getHost().endsWith(".amazonaws.com")) {
      builder.endpointOverride(NotificationDiscovery.endpointOf(queueUrl));
    }
    return builder.build();
  }
}
