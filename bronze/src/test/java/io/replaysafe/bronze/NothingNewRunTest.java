package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scheduled run that finds nothing new does not start its streaming query ({@link FirstLook}):
 * starting it is most of such a run's cost on S3. Where the query has something to do first (a
 * batch planned and not committed, files recorded in a batch Spark never planned) it still starts,
 * and a run after an idle one ingests a new file exactly once.
 */
class NothingNewRunTest extends SparkTestBase {
  private static final String QUERY = "replaysafe_bronze_orders";

  @TempDir Path dir;
  private QueryStarts starts;

  @BeforeEach
  void listen() {
    starts = QueryStarts.listen(spark);
  }

  @AfterEach
  void stopListening() {
    starts.close();
  }

  private PipelineConfig config(String extraSource) {
    return ConfigLoader.parse(
        "test",
        "name: orders\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \"order_id BIGINT, status STRING\"\n"
            + extraSource
            + "bronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("checkpoint")
            + "\n");
  }

  private PipelineConfig config() {
    return config("");
  }

  private void land(String name, String line) throws IOException {
    Files.createDirectories(dir.resolve("landing"));
    Files.writeString(dir.resolve("landing").resolve(name), line + "\n");
  }

  private BronzeResult run(PipelineConfig config) {
    starts.clear();
    return BronzeIngest.from(config, spark).execute();
  }

  /** The checkpoint's offsets and commits: what Spark writes when a query plans or commits. */
  private List<String> checkpointLogs() {
    return Arrays.stream(new String[] {"offsets", "commits"})
        .flatMap(
            log -> {
              String[] names = dir.resolve("checkpoint").resolve(log).toFile().list();
              return names == null
                  ? java.util.stream.Stream.<String>empty()
                  : Arrays.stream(names).filter(n -> !n.startsWith(".")).map(n -> log + "/" + n);
            })
        .sorted()
        .toList();
  }

  private List<String> bronzeRows() {
    return rows(
        spark
            .read()
            .format("delta")
            .load(dir.resolve("bronze").toString())
            .selectExpr("source_file_name", "order_id")
            .orderBy("order_id"));
  }

  private List<String> fileState(PipelineConfig config) {
    return rows(
        FileStateView.files(spark, config, FileStateView.Filter.ALL)
            .orElseThrow()
            .selectExpr("regexp_extract(path, '[^/]+$', 0)", "status", "batch_id")
            .orderBy("path"));
  }

  @Test
  void aRunWithNothingNewStartsNoQueryAndTheNextIngestsANewFileOnce() throws IOException {
    land("a.json", "{\"order_id\":1,\"status\":\"Created\"}");
    BronzeResult first = run(config());
    assertThat(starts.names()).containsExactly(QUERY);
    assertThat(first).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(1L, 1L);
    List<String> logs = checkpointLogs();
    assertThat(logs).containsExactly("commits/0", "offsets/0");

    BronzeResult idle = run(config());

    assertThat(starts.names()).as("queries started by a run with nothing new").isEmpty();
    assertThat(checkpointLogs()).isEqualTo(logs);
    assertThat(idle)
        .extracting(
            BronzeResult::batches,
            BronzeResult::files,
            BronzeResult::rows,
            BronzeResult::bronzeVersion,
            BronzeResult::unreadableFiles,
            BronzeResult::retriedFiles,
            BronzeResult::discovery)
        .containsExactly(0L, 0L, 0L, first.bronzeVersion(), List.of(), 0L, DiscoveryCounts.NONE);
    assertThat(idle.summary())
        .startsWith(
            "bronze orders: 0 file(s), 0 row(s) (0 with rescued data, 0 corrupt) in 0 batch(es);"
                + " bronze table version "
                + first.bronzeVersion()
                + "; ")
        .endsWith(" s");

    land("b.json", "{\"order_id\":2,\"status\":\"Shipped\"}");
    BronzeResult next = run(config());

    assertThat(starts.names()).containsExactly(QUERY);
    assertThat(next)
        .extracting(BronzeResult::batches, BronzeResult::files, BronzeResult::rows)
        .containsExactly(1L, 1L, 1L);
    assertThat(bronzeRows()).containsExactly("a.json|1", "b.json|2");
    assertThat(fileState(config())).containsExactly("a.json|ingested|0", "b.json|ingested|1");

    BronzeResult idleAgain = run(config());
    assertThat(starts.names()).isEmpty();
    assertThat(idleAgain.files()).isZero();
    assertThat(bronzeRows()).containsExactly("a.json|1", "b.json|2");
  }

  private List<String> fileStateRows() {
    return FileStateRows.of(spark, dir.resolve("checkpoint"));
  }

  private long fileStateVersion() {
    return io.delta.tables.DeltaTable.forPath(
            spark, FileState.of(spark, dir.resolve("checkpoint").toString()).path())
        .history(1)
        .select("version")
        .head()
        .getLong(0);
  }

