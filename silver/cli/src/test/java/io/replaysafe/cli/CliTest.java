package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI through its public factory: exit codes, messages and outputs. */
class CliTest extends SparkTestBase {
  @TempDir Path dir;

  static CliRunner.Outcome run(String... args) {
    return CliRunner.run(args);
  }

  @Test
  void unknownConfigKeyExitsWithUsageCode() throws Exception {
    Path file = dir.resolve("p.yaml");
    Files.writeString(
        file,
        "name: x\nsource:\n  path: /l\n  schema: \"a INT\"\n  rescueDataColumn: r\nbronze:\n"
            + "  path: /b\n  checkpoint: /c\n");
    CliRunner.Outcome outcome = run("bronze", "--config", file.toString());
    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err())
        .startsWith(
            "replaysafe: Pipeline file " + file + ": unknown key 'source.rescueDataColumn';");
  }

  @Test
  void missingConfigFileExitsWithUsageCode() {
    CliRunner.Outcome outcome = run("bronze", "--config", dir.resolve("nope.yaml").toString());
    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err()).contains("it does not exist; check the --config path");
  }

  @Test
  void unknownSubcommandOrFlagIsAUsageError() {
    assertThat(run("bronz").exitCode()).isEqualTo(2);
    assertThat(run("bronze", "--config", "x", "--jsn").exitCode()).isEqualTo(2);
  }

  @Test
  void bronzeJsonSummaryAndExport() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing/2026/11"));
    Files.writeString(
        landing.resolve("a.json"), "{\"id\":2,\"v\":\"b\"}\n{\"id\":1,\"v\":\"a\",\"x\":true}\n");
    Path file = dir.resolve("p.yaml");
    Files.writeString(
        file,
        "name: cli\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \"id INT, v STRING\"\nbronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("ckpt")
            + "\n");

    CliRunner.Outcome bronze = run("bronze", "--config", file.toString(), "--json");
    assertThat(bronze.exitCode()).isEqualTo(0);
    assertThat(bronze.out())
        .startsWith(
            "{\"layer\":\"bronze\",\"pipeline\":\"cli\",\"batches\":1,\"files\":1,\"rows\":2,"
                + "\"rescuedRows\":1,\"corruptRows\":0,\"bronzeVersion\":1,\"seconds\":");

    CliRunner.Outcome export = run("export", "--config", file.toString(), "--layer", "bronze");
    assertThat(export.exitCode()).isEqualTo(0);
    String uri = "file:" + landing.resolve("a.json");
    assertThat(export.out().lines().toList())
        .hasSize(2)
        .allSatisfy(line -> assertThat(line).contains("\"source_file\":\"" + uri + "\""))
        .satisfies(
            lines -> {
              assertThat(lines.get(0))
                  .startsWith(
                      "{\"id\":1,\"v\":\"a\",\"_rescued_data\":\"{\\\"x\\\":true,\\\"_file_path\\\":\\\""
                          + uri
                          + "\\\"}\",\"_corrupt_record\":null,");
              assertThat(lines.get(1))
                  .startsWith(
                      "{\"id\":2,\"v\":\"b\",\"_rescued_data\":null,\"_corrupt_record\":null,");
            });
  }

  /** An orders pipeline with silver on local disk; returns the pipeline file. */
  Path ordersPipeline(String... landedLines) throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Files.writeString(landing.resolve("a.json"), String.join("\n", landedLines) + "\n");
    return Files.writeString(
        dir.resolve("orders.yaml"),
        "name: orders\nsource:\n  path: "
            + landing
            + "\n  schema: \"order_id BIGINT, source_version BIGINT, status STRING\"\nbronze:\n"
            + "  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("ckpt/bronze")
            + "\nsilver:\n  path: "
            + dir.resolve("silver")
            + "\n  checkpoint: "
            + dir.resolve("ckpt/silver")
            + "\n  keys: [order_id]\n  sequenceBy: [source_version]\n");
  }

  @Test
  void runPrintsOneLineForSchedulers() throws Exception {
    Path file =
        ordersPipeline(
            "{\"order_id\":1,\"source_version\":1,\"status\":\"Created\"}",
            "{\"order_id\":2,\"source_version\":1,\"status\":\"Created\"}");
    CliRunner.Outcome run = run("run", "--config", file.toString());
    assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
    assertThat(run.out().lines().toList())
        .singleElement()
        .asString()
        .startsWith(
            "run orders: ok | bronze orders: 1 file(s), 2 row(s) (0 with rescued data, 0 corrupt)"
                + " in 1 batch(es); bronze table version 1; ")
        .contains(
            " | silver orders: 1 batch(es), 2 row(s) in; 0 invalid, 0 exact retries collapsed, 0"
                + " older version(s) ignored, 0 conflict(s) (0 in batch, 0 with target), 0"
                + " quarantined; inserted 2, updated 0, deleted 0; silver table version 1; ");

    // Nothing new: both jobs run, and say so, on the one line.
    CliRunner.Outcome again = run("run", "--config", file.toString(), "--json");
    assertThat(again.exitCode()).as(again.err()).isEqualTo(0);
    assertThat(again.out())
        .startsWith(
            "{\"pipeline\":\"orders\",\"status\":\"ok\",\"bronze\":{\"layer\":\"bronze\","
                + "\"pipeline\":\"orders\",\"batches\":0,\"files\":0,\"rows\":0,")
        .contains(",\"silver\":{\"layer\":\"silver\",\"pipeline\":\"orders\",\"batches\":0,")
        .hasLineCount(1);
  }

  @Test
  void runExitsWithOneWhenSilverRejectsABatch() throws Exception {
    Path file =
        ordersPipeline(
            "{\"order_id\":5,\"source_version\":2,\"status\":\"Shipped\"}",
            "{\"order_id\":5,\"source_version\":2,\"status\":\"Cancelled\"}");
    CliRunner.Outcome run = run("run", "--config", file.toString(), "--json");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .startsWith(
            "{\"pipeline\":\"orders\",\"status\":\"failed\",\"bronze\":{\"layer\":\"bronze\","
                + "\"pipeline\":\"orders\",\"batches\":1,\"files\":1,\"rows\":2,")
        .contains(
            "\"silver\":null,\"failedLayer\":\"silver\",\"exitCode\":1,\"kind\":\"rejected\",\"error\":\"Cannot"
                + " merge batch 0 into silver "
                + dir.resolve("silver")
                + ": onConflict is fail and the same key and sequence carry different payloads.")
        .hasLineCount(1);
    // One progress line per micro-batch on stderr, then the rejection.
    assertThat(run.err().lines().findFirst())
        .hasValueSatisfying(
            line ->
                assertThat(line)
                    .matches("bronze orders: batch 0: 1 file\\(s\\), 2 row\\(s\\), \\d+\\.\\d s"));
    assertThat(run.err())
        .contains("\nreplaysafe: Cannot merge batch 0 into silver ")
        .contains("key 5 sequence 2 has 2 different payloads in batch 0 (hashes ");

    CliRunner.Outcome text = run("run", "--config", file.toString());
    assertThat(text.exitCode()).isEqualTo(1);
    assertThat(text.out())
        .startsWith(
            "run orders: FAILED in silver: Cannot merge batch 0 into silver "
                + dir.resolve("silver")
                + ": onConflict is fail and the same key and sequence carry different payloads.")
        .contains(" | bronze orders: 0 file(s), 0 row(s) ")
        .hasLineCount(1);
  }

  @Test
  void runWithoutASilverSectionIsAUsageErrorBeforeBronzeMoves() throws Exception {
    Path file = dir.resolve("p.yaml");
    Files.writeString(
        file,
        "name: x\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \"a INT\"\nbronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("c")
            + "\n");
    CliRunner.Outcome run = run("run", "--config", file.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .isEqualTo("replaysafe: pipeline 'x' has no silver section; add one to run silver\n");
    assertThat(dir.resolve("bronze")).doesNotExist();
  }

  @Test
  void demoRunsEndToEndOnTheEmbeddedEndpoint() {
    CliRunner.Outcome demo = run("demo");
    assertThat(demo.exitCode()).as(demo.err()).isEqualTo(0);
    assertThat(demo.out())
        .contains(
            "bronze orders: 2 file(s), 7 row(s) (3 with rescued data, 1 corrupt) in 1 batch(es);"
                + " bronze table version 1;")
        .contains("\"_rescued_data\":\"{\\\"coupon\\\":\\\"WELCOME\\\"")
        .contains(
            "\"_corrupt_record\":\"{\\\"order_id\\\":105,\\\"source_version\\\":1,\\\"status\\\":\\\"Crea\"")
        .contains(
            "key 101 sequence 1: older than the stored version {\"source_version\":2}, ignored")
        .contains("key 103 sequence 3: deleted (tombstone kept)")
        .containsPattern(
            "What the contract did: 1 exact retry collapsed, 1 older version\\(s\\) ignored, 1"
                + " conflict\\(s\\) quarantined: key 102 sequence 1 differs from the stored version"
                + " at the same sequence \\(stored hash [0-9a-f]{12}, incoming [0-9a-f]{12}\\):"
                + " quarantined, 2 invalid row\\(s\\) quarantined, 1 key\\(s\\) deleted \\(tombstones"
                + " kept\\)\\.");
    String silver = demo.out().substring(demo.out().indexOf("Silver (current state):"));
    assertThat(
            silver
                .lines()
                .skip(1)
                .limit(3)
                .map(l -> l.substring(0, l.indexOf(",\"__payload_hash"))))
        .containsExactly(
            "{\"order_id\":101,\"source_version\":2,\"status\":\"Shipped\",\"amount\":20.5",
            "{\"order_id\":102,\"source_version\":1,\"status\":\"Created\",\"amount\":7.25",
            "{\"order_id\":106,\"source_version\":1,\"status\":\"Created\",\"amount\":12.0");
  }

  // Slow (a second demo over s3a); runs in .ci/run with -Pslow.
  @Tag("slow")
  @Test
  void historyDemoPlacesALateEventInThePast() {
    CliRunner.Outcome demo = run("demo", "--scd2");
    assertThat(demo.exitCode()).as(demo.err()).isEqualTo(0);
    String history = demo.out().substring(demo.out().indexOf("Silver (history, SCD type 2):"));
    assertThat(
            history
                .lines()
                .skip(1)
                .limit(5)
                .map(l -> l.substring(0, l.indexOf(",\"__payload_hash"))))
        .containsExactly(
            "{\"order_id\":101,\"source_version\":1,\"status\":\"Created\",\"amount\":20.5,\"__START_AT\":1,\"__END_AT\":2",
            "{\"order_id\":101,\"source_version\":2,\"status\":\"Shipped\",\"amount\":20.5,\"__START_AT\":2,\"__END_AT\":null",
            "{\"order_id\":102,\"source_version\":1,\"status\":\"Created\",\"amount\":7.25,\"__START_AT\":1,\"__END_AT\":null",
            "{\"order_id\":103,\"source_version\":1,\"status\":null,\"amount\":3.0,\"__START_AT\":1,\"__END_AT\":2",
            "{\"order_id\":103,\"source_version\":2,\"status\":\"Paid\",\"amount\":3.0,\"__START_AT\":2,\"__END_AT\":3");
    assertThat(history)
        .contains(
            "{\"order_id\":106,\"source_version\":0,\"status\":\"Quoted\",\"amount\":12.0,\"__START_AT\":0,\"__END_AT\":1")
        .contains(
            "{\"order_id\":106,\"source_version\":1,\"status\":\"Created\",\"amount\":12.0,\"__START_AT\":1,\"__END_AT\":null");
  }

  @Test
  void runChainsBronzeAndSilverAndExitsOneWhenABatchIsRejected() throws Exception {
    Files.createDirectories(dir.resolve("landing"));
    Files.writeString(
        dir.resolve("landing/a.json"),
        "{\"id\":1,\"seq\":1,\"v\":\"a\"}\n{\"id\":1,\"seq\":1,\"v\":\"b\"}\n");
    Path file = dir.resolve("p.yaml");
    Files.writeString(
        file,
        "name: runs\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \"id INT, seq INT, v STRING\"\nbronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("ckpt/bronze")
            + "\nsilver:\n  path: "
            + dir.resolve("silver")
            + "\n  checkpoint: "
            + dir.resolve("ckpt/silver")
            + "\n  keys: [id]\n  sequenceBy: [seq]\n");

    CliRunner.Outcome rejected = run("run", "--config", file.toString());
    assertThat(rejected.exitCode()).isEqualTo(1);
    assertThat(rejected.err())
        .startsWith("bronze runs: batch 0: 1 file(s), 2 row(s), ")
        .contains("\nreplaysafe: Cannot merge batch 0 into silver " + dir.resolve("silver"))
        .contains("key 1 sequence 1 has 2 different payloads in batch 0");

    CliRunner.Outcome runs = run("export", "--config", file.toString(), "--layer", "runs");
    assertThat(runs.exitCode()).isEqualTo(0);
    assertThat(runs.out().lines()).singleElement().asString().contains("\"status\":\"REJECTED\"");

    Files.writeString(
        dir.resolve("p2.yaml"),
        Files.readString(file)
            .replace("sequenceBy: [seq]", "sequenceBy: [seq]\n  onConflict: quarantine"));
    CliRunner.Outcome quarantined =
        run("run", "--config", dir.resolve("p2.yaml").toString(), "--json");
    assertThat(quarantined.exitCode()).as(quarantined.err()).isEqualTo(0);
    assertThat(quarantined.out())
        .startsWith(
            "{\"pipeline\":\"runs\",\"status\":\"ok\",\"bronze\":{\"layer\":\"bronze\","
                + "\"pipeline\":\"runs\",\"batches\":0,")
        .contains(
            "\"silver\":{\"layer\":\"silver\",\"pipeline\":\"runs\",\"batches\":1,\"inputRows\":2,")
        .contains("\"quarantined\":2,");
    CliRunner.Outcome quarantine =
        run("export", "--config", file.toString(), "--layer", "quarantine");
    assertThat(quarantine.out().lines())
        .hasSize(2)
        .allSatisfy(l -> assertThat(l).contains("\"reason\":\"CONFLICT_IN_BATCH\""));
  }
}
