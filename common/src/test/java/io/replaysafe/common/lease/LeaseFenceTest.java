package io.replaysafe.common.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.tables.DeltaTable;
import io.replaysafe.common.ErrorKind;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fence in front of Delta's commits and Spark's checkpoints, in the session replaysafe builds:
 * a holder past its deadline writes no commit of any table and no checkpoint file, and every commit
 * it does write names it.
 */
class LeaseFenceTest extends SparkTestBase {
  private static final Duration TTL = Duration.ofSeconds(120);
  private final AtomicLong nanos = new AtomicLong();
  @TempDir Path dir;

  private PipelineLease take() {
    return PipelineLease.acquire(
        dir.resolve("bronze_lease").toString(),
        spark.sparkContext().hadoopConfiguration(),
        "run",
        TTL,
        TTL.dividedBy(4),
        Clock.systemUTC(),
        nanos::get);
  }

  @Test
  void theSessionWritesThroughTheFencedLogStoreAndCheckpointManager() {
    assertThat(spark.sparkContext().getConf().get("spark.delta.logStore.file.impl"))
        .isEqualTo(FencedLogStore.class.getName());
    assertThat(spark.sparkContext().getConf().get("spark.delta.logStore.s3a.impl"))
        .isEqualTo(FencedLogStore.class.getName());
    assertThat(spark.conf().get(SparkSessions.CHECKPOINT_FILE_MANAGER))
        .isEqualTo(FencedCheckpointFileManager.class.getName());
  }

  @Test
  void everyCommitNamesItsWriterAndDeltaStillReadsIt() throws Exception {
    String table = dir.resolve("silver").toString();
    try (PipelineLease lease = take()) {
      spark.range(3).write().format("delta").save(table);
      JsonNode writer = commitInfo(table, 0).get("replaysafeWriter");
      assertThat(writer.get("lease").asText()).isEqualTo(lease.claim().id());
      assertThat(writer.get("command").asText()).isEqualTo("run");
      assertThat(writer.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
    }
    // No lease: no writer field, and Delta's own history reads both commits.
    spark.range(1).write().format("delta").mode("append").save(table);
    assertThat(commitInfo(table, 1).has("replaysafeWriter")).isFalse();
    assertThat(DeltaTable.forPath(spark, table).history().count()).isEqualTo(2);
    assertThat(spark.read().format("delta").load(table).count()).isEqualTo(4);
  }

  @Test
  void aHolderPastItsDeadlineCommitsToNoTableAndWritesNoCheckpoint() throws Exception {
    String bronze = dir.resolve("bronze").toString();
    String silver = dir.resolve("silver").toString();
    Path checkpoint = dir.resolve("_ck");
    spark.range(5).write().format("delta").save(bronze);
    try (PipelineLease lease = take()) {
      nanos.addAndGet(TTL.toNanos()); // paused for its whole time to live
      assertThatThrownBy(() -> spark.range(3).write().format("delta").mode("append").save(bronze))
          .satisfies(e -> assertThat(ErrorKind.of(e)).isEqualTo(ErrorKind.RETRYABLE))
          .hasStackTraceContaining(
              "'run' stopped before writing file:"
                  + bronze
                  + "/_delta_log/00000000000000000001.json");
      assertThatThrownBy(
              () ->
                  spark
                      .readStream()
                      .format("delta")
                      .load(bronze)
                      .writeStream()
                      .format("delta")
                      .option("checkpointLocation", checkpoint.toString())
                      .trigger(Trigger.AvailableNow())
                      .start(silver)
                      .awaitTermination())
          .satisfies(e -> assertThat(ErrorKind.of(e)).isEqualTo(ErrorKind.RETRYABLE))
          .hasStackTraceContaining("'run' stopped before writing");
    }
    assertThat(DeltaTable.forPath(spark, bronze).history().count()).isEqualTo(1);
    assertThat(dir.resolve("silver").resolve("_delta_log")).doesNotExist();
    assertThat(offsets(checkpoint)).isEmpty();
  }

  private static List<String> offsets(Path checkpoint) throws Exception {
    Path offsets = checkpoint.resolve("offsets");
    if (!Files.exists(offsets)) {
      return List.of();
    }
    try (var files = Files.list(offsets)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).toList();
    }
  }

  private static JsonNode commitInfo(String table, long version) throws Exception {
    Path commit = Path.of(table, "_delta_log", String.format("%020d.json", version));
    for (String line : Files.readAllLines(commit)) {
      JsonNode action = new ObjectMapper().readTree(line);
      if (action.has("commitInfo")) {
        return action.get("commitInfo");
      }
    }
    throw new AssertionError("no commitInfo in " + commit);
  }
}
