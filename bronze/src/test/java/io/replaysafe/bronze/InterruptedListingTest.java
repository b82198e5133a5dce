package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.common.testing.S3LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.runtime.StreamExecution$;
import org.junit.jupiter.api.Test;

/**
 * Spark stops a streaming query by interrupting its thread. The source's listing of S3, when that
 * interrupt lands in it, must fail as an interruption Spark recognises: wrapped in an error of its
 * own it turned a stop into a failed run (CI of stop 42: "Cannot list source.path s3a://landing/o:
 * java.lang.InterruptedException", exit 1, when a run that had skipped a bad file stopped its query
 * after the batch).
 */
class InterruptedListingTest extends SparkTestBase {
  private static final String BUCKET = "interrupted-listing";

  @Test
  void aListingInterruptedByAStopFailsAsTheInterruptionSparkLooksFor() throws Exception {
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of(BUCKET))) {
      server.credentials().installAsSystemProperties();
      StorageConfig storage = StorageConfig.of(server.endpoint().toString(), "us-east-1", true);
      new S3LandingZone(storage, BUCKET, "o")
          .put("a.json", "{\"id\":1}\n".getBytes(StandardCharsets.UTF_8));
      SparkSessions.applyStorage(spark, java.util.Optional.of(storage));
      var conf = spark.sparkContext().hadoopConfiguration();
      Path root = new Path("s3a://" + BUCKET + "/o/");
      assertThat(ListingDiscovery.list(conf, root, null)).hasSize(1); // uninterrupted: listed

      AtomicReference<Throwable> failed = new AtomicReference<>();
      AtomicReference<Boolean> flagKept = new AtomicReference<>();
      Thread query =
          new Thread(
              () -> {
                Thread.currentThread().interrupt(); // as StreamExecution.stop() does
                try {
                  ListingDiscovery.list(conf, root, null);
                } catch (Throwable t) {
                  failed.set(t);
                }
                flagKept.set(Thread.currentThread().isInterrupted());
              });
      query.start();
      query.join();

      assertThat(failed.get())
          .isInstanceOf(UncheckedIOException.class)
          .hasCauseInstanceOf(InterruptedIOException.class)
          .hasMessageContaining("Interrupted while listing s3a://" + BUCKET + "/o");
      assertThat(
              StreamExecution$.MODULE$.isInterruptionException(failed.get(), spark.sparkContext()))
          .isTrue();
      assertThat(flagKept.get()).isTrue();
    }
  }
}
