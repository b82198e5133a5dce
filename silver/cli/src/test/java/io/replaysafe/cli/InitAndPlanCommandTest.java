package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.Columns;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code replaysafe init} and {@code replaysafe plan} on local files. */
class InitAndPlanCommandTest extends SparkTestBase {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void initDraftsSparksInferredSchemaAndListsCandidatesWithEvidence() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing/orders/2026/11"));
    // Arrival order: order 2 then order 1 at version 1, so order_id decreases within a version
    // and only (order_id, source_version) reads as (key, sequence).
    write(
        landing.resolve("a.json"),
        Instant.parse("2026-11-30T10:00:00Z"),
        "{\"event_id\":\"e1\",\"order_id\":2,\"source_version\":1,\"status\":\"new\","
            + "\"amount\":3,\"at\":\"2026-11-30T10:00:00Z\",\"tags\":[\"a\"]}",
        "{\"event_id\":\"e2\",\"order_id\":1,\"source_version\":1,\"status\":\"new\","
            + "\"amount\":10.5,\"at\":\"2026-11-30T10:00:01Z\"}",
        "{\"event_id\":\"e3\",\"order_id\":1,\"source_version\":2,\"status\":\"paid\","
            + "\"amount\":10.5,\"at\":\"2026-11-30T10:00:02Z\",\"customer\":{\"id\":7}}",
        "not json at all");
    write(
        landing.resolve("b.json"),
        Instant.parse("2026-11-30T11:00:00Z"),
        "{\"event_id\":\"e4\",\"order_id\":2,\"source_version\":2,\"status\":\"paid\","
            + "\"amount\":3,\"at\":\"2026-11-30T10:00:03Z\"}",
        "{\"event_id\":\"e5\",\"order_id\":1,\"source_version\":3,\"status\":\"shipped\","
            + "\"amount\":10.5,\"at\":\"2026-11-30T10:00:04Z\"}");
    Path out = dir.resolve("orders.yaml");
    Path lake = dir.resolve("lake");

    CliRunner.Outcome init =
        CliRunner.run(
            "init",
            "--source",
            dir.resolve("landing/orders").toString(),
            "--out",
            out.toString(),
            "--lake",
            lake.toString());

    assertThat(init.exitCode()).as(init.err()).isEqualTo(0);
    assertThat(init.out())
        .isEqualTo(
            "init orders: wrote "
                + out
                + " from 2 sample file(s), 6 row(s), 8 column(s); key candidates: event_id,"
                + " order_id; sequence candidates: source_version, at\n"
                + "Next: choose silver.keys and silver.sequenceBy in "
                + out
                + ", then: replaysafe plan --config "
                + out
                + "\n");
    String yaml = Files.readString(out);
    assertThat(yaml)
        .contains(
            "# THIS FILE DOES NOT RUN YET: choose silver.keys and silver.sequenceBy below",
            "name: orders\n",
            "  path: " + dir.resolve("landing/orders") + "\n",
            "bronze:\n  path: "
                + lake
                + "/bronze/orders\n  checkpoint: "
                + lake
                + "/_checkpoints/bronze/orders\n",
            "silver:\n  path: "
                + lake
                + "/silver/orders\n  checkpoint: "
                + lake
                + "/_checkpoints/silver/orders\n",
            "  #   [event_id]  unique in the sample: 5 distinct values in 5 rows\n"
                + "  #   [order_id]  repeats (2 distinct values in 5 rows) and is unique together"
                + " with sequence source_version: one row per version\n"
                + "  keys: []                # CHOOSE, e.g. keys: [event_id]\n",
            "  #   [source_version]  BIGINT; never decreases within each order_id in arrival"
                + " order; no nulls\n"
                + "  #   [at]  STRING holding timestamps (declare it TIMESTAMP in the schema to"
                + " order by time); never decreases in arrival order; no nulls\n"
                + "  sequenceBy: []          # CHOOSE, e.g. sequenceBy: [source_version]\n");

    // The schema is Spark's own inference over the sample, without Spark's corrupt-record column.
    List<String> files =
        List.of("file:" + landing.resolve("a.json"), "file:" + landing.resolve("b.json"));
    StructType inferred = spark.read().format("json").load(files.toArray(String[]::new)).schema();
    StructType expected = new StructType();
    for (StructField f : inferred.fields()) {
      if (!f.name().equals(Columns.CORRUPT_RECORD)) {
        expected = expected.add(f);
      }
    }
    assertThat(inferred.fieldNames()).contains(Columns.CORRUPT_RECORD);

