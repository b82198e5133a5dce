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
    return ConfigLoader.parse(
        "test",
        "name: input\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \""
            + schema
            + "\"\nbronze:\n  path: "
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

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
