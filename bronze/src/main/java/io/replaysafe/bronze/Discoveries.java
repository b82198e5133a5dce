package io.replaysafe.bronze;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SourceConfig;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * The discovery of each bronze run under way, by checkpoint: Spark creates the source itself, from
 * string options, so the run hands the source its discovery here, and takes it back when its query
 * stopped (to let the notifications of committed batches go). A run that looked for new files
 * before it started its query hands over that look too ({@link FirstLook}), for the first source
 * created.
 */
final class Discoveries {
  private static final Map<String, FileDiscovery> RUNNING = new ConcurrentHashMap<>();
  private static final Map<String, FirstLook> LOOKS = new ConcurrentHashMap<>();

  private Discoveries() {}

  /** The run's discovery: {@code source.discovery} decides, listing by default. */
  static FileDiscovery open(PipelineConfig config, SparkSession spark) {
    SourceConfig source = config.source();
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    if (!source.notifications()) {
      return new ListingDiscovery(
          conf,
          source.path(),
          source.options().sparkOptions(),
          FileState.of(spark, config.bronze().checkpoint()));
    }
    // Its own class: the AWS SDK is loaded only in notification mode. A cluster that lists its
    // files (Spark alone, no SDK on the class path: SparkSubmitIT) never needs it.
    return NotificationDiscovery.open(config, spark);
  }

  /** The run's discovery, and its look for new files when it took one. */
  static void register(String checkpoint, FileDiscovery discovery, Optional<FirstLook> look) {
    RUNNING.put(key(checkpoint), discovery);
    look.ifPresent(l -> LOOKS.put(key(checkpoint), l));
  }

  /**
   * The run's look, to the first source that asks: the queries a run starts after its first (the
   * recovery of a batch that failed on a bad file) start after another batch, and discover anew.
   */
  static Optional<FirstLook> takeFirstLook(String checkpoint) {
    return Optional.ofNullable(LOOKS.remove(key(checkpoint)));
  }

  static Optional<FileDiscovery> forCheckpoint(String checkpoint) {
    return Optional.ofNullable(RUNNING.get(key(checkpoint)));
  }

  static void unregister(String checkpoint) {
    RUNNING.remove(key(checkpoint));
    LOOKS.remove(key(checkpoint));
  }

  private static String key(String checkpoint) {
    java.net.URI uri = new org.apache.hadoop.fs.Path(checkpoint).toUri();
    String path = uri.getPath().replaceAll("/+$", "");
    return (uri.getAuthority() == null ? "" : uri.getAuthority()) + path;
  }
}
