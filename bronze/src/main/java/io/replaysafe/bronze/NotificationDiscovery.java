package io.replaysafe.bronze;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.io.Json;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.GlobFilter;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;

/**
 * Notification mode: the files are the objects named by the S3 event notifications ({@code
 * s3:ObjectCreated:*}, in the JSON format AWS documents, directly or inside an SNS envelope) on the
 * SQS queue {@code source.queueUrl}. Nothing is listed, except for a backfill: on the first run and
 * then once every {@code source.backfillInterval}, {@code source.path} is listed too, to catch
 * files whose notification never came; its time is recorded in the file state once its files
 * committed.
 *
 * <p>A message is deleted only after the run's batches committed ({@link #committed()}): a run
 * stopped before that leaves it on the queue, which delivers it again after its visibility timeout,
 * and the file state, not the queue, decides that its file was ingested. Test events, removals and
 * objects outside {@code source.path} or {@code pathGlobFilter} are counted and deleted with the
 * others. A message that is not an S3 notification is named in a warning and left on the queue,
 * never deleted: it comes back after its visibility timeout and ends in the queue's dead-letter
 * queue if one is configured.
 */
final class NotificationDiscovery implements FileDiscovery {
  private static final Logger LOG = LoggerFactory.getLogger(NotificationDiscovery.class);

  /** The most messages one run takes off the queue; the rest wait for the next run. */
  static final int MAX_MESSAGES_PER_RUN = 100_000;

  private final SqsClient sqs;
  private final String queueUrl;
  private final Configuration conf;
  private final Path root;
  private final String prefix;
  private final GlobFilter glob;
  private final FileState state;
  private final java.time.Duration backfillInterval;
  private final Clock clock;

  private final Map<String, FileState.Discovered> found = new LinkedHashMap<>();
  private final Set<String> backfilled = new HashSet<>();

  /** Receipt handles of the messages to delete once the run committed, by message id. */
  private final Map<String, String> receipts = new LinkedHashMap<>();

  private final Set<String> seenMessages = new HashSet<>();
  private long notifications;
  private long testEvents;
  private long removals;
  private long outsideSource;
  private long notNotifications;
  private long sqsCalls;
  private Instant backfillStarted;

  /** The discovery of a pipeline in notification mode, on its queue and its file state. */
  static FileDiscovery open(PipelineConfig config, SparkSession spark) {
    SourceConfig source = config.source();
    return new NotificationDiscovery(
        SqsClients.forQueue(config.storage(), source.discovery().queueUrl()),
        source,
        spark.sparkContext().hadoopConfiguration(),
        FileState.of(spark, config.bronze().checkpoint()),
        Clock.systemUTC());
  }

  NotificationDiscovery(
      SqsClient sqs, SourceConfig source, Configuration conf, FileState state, Clock clock) {
    this.sqs = sqs;
    this.queueUrl = source.discovery().queueUrl();
    this.backfillInterval = source.discovery().backfillInterval();
    this.conf = conf;
    this.root = new Path(source.path());
    String rootUri = root.toUri().toString();
    this.prefix = rootUri.endsWith("/") ? rootUri : rootUri + "/";
    String pattern = source.options().sparkOptions().get("pathGlobFilter");
    try {
      this.glob = pattern == null ? null : new GlobFilter(pattern);
    } catch (IOException e) {
      throw BronzeErrors.badPathGlobFilter(e);
    }
    this.state = state;
    this.clock = clock;
  }

  @Override
  public List<FileState.Discovered> discover() {
    receiveAll();
    if (backfillStarted == null && backfillDue()) {
      backfillStarted = clock.instant();
      for (FileState.Discovered f : ListingDiscovery.list(conf, root, glob)) {
        if (found.putIfAbsent(f.path(), f) == null) {
          backfilled.add(f.path());
        }
      }
      LOG.info("Backfill listing of {}: {} file(s) listed", root, backfilled.size());
    }
    return List.copyOf(found.values());
  }

  private boolean backfillDue() {
    Optional<Instant> last = state.lastBackfill();
    return last.isEmpty() || !last.get().plus(backfillInterval).isAfter(clock.instant());
  }

  @Override
  public String kind(FileState.Discovered file) {
    return backfilled.contains(file.path()) ? FileState.BY_BACKFILL : FileState.BY_NOTIFICATION;
  }

  /** Takes every message the queue has now, up to {@link #MAX_MESSAGES_PER_RUN}. */
  private void receiveAll() {
    while (seenMessages.size() < MAX_MESSAGES_PER_RUN) {
      sqsCalls++;
      List<Message> messages =
          sqs.receiveMessage(
                  ReceiveMessageRequest.builder()
                      .queueUrl(queueUrl)
                      .maxNumberOfMessages(10)
                      .waitTimeSeconds(1)
                      .build())
              .messages();
      boolean anyNew = false;
      for (Message m : messages) {
        if (seenMessages.add(m.messageId())) {
          anyNew = true;
          read(m);
        } else if (receipts.containsKey(m.messageId())) {
          receipts.put(m.messageId(), m.receiptHandle()); // delivered again: the newest handle
        }
      }
      if (!anyNew) {
        return; // empty, or only messages seen before (left on the queue, come back)
      }
    }
  }

