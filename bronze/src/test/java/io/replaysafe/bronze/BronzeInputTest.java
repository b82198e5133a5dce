package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10 end to end on local disk: every supported type through the stream into Delta, bytes
 * never altered, and no file skipped for its age.
 */
class BronzeInputTest extends SparkTestBase {
  @TempDir Path dir;

  PipelineConfig config(String schema) {
    return config(schema, "");
  }

  /** {@code sourceKeys}: more keys of the source section, e.g. "maxLineBytes: 1024". */
  PipelineConfig config(String schema, String sourceKeys) {
    return ConfigLoader.parse(
        "test",
        "name: input\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \""
            + schema
            + "\"\n"
            + (sourceKeys.isEmpty() ? "" : "  " + sourceKeys + "\n")
            + "bronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("checkpoint")
            + "\n");
  }

  void land(String name, byte[] content) throws IOException {
    Path file = dir.resolve("landing").resolve(name);
    Files.createDirectories(file.getParent());
    Files.write(file, content);
  }

  void land(String name, String... lines) throws IOException {
    land(name, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
  }

  BronzeResult ingest(PipelineConfig config) {
    return BronzeIngest.from(config, spark).execute();
  }

  Dataset<Row> bronze() {
    return spark.read().format("delta").load(dir.resolve("bronze").toString());
  }

  @Test
  void everySupportedTypeGoesThroughToDelta() throws IOException {
    String schema =
        "id INT, b BOOLEAN, t TINYINT, sm SMALLINT, l BIGINT, f FLOAT, d DOUBLE,"
            + " dec DECIMAL(10,2), s STRING, bin BINARY, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ,"
            + " v VARIANT, a ARRAY<BIGINT>, m MAP<STRING, BIGINT>,"
            + " st STRUCT<items: ARRAY<STRUCT<sku: STRING, qty: INT>>, attrs: MAP<STRING, STRING>>,"
            + " am ARRAY<MAP<STRING, STRUCT<x: DOUBLE>>>";
    land(
        "types.json",
        "{\"id\":1,\"b\":true,\"t\":-1,\"sm\":300,\"l\":9007199254740993,\"f\":1.5,\"d\":NaN,"
            + "\"dec\":\"12.50\",\"s\":\"caf\\u00e9\",\"bin\":\"AAEC\",\"dt\":\"0001-01-01\","
            + "\"ts\":\"1000-01-01T00:00:00Z\",\"ntz\":\"2024-02-29 10:11:12.5\","
            + "\"v\":{\"k\":[1,\"x\"]},\"a\":[4,5,6],\"m\":{\"a\":1},"
            + "\"st\":{\"items\":[{\"sku\":\"p\",\"qty\":2}],\"attrs\":{\"c\":\"red\"}},"
            + "\"am\":[{\"k\":{\"x\":0.5}},{}]}",
        "{\"id\":2,\"a\":[1,\"two\"],\"m\":{\"a\":1.5},\"dt\":\"300000-01-01\","
            + "\"ts\":\"300000-01-01T00:00:00Z\",\"dec\":1e300000000}");

    BronzeResult result = ingest(config(schema));

    assertThat(result.rows()).isEqualTo(2);
    assertThat(
            rows(
                bronze()
                    .selectExpr(
                        "id",
                        "b",
                        "t",
                        "sm",
                        "l",
                        "f",
                        "d",
                        "dec",
                        "s",
                        "hex(bin)",
                        "cast(dt as string)",
                        "cast(ts as string)",
                        "cast(ntz as string)",
                        "to_json(v)",
                        "a",
                        "m",
                        "to_json(st)",
                        "to_json(am)")
                    .orderBy("id")))
        .containsExactly(
            "1|true|-1|300|9007199254740993|1.5|NaN|12.50|caf\u00e9|000102|0001-01-01"
                + "|1000-01-01 00:00:00|2024-02-29 10:11:12.5|{\"k\":[1,\"x\"]}"
                + "|ArraySeq(4, 5, 6)|Map(a -> 1)"
                + "|{\"items\":[{\"sku\":\"p\",\"qty\":2}],\"attrs\":{\"c\":\"red\"}}"
                + "|[{\"k\":{\"x\":0.5}},{}]",
            "2|null|null|null|null|null|null|null|null|null|+300000-01-01|null|null|null|null"
                + "|null|null|null");
    assertThat(rows(bronze().selectExpr("_rescued_data").where("id = 2")))
        .containsExactly(
            "{\"a\":[1,\"two\"],\"m\":{\"a\":1.5},\"ts\":\"300000-01-01T00:00:00Z\","
                + "\"dec\":1e300000000,\"_file_path\":\""
                + dir.resolve("landing/types.json").toUri().toString().replace("file:///", "file:/")
                + "\"}");
  }

  @Test
  void keepsInvalidUtf8AndNonJsonWhiteSpaceAsCorruptRecords() throws IOException {
    byte[] latin1 = "{\"id\":1,\"caf\u00e9\":1}".getBytes(StandardCharsets.ISO_8859_1);
    byte[] content =
        concat(
            latin1,
            "\n\u000B\n \t\r\n\u2028\n{\"id\":2,\"_file_path\":\"x\"}\n"
                .getBytes(StandardCharsets.UTF_8));
    land("bytes.json", content);

    BronzeResult result = ingest(config("id INT"));

    assertThat(result.rows()).isEqualTo(4);
    assertThat(result.corruptRows()).isEqualTo(3);
    assertThat(
            rows(
                bronze()
                    .selectExpr("id", "_corrupt_record", "_corrupt_record_base64")
                    .orderBy("_corrupt_record")))
        .containsExactlyInAnyOrder(
            "2|null|null",
            "null|\u000B|null",
            "null|\u2028|null",
            "null|{\"id\":1,\"caf\uFFFD\":1}|"
                + java.util.Base64.getEncoder().encodeToString(latin1));
    assertThat(rows(bronze().selectExpr("_rescued_data").where("id = 2")))
        .allMatch(r -> r.startsWith("{\"_file_path#2\":\"x\",\"_file_path\":\"file:"));
  }

  @Test
  void ingestsAFileThatLandsLateWithAnOldModificationTime() throws IOException {
    PipelineConfig config = config("id INT");
    land("new.json", "{\"id\":1}");
    assertThat(ingest(config).rows()).isEqualTo(1);

    // Copied with its mtime kept (cp -p, rsync -t): 30 days older than the newest file seen.
    land("old-export.json", "{\"id\":2}");
    Files.setLastModifiedTime(
        dir.resolve("landing/old-export.json"),
        FileTime.from(Instant.now().minus(30, ChronoUnit.DAYS)));

    BronzeResult late = ingest(config);

    assertThat(late.files()).isEqualTo(1);
    assertThat(rows(bronze().selectExpr("id", "source_file_name").orderBy("id")))
        .containsExactly("1|new.json", "2|old-export.json");
  }

  static byte[] gzip(String text) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream gz = new java.util.zip.GZIPOutputStream(bytes)) {
      gz.write(text.getBytes(StandardCharsets.UTF_8));
    }
    return bytes.toByteArray();
  }

  @Test
  void skipsAndRecordsFilesThatCannotBeReadUntilSomeoneDecides() throws IOException {
    PipelineConfig config = config("id INT");
    StringBuilder many = new StringBuilder();
    for (int i = 100; i < 2100; i++) {
      many.append("{\"id\":").append(i).append("}\n");
    }
    byte[] whole = gzip(many.toString());
    land("a-good.json", "{\"id\":1}");
    land("b-truncated.json.gz", java.util.Arrays.copyOf(whole, whole.length / 2));
    land("c-native.json.zst", "{\"id\":3}\n".getBytes(StandardCharsets.UTF_8));
    land("d-good.json", "{\"id\":4}");

    BronzeResult result = ingest(config);

    String truncated = dir.resolve("landing/b-truncated.json.gz").toUri().toString();
    String zst = dir.resolve("landing/c-native.json.zst").toUri().toString();
    assertThat(result.unreadableFiles()).containsExactlyInAnyOrder(truncated, zst);
    assertThat(result.summary()).contains("2 files could not be read: ");
    assertThat(rows(bronze().selectExpr("id").where("id < 100").orderBy("id")))
        .containsExactly("1", "4");
    // Lines read before the truncation are kept (source_file names the file).
    long partial = bronze().where("id >= 100").count();
    assertThat(partial).isBetween(1L, 1999L);
    BadFiles badFiles = new BadFiles(config, spark);
    assertThat(
            rows(
                badFiles
                    .unresolved()
                    .selectExpr(
                        "replace(path, '" + dir.toUri() + "', '')",
                        "size",
                        "error_class",
                        "status")))
        .containsExactly(
            "landing/b-truncated.json.gz|" + whole.length / 2 + "|java.io.EOFException|open",
            "landing/c-native.json.zst|9|java.lang.RuntimeException|open");
    assertThat(badFiles.open()).hasSize(2);

    // Nothing new: the run passes without touching them again; they stay open.
    assertThat(ingest(config).unreadableFiles()).isEmpty();
    assertThat(badFiles.open()).hasSize(2);

    // The sender re-delivers the gzip whole; someone asks for a retry, and dismisses the other.
    String recordedGz =
        badFiles.open().keySet().stream().filter(p -> p.endsWith(".gz")).findFirst().orElseThrow();
    String recordedZst =
        badFiles.open().keySet().stream().filter(p -> p.endsWith(".zst")).findFirst().orElseThrow();
    land("b-truncated.json.gz", whole);
    badFiles.decide(List.of(recordedGz), "retry", "ann", "re-delivered whole");
    badFiles.decide(List.of(recordedZst), "dismiss", "bob", "test file, no data");

    BronzeResult retry = ingest(config);

    assertThat(retry.retriedFiles()).isEqualTo(1);
    assertThat(bronze().where("id >= 100").count()).isEqualTo(partial + 2000);
    assertThat(bronze().where("id >= 100").select("id").distinct().count()).isEqualTo(2000);
    assertThat(badFiles.open()).isEmpty();
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(badFiles.path())
                    .selectExpr("status", "decided_by", "decided_reason")
                    .orderBy("status")))
        .containsExactly("dismissed|bob|test file, no data", "retried|ann|re-delivered whole");
  }

  @Test
  void theFilesABatchReadAreCountedAnEmptyOneToo() throws IOException {
    PipelineConfig config = config("id INT");
    land("a.json", "{\"id\":1}", "{\"id\":2}");
    land("b-empty.json", new byte[0]);
    land("c.json", "{\"id\":3}");

    BronzeResult first = ingest(config);

    // Counted where the batch's files are known, not from the rows: the empty file was read
    // (and is recorded as ingested) though it gave no row.
    assertThat(first.files()).isEqualTo(3);
    assertThat(first.rows()).isEqualTo(3);
    assertThat(first.summary()).contains("3 file(s), 3 row(s)");
    assertThat(
            rows(
                FileStateView.files(spark, config, FileStateView.Filter.ALL)
                    .orElseThrow()
                    .selectExpr("regexp_extract(path, '[^/]+$', 0)", "status", "rows")
                    .orderBy("path")))
        .containsExactly("a.json|ingested|2", "b-empty.json|ingested|0", "c.json|ingested|1");

    land("d.json", "{\"id\":4}");
    BronzeResult second = ingest(config);
    assertThat(second.files()).isEqualTo(1);
    assertThat(second.rows()).isEqualTo(1);
  }

  /** A JSON line of exactly {@code bytes} bytes: {"id":ID,"s":"xx..."}. */
  static String lineOf(int id, int bytes) {
    String head = "{\"id\":" + id + ",\"s\":\"";
    return head + "x".repeat(bytes - head.length() - 2) + "\"}";
  }

  @Test
  void aFileWithALineOverMaxLineBytesIsRecordedAsABadFileAndSkippedWhole() throws IOException {
    PipelineConfig config = config("id INT, s STRING", "maxLineBytes: 1k");
    land("a-good.json", "{\"id\":1}", lineOf(2, 1024));
    land("b-long.json", "{\"id\":10}", lineOf(11, 1025), "{\"id\":12}");
    land("c-good.json", "{\"id\":3}");

    BronzeResult result = ingest(config);

    String longFile = dir.resolve("landing/b-long.json").toUri().toString();
    assertThat(result.unreadableFiles()).containsExactly(longFile);
    assertThat(result.rows()).isEqualTo(3);
    assertThat(result.files()).isEqualTo(2);
    assertThat(result.corruptRows()).isZero();
    assertThat(result.summary())
        .contains(
            "2 file(s), 3 row(s)",
            "1 file could not be read: " + longFile + " (skipped and recorded");
    // The line at the limit is ingested whole; nothing of the file with the long line is.
    assertThat(rows(bronze().selectExpr("id", "length(s)", "source_file_name").orderBy("id")))
        .containsExactly("1|null|a-good.json", "2|1009|a-good.json", "3|null|c-good.json");
    BadFiles badFiles = new BadFiles(config, spark);
    assertThat(
            rows(
                badFiles
                    .unresolved()
                    .selectExpr("path", "size", "error_class", "error_message", "status")))
        .containsExactly(
            longFile
                + "|"
                + Files.size(dir.resolve("landing/b-long.json"))
                + "|io.replaysafe.bronze.LineTooLongException|Cannot read "
                + longFile
                + ": line 2 (at byte 10) is 1026 bytes long with its line break, more than"
                + " source.maxLineBytes (1024 bytes). Bronze reads no line over that limit, since"
                + " it holds a line in memory several times over, and it never truncates one: it"
                + " skips the whole file and records it in the bad files. To ingest the file,"
                + " raise source.maxLineBytes in the pipeline file (and the heap with it; see the"
                + " README, Big lines), then run 'replaysafe bad-files retry --paths "
                + longFile
                + " --by WHO --reason WHY'.|open");

    // Nothing new: the next run neither fails nor records it again.
    BronzeResult again = ingest(config);
    assertThat(again.unreadableFiles()).isEmpty();
    assertThat(again.rows()).isZero();

    // The limit raised, a retry reads the file once, whole.
    PipelineConfig raised = config("id INT, s STRING", "maxLineBytes: 2k");
    badFiles.decide(List.of(longFile), "retry", "ann", "limit raised to 2k");
    BronzeResult retry = ingest(raised);
    assertThat(retry.retriedFiles()).isEqualTo(1);
    assertThat(rows(bronze().selectExpr("id", "length(s)").where("id >= 10").orderBy("id")))
        .containsExactly("10|null", "11|1009", "12|null");
    assertThat(badFiles.open()).isEmpty();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
