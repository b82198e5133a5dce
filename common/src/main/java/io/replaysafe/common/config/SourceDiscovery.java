package io.replaysafe.common.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How bronze finds new files ({@code source.discovery}): {@code listing} (the default) lists {@code
 * source.path} every run; {@code notifications} reads the S3 event notifications of the SQS queue
 * {@code source.queueUrl}, and lists {@code source.path} only for a backfill, once every {@code
 * source.backfillInterval} (default {@value #BACKFILL_INTERVAL_DEFAULT}), to catch files whose
 * notification never came.
 *
 * @param queueUrl null in listing mode
 * @param backfillInterval null in listing mode
 */
public record SourceDiscovery(Mode mode, String queueUrl, Duration backfillInterval) {
  public static final String LISTING_NAME = "listing";
  public static final String NOTIFICATIONS_NAME = "notifications";
  public static final String BACKFILL_INTERVAL_DEFAULT = "1 day";

  /** The default: list {@code source.path}. */
  public static final SourceDiscovery LISTING = new SourceDiscovery(Mode.LISTING, null, null);

  public enum Mode {
    LISTING,
    NOTIFICATIONS
  }

  private static final Pattern INTERVAL =
      Pattern.compile(
          "(\\d{1,9})\\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?|d|days?|w|weeks?)");

  public SourceDiscovery {
    if (mode == Mode.NOTIFICATIONS && (queueUrl == null || backfillInterval == null)) {
      throw new IllegalArgumentException("notification mode needs a queue and an interval");
    }
  }

  /** The three keys as written under {@code source:}, validated together. */
  public static SourceDiscovery of(String discovery, String queueUrl, Object backfillInterval) {
    String mode = discovery == null ? LISTING_NAME : discovery.strip().toLowerCase(Locale.ROOT);
    if (LISTING_NAME.equals(mode)) {
      if (queueUrl != null || backfillInterval != null) {
        throw ConfigErrors.rule(
            "source."
                + (queueUrl != null ? "queueUrl" : "backfillInterval")
                + " is set but source.discovery is listing",
            "set source.discovery: notifications to read S3 notifications from the queue, or"
                + " remove the key");
      }
      return LISTING;
    }
    if (!NOTIFICATIONS_NAME.equals(mode)) {
      throw ConfigErrors.unknownValue(
          "source.discovery", discovery, List.of(LISTING_NAME, NOTIFICATIONS_NAME));
    }
    if (queueUrl == null || queueUrl.isBlank()) {
      throw ConfigErrors.missing(
          "source.queueUrl",
          "notification mode reads the S3 event notifications of an SQS queue; give its URL,"
              + " e.g. https://sqs.eu-west-1.amazonaws.com/123456789012/landing-events");
    }
    if (!queueUrl.startsWith("https://") && !queueUrl.startsWith("http://")) {
      throw ConfigErrors.badValue(
          "source.queueUrl",
          queueUrl,
          "is not a queue URL",
          "give the queue's URL as SQS shows it, https://sqs.REGION.amazonaws.com/ACCOUNT/NAME");
    }
    return new SourceDiscovery(
        Mode.NOTIFICATIONS,
        queueUrl.strip(),
        interval(backfillInterval == null ? BACKFILL_INTERVAL_DEFAULT : backfillInterval));
  }

  public boolean notifications() {
    return mode == Mode.NOTIFICATIONS;
  }

  /** {@code "1 day"}, {@code "12 hours"}, {@code "30m"}, {@code "1w"}: at least one second. */
  static Duration interval(Object value) {
    Matcher m = INTERVAL.matcher(String.valueOf(value).strip().toLowerCase(Locale.ROOT));
    if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
      throw ConfigErrors.badValue(
          "source.backfillInterval",
          value,
          "is not an interval",
          "write a number and a unit: '1 day' (the default), '12 hours', '30 minutes', '1 week'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2).charAt(0)) {
      case 's' -> Duration.ofSeconds(n);
      case 'm' -> Duration.ofMinutes(n);
      case 'h' -> Duration.ofHours(n);
      case 'd' -> Duration.ofDays(n);
      default -> Duration.ofDays(7 * n);
    };
  }
}