  private void read(Message message) {
    JsonNode body;
    try {
      body = Json.mapper().readTree(message.body());
      if ("Notification".equals(body.path("Type").asText()) && body.path("Message").isTextual()) {
        body = Json.mapper().readTree(body.path("Message").asText()); // delivered through SNS
      }
    } catch (IOException e) {
      body = null;
    }
    if (body != null && "s3:TestEvent".equals(body.path("Event").asText())) {
      testEvents++;
      receipts.put(message.messageId(), message.receiptHandle());
      return;
    }
    if (body == null || !body.path("Records").isArray() || body.path("Records").isEmpty()) {
      notNotifications++;
      LOG.warn(
          "Message {} on queue {} is not an S3 event notification; left on the queue (it returns"
              + " after its visibility timeout). It starts: {}",
          message.messageId(),
          queueUrl,
          abbreviate(message.body()));
      return;
    }
    notifications++;
    for (JsonNode record : body.path("Records")) {
      String event = record.path("eventName").asText();
      if (event.startsWith("ObjectRemoved:")) {
        removals++;
      } else if (event.startsWith("ObjectCreated:")) {
        created(record);
      } else {
        outsideSource++;
      }
    }
    receipts.put(message.messageId(), message.receiptHandle());
  }

  private void created(JsonNode record) {
    JsonNode s3 = record.path("s3");
    String bucket = s3.path("bucket").path("name").asText();
    // Keys are URL-encoded in notifications (a space is '+').
    String key = URLDecoder.decode(s3.path("object").path("key").asText(), StandardCharsets.UTF_8);
    Path file = new Path(root.toUri().getScheme() + "://" + bucket + "/" + key);
    String uri = file.toUri().toString();
    if (!uri.startsWith(prefix)
        || !ListingDiscovery.counts(file, root.depth())
        || !ListingDiscovery.matches(glob, file)) {
      outsideSource++;
      return;
    }
    long modified;
    try {
      modified = Instant.parse(record.path("eventTime").asText()).toEpochMilli();
    } catch (RuntimeException e) {
      modified = clock.millis();
    }
    String etag = s3.path("object").path("eTag").asText(null);
    found.putIfAbsent(
        uri,
        new FileState.Discovered(uri, s3.path("object").path("size").asLong(), modified, etag));
  }

  private static String abbreviate(String body) {
    String text = body == null ? "" : body.replaceAll("\\s+", " ");
    return text.length() > 120 ? text.substring(0, 120) + "..." : text;
  }

  @Override
  public void committed() {
    List<String> handles = new ArrayList<>(receipts.values());
    for (int i = 0; i < handles.size(); i += 10) {
      List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
      for (int j = i; j < Math.min(i + 10, handles.size()); j++) {
        entries.add(
            DeleteMessageBatchRequestEntry.builder()
                .id(Integer.toString(j))
                .receiptHandle(handles.get(j))
                .build());
      }
      sqsCalls++;
      var failed = sqs.deleteMessageBatch(b -> b.queueUrl(queueUrl).entries(entries)).failed();
      // A message not deleted comes back and is found ingested: harmless, so only said.
      failed.forEach(
          f ->
              LOG.warn(
                  "Could not delete a notification from {}: {} {}",
                  queueUrl,
                  f.code(),
                  f.message()));
    }
    receipts.clear();
    CrashPoints.maybeCrash(CrashPoints.BRONZE_AFTER_MESSAGES_DELETED);
    if (backfillStarted != null) {
      state.recordBackfill(backfillStarted);
      CrashPoints.maybeCrash(CrashPoints.BRONZE_AFTER_BACKFILL_RECORDED);
    }
  }

  @Override
  public DiscoveryCounts counts() {
    return new DiscoveryCounts(
        notifications,
        testEvents,
        removals,
        outsideSource,
        notNotifications,
        backfillStarted != null,
        sqsCalls);
  }

  /** The queue's approximate depth (Auto Loader's approximateQueueSize), for status. */
  static long approximateQueueSize(SqsClient sqs, String queueUrl) {
    String n =
        sqs.getQueueAttributes(
                b ->
                    b.queueUrl(queueUrl)
                        .attributeNames(
                            software.amazon.awssdk.services.sqs.model.QueueAttributeName
                                .APPROXIMATE_NUMBER_OF_MESSAGES))
            .attributesAsStrings()
            .get("ApproximateNumberOfMessages");
    return n == null ? 0 : Long.parseLong(n);
  }

  @Override
  public void close() {
    sqs.close();
  }

  static URI endpointOf(String queueUrl) {
    URI url = URI.create(queueUrl);
    return URI.create(url.getScheme() + "://" + url.getAuthority());
  }
}
