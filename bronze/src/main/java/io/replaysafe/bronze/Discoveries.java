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
 * stopped (to let the notifications of committed batches go).
 */
final class Discoveries {
  private static final Map<String, FileDiscovery> RUNNING = new ConcurrentHashMap<>();

  private Discoveries() {}

  /** The run's discovery: {@code source.discovery} decides, listing by default. */
  static FileDiscovery open(PipelineConfig config, SparkSession spark) {
    SourceConfig source = config.source();
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    if (!source.notifications()) {
      return new ListingDiscovery(conf, source.path(), source.options().sparkOptions());
    }
    // Its own class: the AWS SDK is loaded only in notification mode. A cluster that lists its
    // files (Spark alone, no SDK on the class path: SparkSubmitIT) never needs it.
    return NotificationDiscovery.open(config, spark);
  }

  static void register(String checkpoint, FileDiscovery discovery) {
    RUNNING.put(key(checkpoint), discovery);
  }

  static Optional<FileDiscovery> forCheckpoint(String checkpoint) {
    return Optional.ofNullable(RUNNING.get(key(checkpoint)));
  }

  static void unregister(String checkpoint) {
    RUNNING.remove(key(checkpoint));
  }

  private static String key(String checkpoint) {
    java.net.URI uri = new org.apache.hadoop.fs.Path(checkpoint).toUri();
    String path = uri.getPath().replaceAll("/+$", "");
    return (uri.getAuthority() == null ? "" : uri.getAuthority()) + path;
  }
}
