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
import java.util.HashMap;
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
 * <p>A message is deleted only after the batch its file went into committed ({@link #committed} at
 * the end of a run, {@link #release} each trigger of a continuous one): a run stopped before that
 * leaves it on the queue, which delivers it again after its visibility timeout, and the file state,
 * not the queue, decides that its file was ingested. Test events, removals and objects outside
 * {@code source.path} or {@code pathGlobFilter} are counted and deleted with the others. A message
 * that is not an S3 notification is named in a warning and left on the queue, never deleted: it
 * comes back after its visibility timeout and ends in the queue's dead-letter queue if one is
 * configured.
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

  /** The files each message to delete names in the source, by message id; none for the others. */
  private final Map<String, List<String>> filesByMessage = new HashMap<>();

  /** The batch the source planned each file this discovery found into, until it is let go. */
  private final Map<String, Long> plannedIn = new HashMap<>();

  /** The files found new that wait for a later batch (the source's batch limits). */
  private Set<String> pending = Set.of();

  private boolean backfillRan;

  /** When the next backfill is due, once read from the file state (once per run). */
  private Instant backfillDueAt;

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
      backfillRan = true;
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
    if (backfillDueAt == null) {
      // Read once: a continuous run asks every trigger, and on S3 each read lists the table's log.
      backfillDueAt =
          state.lastBackfill().map(last -> last.plus(backfillInterval)).orElse(Instant.MIN);
    }
    return !backfillDueAt.isAfter(clock.instant());
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
          interruptible(
              () ->
                  sqs.receiveMessage(
                          ReceiveMessageRequest.builder()
                              .queueUrl(queueUrl)
                              .maxNumberOfMessages(10)
                              .waitTimeSeconds(1)
                              .build())
                      .messages());
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
    List<String> files = new ArrayList<>();
    for (JsonNode record : body.path("Records")) {
      String event = record.path("eventName").asText();
      if (event.startsWith("ObjectRemoved:")) {
        removals++;
      } else if (event.startsWith("ObjectCreated:")) {
        created(record).ifPresent(files::add);
      } else {
        outsideSource++;
      }
    }
    receipts.put(message.messageId(), message.receiptHandle());
    filesByMessage.put(message.messageId(), files);
  }

  /** The file a creation names, when it is one of the source's; counted otherwise. */
  private Optional<String> created(JsonNode record) {
    JsonNode s3 = record.path("s3");
    String bucket = s3.path("bucket").path("name").asText();
    // Keys are URL-encoded in notifications (a space is '+').
    String key = URLDecoder.decode(s3.path("object").path("key").asText(), StandardCharsets.UTF_8);
    Path file = new Path(root.toUri().getScheme() + "://" + bucket + "/" + key);
    String uri = file.toUri().toString();
    if (!uri.startsWith(prefix)
        || !ListingDiscovery.counts(file.toUri().getPath(), root.depth())
        || !ListingDiscovery.matches(glob, file)) {
      outsideSource++;
      return Optional.empty();
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
    return Optional.of(uri);
  }

  private static String abbreviate(String body) {
    String text = body == null ? "" : body.replaceAll("\\s+", " ");
    return text.length() > 120 ? text.substring(0, 120) + "..." : text;
  }

  @Override
  public void planned(long batch, List<String> plannedPaths, List<String> pendingPaths) {
    plannedPaths.forEach(path -> plannedIn.put(path, batch));
    pending = new HashSet<>(pendingPaths);
  }

  /**
   * Deletes the messages whose every file is planned in a batch up to {@code batch}, or was found
   * planned already (a repeated notification), and the messages that name no file of the source;
   * then forgets them and those files, so a run of days holds only what is in flight. A message
   * with a file still waiting for a batch stays (and is delivered again after its visibility
   * timeout, with a new receipt handle, which replaces the old). The backfill's time is recorded
   * once none of its files waits.
   */
  @Override
  public void release(long batch) {
    delete(settledMessages(batch));
    Set<String> named = new HashSet<>();
    for (String id : receipts.keySet()) {
      named.addAll(filesByMessage.getOrDefault(id, List.of()));
    }
    found.keySet().removeIf(path -> settled(path, batch) && !named.contains(path));
    plannedIn.keySet().retainAll(found.keySet());
    recordBackfillIfSettled(batch);
  }

  /**
   * Records the backfill under way once none of its files waits for a batch after {@code batch};
   * the next one is then due a backfill interval after it started.
   */
  private boolean recordBackfillIfSettled(long batch) {
    if (backfillStarted == null || !backfilled.stream().allMatch(f -> settled(f, batch))) {
      return false;
    }
    state.recordBackfill(backfillStarted);
    backfillDueAt = backfillStarted.plus(backfillInterval);
    backfillStarted = null;
    backfilled.clear();
    return true;
  }

  /** The messages to delete whose every file is settled by {@code batch}. */
  private List<String> settledMessages(long batch) {
    List<String> going = new ArrayList<>();
    for (String id : receipts.keySet()) {
      if (filesByMessage.getOrDefault(id, List.of()).stream().allMatch(f -> settled(f, batch))) {
        going.add(id);
      }
    }
    return going;
  }

  /** Whether {@code path} is planned in a batch up to {@code batch}, or needs no batch. */
  private boolean settled(String path, long batch) {
    Long in = plannedIn.get(path);
    return in != null ? in <= batch : !pending.contains(path);
  }

  @Override
  public void committed(long lastCommitted) {
    delete(settledMessages(lastCommitted));
    CrashPoints.maybeCrash(CrashPoints.BRONZE_AFTER_MESSAGES_DELETED);
    if (recordBackfillIfSettled(lastCommitted)) {
      CrashPoints.maybeCrash(CrashPoints.BRONZE_AFTER_BACKFILL_RECORDED);
    }
  }

  /**
   * An SQS call, whose interruption (a continuous query stopped while it waits on the queue: the
   * SDK's {@code AbortedException}) is thrown as the interrupted I/O it is, which Spark takes for
   * the stop it asked for rather than a failed batch.
   */
  private static <T> T interruptible(java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (software.amazon.awssdk.core.exception.AbortedException e) {
      java.io.InterruptedIOException interrupted =
          new java.io.InterruptedIOException("An SQS call was interrupted: the query is stopping");
      interrupted.initCause(e);
      throw new java.io.UncheckedIOException(interrupted);
    }
  }

  /** Deletes these messages, ten to a request, and forgets them. */
  private void delete(List<String> ids) {
    for (int i = 0; i < ids.size(); i += 10) {
      List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
      for (int j = i; j < Math.min(i + 10, ids.size()); j++) {
        entries.add(
            DeleteMessageBatchRequestEntry.builder()
                .id(Integer.toString(j))
                .receiptHandle(receipts.get(ids.get(j)))
                .build());
      }
      sqsCalls++;
      var failed =
          interruptible(
              () -> sqs.deleteMessageBatch(b -> b.queueUrl(queueUrl).entries(entries)).failed());
      // A message not deleted comes back and is found ingested: harmless, so only said.
      failed.forEach(
          f ->
              LOG.warn(
                  "Could not delete a notification from {}: {} {}",
                  queueUrl,
                  f.code(),
                  f.message()));
    }
    for (String id : ids) {
      receipts.remove(id);
      filesByMessage.remove(id);
      seenMessages.remove(id);
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
        backfillRan,
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
