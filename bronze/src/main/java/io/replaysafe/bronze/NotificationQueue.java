package io.replaysafe.bronze;

import io.replaysafe.common.config.PipelineConfig;
import java.util.OptionalLong;
import software.amazon.awssdk.services.sqs.SqsClient;

/** The notification queue of a pipeline in notification mode, as {@code status} shows it. */
public final class NotificationQueue {
  private NotificationQueue() {}

  /**
   * The queue's {@code ApproximateNumberOfMessages} (Auto Loader's {@code approximateQueueSize}):
   * notifications no run has taken yet; empty in listing mode.
   */
  public static OptionalLong approximateSize(PipelineConfig config) {
    if (!config.source().notifications()) {
      return OptionalLong.empty();
    }
    String url = config.source().discovery().queueUrl();
    try (SqsClient sqs = SqsClients.forQueue(config.storage(), url)) {
      return OptionalLong.of(NotificationDiscovery.approximateQueueSize(sqs, url));
    }
  }
}