  @Test
  void aRunWithNothingNewMarksTheBatchesAStoppedRunCommittedAndLeftUnmarked() throws IOException {
    land("a.json", "{\"order_id\":1,\"status\":\"Created\"}");
    land("b.json", "{\"order_id\":2,\"status\":\"Shipped\"}");
    run(config());
    // A run killed between the table's commit and the mark (or a continuous run killed
    // before it planned its next batch) leaves its committed batch as planned.
    io.delta.tables.DeltaTable.forPath(
            spark, FileState.of(spark, dir.resolve("checkpoint").toString()).path())
        .update(Map.of("status", org.apache.spark.sql.functions.lit(FileState.DISCOVERED)));
    assertThat(fileStateRows()).containsExactly("a.json|discovered|0", "b.json|discovered|0");
    long unmarked = fileStateVersion();

    BronzeResult idle = run(config());

    assertThat(starts.names()).as("queries started by a run with nothing new").isEmpty();
    assertThat(idle.files()).isZero();
    assertThat(fileStateRows()).containsExactly("a.json|ingested|0", "b.json|ingested|0");
    assertThat(fileStateVersion()).isEqualTo(unmarked + 1);
    assertThat(bronzeRows()).containsExactly("a.json|1", "b.json|2");

    run(config());
    assertThat(fileStateVersion())
        .as("an idle run with every batch marked")
        .isEqualTo(unmarked + 1);
  }

  @Test
  void aBatchPlannedAndNotCommittedIsReplayedByTheQuery() throws IOException {
    land("a.json", "{\"order_id\":1,\"status\":\"Created\"}");
    run(config());
    land("new.json", "{\"order_id\":2,\"status\":\"Created\",\"channel\":\"web\"}");
    assertThatThrownBy(() -> run(config("  schemaEvolutionMode: failOnNewColumns\n")))
        .isInstanceOf(NewColumnException.class);
    // Batch 1 planned, its offset written, never committed.
    assertThat(checkpointLogs()).containsExactly("commits/0", "offsets/0", "offsets/1");

    BronzeResult rescued = run(config());

    assertThat(starts.names()).containsExactly(QUERY);
    assertThat(rescued).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(1L, 1L);
    assertThat(checkpointLogs())
        .containsExactly("commits/0", "commits/1", "offsets/0", "offsets/1");
    assertThat(bronzeRows()).containsExactly("a.json|1", "new.json|2");
    assertThat(fileState(config())).containsExactly("a.json|ingested|0", "new.json|ingested|1");
  }

  @Test
  void filesRecordedInABatchSparkNeverPlannedArePlannedAgainByTheQuery() throws IOException {
    land("a.json", "{\"order_id\":1,\"status\":\"Created\"}");
    run(config());
    land("b.json", "{\"order_id\":2,\"status\":\"Shipped\"}");
    // A run stopped after the file state recorded batch 1 and before Spark wrote its offset.
    var hadoop = spark.sparkContext().hadoopConfiguration();
    ListingDiscovery listing =
        new ListingDiscovery(hadoop, dir.resolve("landing").toString(), Map.of());
    List<FileState.Discovered> b =
        listing.discover().stream().filter(f -> f.path().endsWith("/b.json")).toList();
    FileState.of(spark, dir.resolve("checkpoint").toString()).plan(b, 1, listing);

    BronzeResult next = run(config());

    assertThat(starts.names()).containsExactly(QUERY);
    assertThat(next).extracting(BronzeResult::files, BronzeResult::rows).containsExactly(1L, 1L);
    assertThat(bronzeRows()).containsExactly("a.json|1", "b.json|2");
    assertThat(fileState(config())).containsExactly("a.json|ingested|0", "b.json|ingested|1");
  }

  /**
   * The source plans from the run's look with its own limits: {@code maxFilesPerTrigger: 1} takes
   * the two new files in two batches, oldest first. Spark hands the source its options with their
   * keys lowercased; before the source looked them up case-insensitively, both went in one batch.
   */
  @Test
  void theQueryPlansTheLooksFilesWithTheSourcesLimits() throws IOException {
    PipelineConfig oneAtATime = config("  options: {maxFilesPerTrigger: 1}\n");
    land("a.json", "{\"order_id\":1,\"status\":\"Created\"}");
    run(oneAtATime);
    land("c.json", "{\"order_id\":3,\"status\":\"Created\"}");
    land("b.json", "{\"order_id\":2,\"status\":\"Created\"}");
    File c = dir.resolve("landing/c.json").toFile();
    assertThat(c.setLastModified(c.lastModified() - 60_000)).isTrue();

    BronzeResult next = run(oneAtATime);

    assertThat(starts.names()).containsExactly(QUERY);
    assertThat(next)
        .extracting(BronzeResult::batches, BronzeResult::files, BronzeResult::rows)
        .containsExactly(2L, 2L, 2L);
    assertThat(fileState(oneAtATime))
        .containsExactly("a.json|ingested|0", "b.json|ingested|2", "c.json|ingested|1");
  }
}
