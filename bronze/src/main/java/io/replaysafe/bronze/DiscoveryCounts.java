package io.replaysafe.bronze;

/**
 * What a run's discovery saw besides files: for notification mode, the messages acknowledged and
 * ignored (S3 test events, removals, objects outside {@code source.path} or {@code
 * pathGlobFilter}), the messages that are not S3 notifications (left on the queue), and whether it
 * listed for a backfill.
 */
public record DiscoveryCounts(
    long notifications,
    long testEvents,
    long removals,
    long outsideSource,
    long notNotifications,
    boolean backfill,
    long sqsCalls) {
  public static final DiscoveryCounts NONE = new DiscoveryCounts(0, 0, 0, 0, 0, false, 0);

  /** The counts for the run summary; empty when there is nothing to say (listing mode). */
  public String summary() {
    if (equals(NONE)) {
      return "";
    }
    return String.format(
        "; notifications: %d (ignored: %d test event(s), %d removal(s), %d outside the source;"
            + " %d message(s) not S3 notifications left on the queue; %d SQS call(s))%s",
        notifications,
        testEvents,
        removals,
        outsideSource,
        notNotifications,
        sqsCalls,
        backfill ? "; backfill listing ran" : "");
  }

  public java.util.Map<String, Object> toMap() {
    java.util.Map<String, Object> map = new java.util.LinkedHashMap<>();
    map.put("notifications", notifications);
    map.put("testEvents", testEvents);
    map.put("removals", removals);
    map.put("outsideSource", outsideSource);
    map.put("notNotifications", notNotifications);
    map.put("backfill", backfill);
    map.put("sqsCalls", sqsCalls);
    return map;
  }
}
