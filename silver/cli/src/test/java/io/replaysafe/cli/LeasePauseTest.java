package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.common.testing.S3LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The black-box test of the fenced lease: a {@code run} is SIGSTOPped just after bronze's first
 * commit, for longer than its lease's time to live (6 s here); a second {@code run} takes the lease
 * over and finishes; then the first is resumed. It must exit 4 without writing again: no commit by
 * it appears in any table's log after the second writer's first (each commit's {@code
 * commitInfo.replaysafeWriter} names its lease), and every table equals one serial run of the same
 * files. On local disk and on the embedded S3 endpoint. Two to four minutes each on a quiet machine
 * (three child JVMs and a serial run).
 *
 * <p>In the crash-matrix profile (run by hand, {@code mvn -Pcrash-matrix verify -pl silver/cli -am
 * -Dtest=LeasePauseTest}), not in CI's slow run: one of three runs on a loaded machine ended with
 * the right rows and no write by the paused holder, but silver's rows naming one bronze commit
 * fewer than the serial run (bronze version 3 where the serial run has 4). Until that is explained
 * the test is run by hand; it prints both bronze histories when it fails.
 */
@Tag("crash-matrix")
class LeasePauseTest extends SparkTestBase {
  private static final int TTL_SECONDS = 6;
  private static final int FILES = 4;
  private static final int ROWS = 3000;
  private static final List<String> TABLES =
      List.of(
          "bronze",
          "bronze_bad_files",
          "silver",
          "silver_tombstones",
          "silver_events",
          "silver_quarantine",
          "silver_runs");
  private static final Map<String, List<String>> VARYING =
      Map.of(
          "bronze", List.of("ingested_at", "source_file_mtime", "source_file_size"),
          "silver", List.of("__applied_at"),
          "silver_tombstones", List.of("__deleted_at"),
          "silver_events", List.of("__applied_at"),
          "silver_quarantine", List.of("quarantine_id", "quarantined_at", "run_id", "decided_at"),
          "silver_runs", List.of("run_id", "started_at", "seconds"));

  static EmbeddedS3Server server;
  static StorageConfig storage;
  @TempDir Path dir;

  @BeforeAll
  static void startEndpoint() {
    server = EmbeddedS3Server.start(0, List.of("lake"));
    server.credentials().installAsSystemProperties();
    storage = new StorageConfig(server.endpoint().toString(), "us-east-1", true);
  }

  @AfterAll
  static void stopEndpoint() {
    server.close();
  }

  /** Where one pipeline lives: its root, how files land there, its pipeline file's head. */
  private record Lake(String root, Landing landing, String storageYaml) {}

  private interface Landing {
    void put(String name, String content) throws Exception;
  }

  @Test
  void onLocalDiskThePausedHolderWritesNothingAfterTheTakeover() throws Exception {
    scenario(name -> local(name));
  }

  @Test
  void onTheEmbeddedEndpointThePausedHolderWritesNothingAfterTheTakeover() throws Exception {
    SparkSessions.applyStorage(spark, Optional.of(storage));
    scenario(name -> s3(name));
  }

  private Lake local(String name) throws Exception {
    Path root = Files.createDirectories(dir.resolve(name));
    Path landing = Files.createDirectories(root.resolve("landing"));
    return new Lake(
        root.toUri().toString().replaceAll("/$", ""),
        (file, content) -> Files.writeString(landing.resolve(file), content),
        "");
  }

  private Lake s3(String name) {
    S3LandingZone zone = new S3LandingZone(storage, "lake", name + "/landing");
    return new Lake(
        "s3a://lake/" + name,
        (file, content) -> zone.put(file, content.getBytes(StandardCharsets.UTF_8)),
        "storage: {endpoint: \""
            + server.endpoint()
            + "\", region: us-east-1, pathStyleAccess: true}\n");
  }

  private interface LakeMaker {
    Lake make(String name) throws Exception;
  }

