package io.replaysafe.bronze;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * A real SQS protocol endpoint in this JVM (ElasticMQ) with one queue, and the S3 event
 * notifications S3 would send to it, written as AWS documents them (event structure version 2.1):
 * S3Proxy sends none, so the tests publish them. Public for the CLI's crash matrix, whose
 * notification-mode scenario publishes the same documents.
 */
public final class SqsQueue implements AutoCloseable {
  private final SQSRestServer server;
  private final SqsClient sqs;
  private final String url;
  private long sequencer = 0x0055AED6DCD90281L;

  private SqsQueue(SQSRestServer server, SqsClient sqs, String url) {
    this.server = server;
    this.sqs = sqs;
    this.url = url;
  }

  /** A queue whose messages come back {@code visibilitySeconds} after a receive not deleted. */
  public static SqsQueue start(String name, int visibilitySeconds) {
    SQSRestServer server =
        SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
    int port = server.waitUntilStarted().localAddress().getPort();
    String endpoint = "http://127.0.0.1:" + port;
    SqsClient sqs =
        SqsClient.builder()
            .endpointOverride(URI.create(endpoint))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
            .build();
    sqs.createQueue(
        b ->
            b.queueName(name)
                .attributesWithStrings(
                    java.util.Map.of("VisibilityTimeout", Integer.toString(visibilitySeconds))));
    return new SqsQueue(server, sqs, endpoint + "/000000000000/" + name);
  }

  public String url() {
    return url;
  }

  /** What S3 sends for {@code s3:ObjectCreated:Put} of {@code key}. */
  public static String objectCreated(
      String bucket, String key, long size, String etag, Instant at, String sequencer) {
    return "{\"Records\":[{\"eventVersion\":\"2.1\",\"eventSource\":\"aws:s3\","
        + "\"awsRegion\":\"us-east-1\",\"eventTime\":\""
        + at
        + "\","
        + "\"eventName\":\"ObjectCreated:Put\","
        + "\"userIdentity\":{\"principalId\":\"AWS:AIDAJDPLRKLG7UEXAMPLE\"},"
        + "\"requestParameters\":{\"sourceIPAddress\":\"127.0.0.1\"},"
        + "\"responseElements\":{\"x-amz-request-id\":\"C3D13FE58DE4C810\","
        + "\"x-amz-id-2\":\"FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG4V5Wp6S7S/JRWeUWerMUE5JgHvANOjpD\"},"
        + "\"s3\":{\"s3SchemaVersion\":\"1.0\",\"configurationId\":\"replaysafe-landing\","
        + "\"bucket\":{\"name\":\""
        + bucket
        + "\",\"ownerIdentity\":{\"principalId\":\"A3NL1KOZZKExample\"},"
        + "\"arn\":\"arn:aws:s3:::"
        + bucket
        + "\"},"
        + "\"object\":{\"key\":\""
        + encodeKey(key)
        + "\",\"size\":"
        + size
        + ",\"eTag\":\""
        + etag
        + "\","
        + "\"sequencer\":\""
        + sequencer
        + "\"}}}]}";
  }

  /** What S3 sends for {@code s3:ObjectRemoved:Delete}. */
  public static String objectRemoved(String bucket, String key, Instant at) {
    return "{\"Records\":[{\"eventVersion\":\"2.1\",\"eventSource\":\"aws:s3\","
        + "\"awsRegion\":\"us-east-1\",\"eventTime\":\""
        + at
        + "\","
        + "\"eventName\":\"ObjectRemoved:Delete\","
        + "\"userIdentity\":{\"principalId\":\"AWS:AIDAJDPLRKLG7UEXAMPLE\"},"
        + "\"requestParameters\":{\"sourceIPAddress\":\"127.0.0.1\"},"
        + "\"responseElements\":{\"x-amz-request-id\":\"C3D13FE58DE4C811\","
        + "\"x-amz-id-2\":\"FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG4V5Wp6S7S/JRWeUWerMUE5JgHvANOjpD\"},"
        + "\"s3\":{\"s3SchemaVersion\":\"1.0\",\"configurationId\":\"replaysafe-landing\","
        + "\"bucket\":{\"name\":\""
        + bucket
        + "\",\"ownerIdentity\":{\"principalId\":\"A3NL1KOZZKExample\"},"
        + "\"arn\":\"arn:aws:s3:::"
        + bucket
        + "\"},"
        + "\"object\":{\"key\":\""
        + encodeKey(key)
        + "\",\"sequencer\":\"0055AED6DCD90281E6\"}}}]}";
  }

  /** What S3 sends when a notification configuration is saved. */
  public static String testEvent(String bucket) {
    return "{\"Service\":\"Amazon S3\",\"Event\":\"s3:TestEvent\",\"Time\":\"2026-12-01T15:57:02.089Z\","
        + "\"Bucket\":\""
        + bucket
        + "\",\"RequestId\":\"5582815E1AEA5ADF\","
        + "\"HostId\":\"8cLeGAmw098X5cv4Zkwcmo8vvZa3eH3eKxsPzbB9wrR+YstdA6Knx4Ip8EXAMPLE\"}";
  }

  /** S3 URL-encodes the key in a notification, a space as '+', slashes kept. */
  public static String encodeKey(String key) {
    List<String> parts = new ArrayList<>();
    for (String part : key.split("/", -1)) {
      parts.add(URLEncoder.encode(part, StandardCharsets.UTF_8));
    }
    return String.join("/", parts);
  }

  public void notifyCreated(String bucket, String key, long size, String etag) {
    send(
        objectCreated(bucket, key, size, etag, Instant.now(), String.format("%018X", sequencer++)));
  }

  public void send(String body) {
    sqs.sendMessage(b -> b.queueUrl(url).messageBody(body));
  }

  /** Messages on the queue, visible or in flight. */
  public long depth() {
    var attributes =
        sqs.getQueueAttributes(
                b ->
                    b.queueUrl(url)
                        .attributeNames(
                            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
            .attributesAsStrings();
    return Long.parseLong(attributes.get("ApproximateNumberOfMessages"))
        + Long.parseLong(attributes.get("ApproximateNumberOfMessagesNotVisible"));
  }

  public void purge() {
    sqs.purgeQueue(b -> b.queueUrl(url));
  }

  @Override
  public void close() {
    sqs.close();
    server.stopAndWait();
  }
}