    // As drafted, the file refuses to run, and says why.
    CliRunner.Outcome refused = CliRunner.run("plan", "--config", out.toString());
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err())
        .isEqualTo(
            "replaysafe: Pipeline file "
                + out
                + ": silver.keys is empty: the pipeline does not run until you choose the"
                + " column(s) that identify a row. A file drafted by 'replaysafe init' lists"
                + " candidates with their evidence in the comment above it.\n");

    String chosen =
        yaml.replace("  keys: []", "  keys: [order_id]")
            .replace("  sequenceBy: []", "  sequenceBy: [source_version]");
    PipelineConfig pipeline = ConfigLoader.parse("edited", chosen);
    assertThat(pipeline.source().schema()).isEqualTo(expected);
    assertThat(pipeline.source().schema().toDDL())
        .isEqualTo(
            "amount DOUBLE,at STRING,customer STRUCT<id: BIGINT>,event_id STRING,order_id BIGINT,"
                + "source_version BIGINT,status STRING,tags ARRAY<STRING>");
    // Nothing was written to the lake.
    assertThat(lake).doesNotExist();

    // A second init never overwrites the file.
    CliRunner.Outcome again =
        CliRunner.run(
            "init", "--source", dir.resolve("landing/orders").toString(), "--out", out.toString());
    assertThat(again.exitCode()).isEqualTo(2);
    assertThat(again.err())
        .isEqualTo(
            "replaysafe: Cannot write the draft to "
                + out
                + ": the file exists and init never overwrites a pipeline file. Pass another"
                + " --out or move that file away.\n");
    assertThat(Files.readString(out)).isEqualTo(yaml);
  }

  @Test
  void planCountsRescuedCorruptInvalidAndConflictingRowsExactlyAndWritesNothing() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Path file = pipeline(landing);
    // Already ingested before the plan: c.json.
    write(
        landing.resolve("c.json"),
        Instant.parse("2026-11-29T09:00:00Z"),
        "{\"order_id\":9,\"source_version\":1,\"status\":\"old\"}");
    CliRunner.Outcome bronze = CliRunner.run("bronze", "--config", file.toString());
    assertThat(bronze.exitCode()).as(bronze.err()).isEqualTo(0);
    write(
        landing.resolve("a.json"),
        Instant.parse("2026-11-30T10:00:00Z"),
        "{\"order_id\":1,\"source_version\":1,\"status\":\"new\"}",
        "{\"order_id\":1,\"source_version\":1,\"status\":\"new\"}",
        "{\"order_id\":2,\"source_version\":1,\"status\":\"new\",\"extra\":true}",
        "{\"order_id\":3,\"source_version\":\"x\",\"status\":\"new\"}",
        "not json");
    write(
        landing.resolve("b.json"),
        Instant.parse("2026-11-30T11:00:00Z"),
        "{\"order_id\":4,\"source_version\":2,\"status\":\"a\"}",
        "{\"order_id\":4,\"source_version\":2,\"status\":\"b\"}",
        "{\"Status\":\"x\",\"order_id\":5,\"source_version\":1}",
        "",
        "{\"order_id\":null,\"source_version\":1,\"status\":\"n\"}");
    Map<String, String> before = tree(dir);

    CliRunner.Outcome plan = CliRunner.run("plan", "--config", file.toString(), "--json");

    assertThat(plan.exitCode()).as(plan.err()).isEqualTo(3);
    assertThat(tree(dir)).isEqualTo(before);
    JsonNode json = JSON.readTree(plan.out());
    String a = "file:" + landing.resolve("a.json");
    String b = "file:" + landing.resolve("b.json");
    assertThat(json.get("clean").asBoolean()).isFalse();
    assertThat(json.get("pending").toString())
        .isEqualTo(
            "{\"files\":2,\"bytes\":"
                + (Files.size(landing.resolve("a.json")) + Files.size(landing.resolve("b.json")))
                + ",\"oldest\":\"2026-11-30T10:00:00Z\",\"newest\":\"2026-11-30T11:00:00Z\","
                + "\"alreadyIngested\":1,\"skippedOlderThanMaxFileAge\":0}");
    JsonNode sample = json.get("sample");
    assertThat(sample.get("files").toString()).isEqualTo("[\"" + a + "\",\"" + b + "\"]");
    assertThat(sample.get("rows").asLong()).isEqualTo(9);
    assertThat(sample.get("rescuedRows").asLong()).isEqualTo(3);
    // Examples name rows by hash, not by their values (evidence.showValues is off).
    assertThat(sample.get("rescuedByField").toString())
        .isEqualTo(
            "{\"Status\":{\"rows\":1,\"examples\":[{\"file\":\""
                + b
                + "\",\"text\":\""
                + shown("{\"Status\":\"x\"}")
                + "\"}]},"
                + "\"extra\":{\"rows\":1,\"examples\":[{\"file\":\""
                + a
                + "\",\"text\":\""
                + shown("{\"extra\":true}")
                + "\"}]},"
                + "\"source_version\":{\"rows\":1,\"examples\":[{\"file\":\""
                + a
                + "\",\"text\":\""
                + shown("{\"source_version\":\"x\"}")
                + "\"}]}}");
    assertThat(sample.get("corruptRows").asLong()).isEqualTo(1);
    assertThat(sample.get("corruptExamples").toString())
        .isEqualTo("[{\"file\":\"" + a + "\",\"text\":\"" + shown("not json") + "\"}]");
    JsonNode silver = json.get("silver");
    assertThat(silver.get("rows").asLong()).isEqualTo(9);
    assertThat(silver.get("invalidRows").asLong()).isEqualTo(3);
    assertThat(silver.get("invalidByReason").toString())
        .isEqualTo(
            "{\"INVALID_CORRUPT_RECORD\":{\"rows\":1,\"examples\":[\"the line is not a JSON"
                + " object in "
                + a
                + " ("
                + shown(
                    "{\"order_id\":null,\"source_version\":null,\"status\":null,"
                        + "\"_rescued_data\":null,\"_corrupt_record\":\"not json\"}")
                + ")\"]},"
                + "\"INVALID_NULL_KEY\":{\"rows\":1,\"examples\":[\"key column 'order_id' is null"
                + " (missing or not convertible) in "
                + b
                + " ("
                + shown(
                    "{\"order_id\":null,\"source_version\":1,\"status\":\"n\","
                        + "\"_rescued_data\":null,\"_corrupt_record\":null}")
                + ")\"]},"
                + "\"INVALID_NULL_SEQUENCE\":{\"rows\":1,\"examples\":[\"sequence column"
                + " 'source_version' is null in "
                + a
                + " ("
                + shown(
                    "{\"order_id\":3,\"source_version\":null,\"status\":\"new\","
                        + "\"_rescued_data\":\"{\\\"source_version\\\":\\\"x\\\",\\\"_file_path\\\":\\\""
                        + a
                        + "\\\"}\",\"_corrupt_record\":null}")
                + ")\"]}}");
    assertThat(silver.get("exactRetries").asLong()).isEqualTo(1);
    assertThat(silver.get("conflicts").asLong()).isEqualTo(1);
    assertThat(silver.get("conflictExamples").size()).isEqualTo(1);
    assertThat(silver.get("conflictExamples").get(0).asText())
        .startsWith("key 4 sequence 2 has different payloads (hashes ")
        .endsWith(") in " + b);

    CliRunner.Outcome text = CliRunner.run("plan", "--config", file.toString());
    assertThat(text.exitCode()).isEqualTo(3);
    assertThat(text.out())
        .startsWith(
            "plan orders: dry run, nothing was written\n" + "bronze would ingest next: 2 file(s), ")
        .contains(
            "sample: 2 file(s), 9 row(s) parsed as bronze parses them\n"
                + "  rows with rescued data: 3\n"
                + "    Status: 1 row(s)\n"
                + "      "
                + shown("{\"Status\":\"x\"}")
                + " in "
                + b
                + "\n",
            "  corrupt rows: 1\n      " + shown("not json") + " in " + a + "\n",
            "  invalid rows: 3 (onInvalid: quarantine)\n",
            "  exact retries: 1 row(s) (collapsed into one, not an error)\n",
            "  conflicts: 1 key/sequence pair(s) (onConflict: fail)\n")
        .endsWith(
            "plan orders: bronze would rescue data in 3 row(s); bronze would keep 1 corrupt"
                + " row(s); silver would quarantine 3 invalid row(s); silver would reject the"
                + " batch for 1 conflict(s) (exit 3)\n");
    assertThat(tree(dir)).isEqualTo(before);
  }

  @Test
  void planOfACleanSampleExitsZeroAndOfNothingNewSaysSo() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Path file = pipeline(landing);
    write(
        landing.resolve("a.json"),
        Instant.parse("2026-11-30T10:00:00Z"),
        "{\"order_id\":1,\"source_version\":1,\"status\":\"new\"}",
        "{\"order_id\":1,\"source_version\":2,\"status\":\"paid\"}");
    CliRunner.Outcome clean = CliRunner.run("plan", "--config", file.toString());
    assertThat(clean.exitCode()).as(clean.out() + clean.err()).isEqualTo(0);
    assertThat(clean.out()).endsWith("plan orders: the sample is clean\n");
    assertThat(dir.resolve("lake")).doesNotExist();

    assertThat(CliRunner.run("run", "--config", file.toString()).exitCode()).isEqualTo(0);
    CliRunner.Outcome nothing = CliRunner.run("plan", "--config", file.toString());
    assertThat(nothing.exitCode()).isEqualTo(0);
    assertThat(nothing.out())
        .isEqualTo(
            "plan orders: dry run, nothing was written\n"
                + "bronze would ingest next: 0 file(s), 0 byte(s) (already ingested: 1)\n"
                + "nothing new to sample\n"
                + "plan orders: nothing to ingest\n");
  }

  /**
   * A Kafka tombstone (the line {@code null}, as a Kafka Connect S3 sink writes a record without a
   * value) is counted on its own, not as a corrupt row: bronze keeps it, silver ignores it, so a
   * sample whose only finding is tombstones is clean (exit 0).
   */
  @Test
  void planCountsKafkaTombstonesOnTheirOwnAndNotAsCorruptRows() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Path file = pipeline(landing);
    write(
        landing.resolve("a.json"),
        Instant.parse("2026-11-30T10:00:00Z"),
        "{\"order_id\":1,\"source_version\":1,\"status\":\"new\"}",
        "null",
        "{\"order_id\":2,\"source_version\":1,\"status\":\"new\"}",
        "null");

    CliRunner.Outcome text = CliRunner.run("plan", "--config", file.toString());

    assertThat(text.exitCode()).as(text.out() + text.err()).isEqualTo(0);
    assertThat(text.out())
        .endsWith(
            "sample: 1 file(s), 4 row(s) parsed as bronze parses them\n"
                + "  rows with rescued data: 0\n"
                + "  corrupt rows: 0\n"
                + "  Kafka tombstone records: 2 (lines that are the JSON literal null: kept by"
                + " bronze, ignored by silver, not an error)\n"
                + "silver contract on the sample:\n"
                + "  invalid rows: 0 (onInvalid: quarantine)\n"
                + "  exact retries: 0 row(s) (collapsed into one, not an error)\n"
                + "  conflicts: 0 key/sequence pair(s) (onConflict: fail)\n"
                + "plan orders: the sample is clean (2 Kafka tombstone record(s) ignored)\n");

    CliRunner.Outcome json = CliRunner.run("plan", "--config", file.toString(), "--json");

    assertThat(json.exitCode()).as(json.err()).isEqualTo(0);
    JsonNode plan = JSON.readTree(json.out());
    assertThat(plan.get("clean").asBoolean()).isTrue();
    JsonNode sample = plan.get("sample");
    assertThat(sample.get("rows").asLong()).isEqualTo(4);
    assertThat(sample.get("corruptRows").asLong()).isZero();
    assertThat(sample.get("corruptExamples").toString()).isEqualTo("[]");
    assertThat(sample.get("tombstoneRecords").asLong()).isEqualTo(2);
    assertThat(plan.get("silver").get("invalidRows").asLong()).isZero();
    assertThat(plan.get("silver").get("exactRetries").asLong()).isZero();
    assertThat(dir.resolve("lake")).doesNotExist();
  }

  @Test
  void planPredictsExactlyTheFilesTheNextBronzeRunIngests() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Path file = pipeline(landing);
    Instant seen = Instant.parse("2026-11-30T10:00:00Z");
    write(landing.resolve("c.json"), seen, "{\"order_id\":1,\"source_version\":1}");
    assertThat(CliRunner.run("bronze", "--config", file.toString()).exitCode()).isEqualTo(0);
    // New; one 8 days older than the newest ingested file (Spark's file source would skip it under
    // its own 7-day maxFileAge; bronze sets no age limit unless the user does); hidden names Spark
    // never lists.
    write(landing.resolve("d.json"), seen.plusSeconds(60), "{\"order_id\":2,\"source_version\":1}");
    Path late = Files.createDirectories(landing.resolve("late")).resolve("e.json");
    write(late, seen.minus(java.time.Duration.ofDays(8)), "{\"order_id\":3,\"source_version\":1}");
    write(landing.resolve("_f.json"), seen, "{\"order_id\":4,\"source_version\":1}");
    write(landing.resolve(".g.json"), seen, "{\"order_id\":5,\"source_version\":1}");

    CliRunner.Outcome plan = CliRunner.run("plan", "--config", file.toString(), "--json");
    assertThat(plan.exitCode()).as(plan.err()).isEqualTo(0);
    JsonNode json = JSON.readTree(plan.out());
    assertThat(json.get("pending").toString())
        .isEqualTo(
            "{\"files\":2,\"bytes\":"
                + (Files.size(landing.resolve("d.json")) + Files.size(late))
                + ",\"oldest\":\"2026-11-22T10:00:00Z\",\"newest\":\"2026-11-30T10:01:00Z\","
                + "\"alreadyIngested\":1,\"skippedOlderThanMaxFileAge\":0}");
    assertThat(json.get("sample").get("files"))
        .extracting(JsonNode::asText)
        .containsExactlyInAnyOrder("file:" + landing.resolve("d.json"), "file:" + late);

    // The differential: the real run ingests exactly what the plan said.
    CliRunner.Outcome bronze = CliRunner.run("bronze", "--config", file.toString());
    assertThat(bronze.exitCode()).as(bronze.err()).isEqualTo(0);
    assertThat(bronze.out()).startsWith("bronze orders: 2 file(s), 2 row(s) ");
    CliRunner.Outcome export =
        CliRunner.run("export", "--config", file.toString(), "--layer", "bronze");
    assertThat(export.out().lines().map(l -> l.substring(0, l.indexOf(",\"source_version\""))))
        .containsExactlyInAnyOrder("{\"order_id\":1", "{\"order_id\":2", "{\"order_id\":3");
  }

  @Test
  void planUnderFailOnNewColumnsNamesEveryNewFieldInsteadOfStopping() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Path file = pipeline(landing);
    Files.writeString(
        file,
        Files.readString(file)
            .replace(
                "status STRING\"\n", "status STRING\"\n  schemaEvolutionMode: failOnNewColumns\n"));
    write(
        landing.resolve("a.json"),
        Instant.parse("2026-11-30T10:00:00Z"),
        "{\"order_id\":1,\"source_version\":1,\"status\":\"new\",\"coupon\":\"X\"}",
        "{\"order_id\":2,\"source_version\":1,\"Status\":\"new\",\"channel\":\"web\"}");

    CliRunner.Outcome plan = CliRunner.run("plan", "--config", file.toString());

    assertThat(plan.exitCode()).as(plan.err()).isEqualTo(3);
    assertThat(plan.out())
        .endsWith(
            "plan orders: bronze would stop at new field(s) channel, coupon"
                + " (schemaEvolutionMode: failOnNewColumns); bronze would rescue data in 2 row(s)"
                + " (exit 3)\n");
  }

  private Path pipeline(Path landing) throws IOException {
    Path file = dir.resolve("orders.yaml");
    Path lake = dir.resolve("lake");
    Files.writeString(
        file,
        "name: orders\nsource:\n  path: "
            + landing
            + "\n  schema: \"order_id BIGINT, source_version BIGINT, status STRING\"\nbronze:\n"
            + "  path: "
            + lake.resolve("bronze")
            + "\n  checkpoint: "
            + lake.resolve("ckpt/bronze")
            + "\nsilver:\n  path: "
            + lake.resolve("silver")
            + "\n  checkpoint: "
            + lake.resolve("ckpt/silver")
            + "\n  keys: [order_id]\n  sequenceBy: [source_version]\n  onInvalid: quarantine\n");
    return file;
  }

  private static void write(Path file, Instant modified, String... lines) throws IOException {
    Files.writeString(file, String.join("\n", lines) + "\n");
    Files.setLastModifiedTime(file, FileTime.from(modified));
  }

  /** Every file and directory under root with its size and modification time. */
  static Map<String, String> tree(Path root) throws IOException {
    Map<String, String> entries = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      List<Path> paths = new ArrayList<>(walk.toList());
      for (Path p : paths) {
        entries.put(
            root.relativize(p).toString(),
            Files.isDirectory(p)
                ? "dir"
                : Files.size(p) + "@" + Files.getLastModifiedTime(p).toMillis());
      }
    }
    return entries;
  }

  private static String shown(String payload) {
    return io.replaysafe.common.config.EvidenceConfig.DEFAULT.show(payload);
  }
}