  private void scenario(LakeMaker lakes) throws Exception {
    Lake paused = lakes.make("paused");
    Path config = pipeline(paused, "paused");
    land(paused);
    List<String> args = List.of("run", "--config", config.toString());
    Path logA = dir.resolve("holder.log");
    Process holder = start(paused, args, logA);
    try {
      awaitFirstBronzeCommit(paused, holder, logA);
      signal("STOP", holder);
      Thread.sleep((TTL_SECONDS + 1) * 1000L);

      Path logB = dir.resolve("taker.log");
      Process taker = start(paused, args, logB);
      assertThat(taker.waitFor(10, TimeUnit.MINUTES)).as("the taker finished").isTrue();
      assertThat(taker.exitValue()).as(Files.readString(logB)).isZero();
      assertThat(Files.readString(logB)).contains("taking over the writer's lease");
    } finally {
      signal("CONT", holder);
    }
    assertThat(holder.waitFor(5, TimeUnit.MINUTES)).as("the resumed holder ended").isTrue();
    String holderLog = Files.readString(logA);
    assertThat(holder.exitValue()).as(holderLog).isEqualTo(4);
    assertThat(holderLog).containsAnyOf("stopped before writing", "lost the writer's lease");

    Map<String, List<String>> writers = writers(paused);
    String first = writers.get("bronze").get(0);
    List<String> silver = writers.get("silver");
    String second = silver.get(silver.size() - 1);
    assertThat(second).as("the taker's lease").isNotEqualTo(first);
    writers.forEach(
        (table, leases) -> {
          assertThat(leases).as(table + ": every commit names its writer").doesNotContainNull();
          int takeover = leases.indexOf(second);
          if (takeover >= 0) {
            assertThat(leases.subList(takeover, leases.size()))
                .as(table + ": commits after the takeover")
                .doesNotContain(first);
          }
        });

    Lake serial = lakes.make("serial");
    Path serialConfig = pipeline(serial, "serial");
    land(serial);
    CliRunner.Outcome run = CliRunner.run("run", "--config", serialConfig.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(tables(paused))
        .as("bronze's history, paused then serial:\n%s\n%s", history(paused), history(serial))
        .isEqualTo(tables(serial));
  }

  private Path pipeline(Lake lake, String name) throws Exception {
    String yaml =
        lake.storageYaml()
            + "name: paused\nsource:\n  path: "
            + lake.root()
            + "/landing/\n  schema: \"order_id BIGINT, source_version BIGINT, status STRING, op"
            + " STRING\"\n  options: {maxFilesPerTrigger: 1}\nbronze:\n  path: "
            + lake.root()
            + "/bronze\n  checkpoint: "
            + lake.root()
            + "/_ck/bronze\nsilver:\n  path: "
            + lake.root()
            + "/silver\n  checkpoint: "
            + lake.root()
            + "/_ck/silver\n  keys: [order_id]\n  sequenceBy: [source_version]\n"
            + "  applyAsDeletes: \"op = 'DELETE'\"\n  exceptColumnList: [op]\n"
            + "  onConflict: quarantine\n";
    return Files.writeString(dir.resolve(name + ".yaml"), yaml);
  }

  /** Four files of 3,000 rows; each updates the keys of the one before, the last deletes some. */
  private static void land(Lake lake) throws Exception {
    for (int f = 0; f < FILES; f++) {
      StringBuilder rows = new StringBuilder();
      for (int id = 0; id < ROWS; id++) {
        rows.append(
                f == FILES - 1 && id % 10 == 0
                    ? CrashMatrix.delete(id, f)
                    : CrashMatrix.orders(id, f, "s" + f))
            .append('\n');
      }
      lake.landing().put(String.format("%02d.json", f), rows.toString());
    }
  }

  private Process start(Lake lake, List<String> args, Path log) throws Exception {
    return CrashMatrix.startChild(
        List.of("-D" + PipelineLease.TTL_PROPERTY + "=" + TTL_SECONDS),
        Map.of(
            "AWS_ACCESS_KEY_ID", server.credentials().accessKeyId(),
            "AWS_SECRET_ACCESS_KEY", server.credentials().secretAccessKey()),
        args,
        log);
  }

  private void awaitFirstBronzeCommit(Lake lake, Process holder, Path log) throws Exception {
    org.apache.hadoop.fs.Path commit =
        new org.apache.hadoop.fs.Path(
            lake.root() + "/bronze/_delta_log/" + String.format("%020d.json", 0));
    FileSystem fs = commit.getFileSystem(spark.sparkContext().hadoopConfiguration());
    long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (!fs.exists(commit)) {
      assertThat(holder.isAlive())
          .as("the holder is still running; its log: " + Files.readString(log))
          .isTrue();
      assertThat(System.nanoTime()).as("bronze's first commit within 5 minutes").isLessThan(until);
      Thread.sleep(50);
    }
  }

  private static void signal(String signal, Process process) throws Exception {
    new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).start().waitFor();
  }

