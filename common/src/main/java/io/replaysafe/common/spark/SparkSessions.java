package io.replaysafe.common.spark;

import io.replaysafe.common.config.StorageConfig;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * The one place a SparkSession is configured. On a cluster (Databricks, EMR, Kubernetes) the
 * session already exists and only the pipeline's S3A settings are added; locally a {@code local[2]}
 * session with Delta is created.
 */
public final class SparkSessions {
  public static final String LOCAL_MASTER_DEFAULT = "local[2]";

  private SparkSessions() {}

  /** Returns the active session, or builds a local one with Delta when there is none. */
  public static SparkSession getOrCreate(String appName) {
    SparkSession.Builder builder =
        SparkSession.builder()
            .appName(appName)
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .config("spark.sql.session.timeZone", "UTC")
            // Keep every micro-batch's progress so run summaries can add them all up.
            .config("spark.sql.streaming.numRecentProgressUpdates", "100000");
    if (System.getProperty("spark.master") == null && System.getenv("SPARK_HOME") == null) {
      builder
          .master(LOCAL_MASTER_DEFAULT)
          .config("spark.ui.enabled", "false")
          .config(
              "spark.sql.shuffle.partitions",
              System.getProperty("replaysafe.shufflePartitions", "2"))
          // Delta rebuilds table state with 50 tasks by default: far too many on two cores.
          .config("spark.databricks.delta.snapshotPartitions", "2")
          .config("spark.default.parallelism", "2")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config(
              "spark.sql.warehouse.dir",
              System.getProperty("java.io.tmpdir") + "/replaysafe-warehouse");
    }
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel(System.getProperty("replaysafe.sparkLogLevel", "WARN"));
    return spark;
  }

  /**
   * Points S3A at the pipeline's endpoint. Credentials are not set here: S3A uses the AWS SDK's
   * default provider chain (environment, system properties, profile, web identity, instance role).
   */
  public static void applyStorage(SparkSession spark, Optional<StorageConfig> storage) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    // core-default.xml sets a provider list without system properties or profiles; replace it
    // unless the deployment chose its own (spark.hadoop.fs.s3a.aws.credentials.provider).
    if (!spark.conf().contains("spark.hadoop.fs.s3a.aws.credentials.provider")) {
      conf.set(
          "fs.s3a.aws.credentials.provider",
          "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider");
    }
    storage.ifPresent(
        s -> {
          if (s.endpoint() != null) {
            conf.set("fs.s3a.endpoint", s.endpoint());
          }
          conf.set("fs.s3a.endpoint.region", s.region());
          conf.setBoolean("fs.s3a.path.style.access", s.pathStyleAccess());
          conf.setBoolean("fs.s3a.connection.ssl.enabled", !s.sslDisabled());
          // A fresh bucket probe and change detection add round trips emulators do not need.
          conf.setInt("fs.s3a.bucket.probe", 0);
        });
  }
}
