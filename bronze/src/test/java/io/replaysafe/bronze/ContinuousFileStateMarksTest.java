package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.ContinuousTrigger;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A continuous bronze run marks each batch ingested in its file state as it goes (when Spark
 * commits the batch to the source, as it plans the next), not only when the run ends: a run of
 * hours leaves no day of files unmarked and no pile of small files behind.
 */
class ContinuousFileStateMarksTest extends SparkTestBase {
  @TempDir Path dir;

  private PipelineConfig config() {
    return ConfigLoader.parse(
        "test",
        "name: orders\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \"order_id BIGINT, status STRING\"\n"
            + "bronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("checkpoint")
            + "\n");
  }

  private void land(String name, String line) throws IOException {
    Files.createDirectories(dir.resolve("landing"));
    Files.writeString(dir.resolve("landing").resolve(name), line + "\n");
  }

  private List<String> fileStateRows() {
    return FileStateRows.of(spark, dir.resolve("checkpoint"));
  }

  private boolean committed(long batch) {
    return Files.exists(dir.resolve("checkpoint").resolve("commits").resolve(Long.toString(batch)));
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(end);
      Thread.sleep(100);
    }
  }

  @Test
  void eachBatchIsMarkedIngestedWhenTheNextIsPlannedAndTheLastWhenTheRunEnds() throws Exception {
    ContinuousTrigger trigger = ContinuousTrigger.every(Duration.ofMillis(300), () -> {});
    land("a.json", "{\"order_id\":1,\"status\":\"Created\"}");
    CompletableFuture<BronzeResult> run =
        CompletableFuture.supplyAsync(
            () -> BronzeIngest.from(config(), spark).continuous(trigger).execute());
    try {
      await(() -> committed(0), "batch 0 to commit");
      assertThat(fileStateRows()).containsExactly("a.json|discovered|0");

      land("b.json", "{\"order_id\":2,\"status\":\"Shipped\"}");
      await(() -> committed(1), "batch 1 to commit");

      // Batch 0 was marked when batch 1 was planned, while the run goes on.
      assertThat(fileStateRows()).containsExactly("a.json|ingested|0", "b.json|discovered|1");
    } finally {
      trigger.requestStop("test");
      for (StreamingQuery query : spark.streams().active()) {
        query.stop();
      }
    }
    BronzeResult result = run.get(2, TimeUnit.MINUTES);

    assertThat(result.files()).isEqualTo(2);
    assertThat(fileStateRows()).containsExactly("a.json|ingested|0", "b.json|ingested|1");
  }
}