  /** Each table's commits in version order, as the lease id each names (null: none named). */
  private static Map<String, List<String>> writers(Lake lake) throws Exception {
    Map<String, List<String>> writers = new LinkedHashMap<>();
    ObjectMapper json = new ObjectMapper();
    for (String table : TABLES) {
      org.apache.hadoop.fs.Path log =
          new org.apache.hadoop.fs.Path(lake.root() + "/" + table + "/_delta_log");
      FileSystem fs = log.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(log)) {
        continue;
      }
      List<String> leases = new ArrayList<>();
      FileStatus[] commits = fs.listStatus(log, p -> p.getName().matches("\\d{20}\\.json"));
      Arrays.sort(commits, (a, b) -> a.getPath().getName().compareTo(b.getPath().getName()));
      for (FileStatus commit : commits) {
        String lease = null;
        try (BufferedReader in =
            new BufferedReader(
                new InputStreamReader(fs.open(commit.getPath()), StandardCharsets.UTF_8))) {
          for (String line = in.readLine(); line != null; line = in.readLine()) {
            JsonNode action = json.readTree(line);
            if (action.has("commitInfo") && action.get("commitInfo").has("replaysafeWriter")) {
              lease = action.get("commitInfo").get("replaysafeWriter").get("lease").asText();
            }
          }
        }
        leases.add(lease);
      }
      writers.put(table, leases);
    }
    return writers;
  }

  private static List<String> history(Lake lake) {
    return io.delta.tables.DeltaTable.forPath(spark, lake.root() + "/bronze")
        .history()
        .orderBy("version")
        .selectExpr(
            "version",
            "operation",
            "cast(operationParameters as string)",
            "operationMetrics['numOutputRows']")
        .collectAsList()
        .stream()
        .map(Object::toString)
        .toList();
  }

  /** Every table as sorted JSON lines, without what differs between two runs by design. */
  private static Map<String, List<String>> tables(Lake lake) throws Exception {
    Map<String, List<String>> tables = new LinkedHashMap<>();
    for (String table : TABLES) {
      String path = lake.root() + "/" + table;
      org.apache.hadoop.fs.Path log = new org.apache.hadoop.fs.Path(path + "/_delta_log");
      if (!log.getFileSystem(spark.sparkContext().hadoopConfiguration()).exists(log)) {
        continue;
      }
      tables.put(
          table,
          spark
              .read()
              .format("delta")
              .load(path)
              .drop(VARYING.getOrDefault(table, List.of()).toArray(String[]::new))
              .toJSON()
              .collectAsList()
              .stream()
              .map(
                  row ->
                      row.replace(lake.root(), "<root>")
                          .replace(lake.root().replace("file:///", "file:/"), "<root>"))
              .sorted()
              .toList());
    }
    return tables;
  }
}
