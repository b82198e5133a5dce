package io.replaysafe.bronze;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SourceFormat;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 29 item 3: {@code source.format: csv}. Clean generated files are ingested by bronze and
 * compared with Spark's plain CSV reader of the same files; then files that do not fit show what is
 * rescued, what is kept as a corrupt record and what is a bad file, row by row.
 */
class CsvSourceTest extends SparkTestBase {
  @TempDir Path dir;

  static final String SCHEMA =
      "id BIGINT, n INT, d DOUBLE, dec DECIMAL(10,2), s STRING, b BOOLEAN, dt DATE, ts TIMESTAMP";

  PipelineConfig config(String schema, String... options) {
    StringBuilder yaml =
        new StringBuilder("name: csv\nsource:\n  path: ")
            .append(dir.resolve("landing"))
            .append("\n  format: csv\n  schema: \"")
            .append(schema)
            .append("\"\n");
    if (options.length > 0) {
      yaml.append("  options:\n");
      for (String option : options) {
        yaml.append("    ").append(option).append('\n');
      }
    }
    yaml.append("bronze:\n  path: ")
        .append(dir.resolve("bronze"))
        .append("\n  checkpoint: ")
        .append(dir.resolve("checkpoint"))
        .append('\n');
    return ConfigLoader.parse("test", yaml.toString());
  }

  Path land(String name, byte[] bytes) throws IOException {
    Path file = dir.resolve("landing").resolve(name);
    Files.createDirectories(file.getParent());
    Files.write(file, bytes);
    return file;
  }

  Path land(String name, String text) throws IOException {
    return land(name, text.getBytes(StandardCharsets.UTF_8));
  }

  /** The file as Spark's _metadata.file_path names it, which _file_path and source_file carry. */
  static String uri(Path file) {
    return file.toUri().toString().replace("file:///", "file:/");
  }

  BronzeResult ingest(PipelineConfig config) {
    return BronzeIngest.from(config, spark).execute();
  }

  Dataset<Row> bronze() {
    return spark.read().format("delta").load(dir.resolve("bronze").toString());
  }

  /** Every declared column as text, by id. */
  static String[] shown(StructType schema) {
    return Arrays.stream(schema.fields())
        .map(f -> "cast(" + f.name() + " as string)")
        .toArray(String[]::new);
  }

  /** {@code rows} records of every type, nulls and quoting included, with a header line. */
  static String generated(Random random, long firstId, int rows) {
    StringBuilder csv = new StringBuilder("id,n,d,dec,s,b,dt,ts\n");
    for (long id = firstId; id < firstId + rows; id++) {
      boolean blank = random.nextInt(8) == 0; // one column in eight rows is empty
      int empty = blank ? 1 + random.nextInt(7) : -1;
      String[] values = {
        String.valueOf(id),
        String.valueOf(random.nextInt()),
        String.valueOf(random.nextInt(2) == 0 ? random.nextDouble() * 1e6 : -random.nextDouble()),
        BigDecimal.valueOf(random.nextLong() % 10_000_000_000L, 2).toPlainString(),
        switch (random.nextInt(7)) {
          case 0 -> "plain " + id;
          case 1 -> "\"with, a comma " + id + "\"";
          case 2 -> "\"a line\nbreak " + id + "\"";
          case 3 -> "\"say \\\"hi\\\" " + id + "\"";
          case 4 -> "\"\"";
          case 5 -> "caf\u00e9 " + id;
          default -> "\"  spaced  \"";
        },
        switch (random.nextInt(3)) {
          case 0 -> "true";
          case 1 -> "FALSE";
          default -> "false";
        },
        LocalDate.ofEpochDay(random.nextInt(40_000) - 5_000).toString(),
        LocalDate.ofEpochDay(random.nextInt(20_000))
            + " "
            + String.format(
                "%02d:%02d:%02d.%06d",
                random.nextInt(24),
                random.nextInt(60),
                random.nextInt(60),
                random.nextInt(1_000_000))
      };
      if (empty > 0) {
        values[empty] = "";
      }
      csv.append(String.join(",", values)).append('\n');
    }
    return csv.toString();
  }

  @Test
  void cleanFilesGiveSparksRowsWithNothingRescued() throws IOException {
    Random random = new Random(29);
    land("a.csv", generated(random, 0, 400));
    land("b.csv", generated(random, 400, 400));
    land("c/d.csv", generated(random, 800, 400));
    StructType schema = StructType.fromDDL(SCHEMA);

    BronzeResult result = ingest(config(SCHEMA));

    assertThat(result.rows()).isEqualTo(1200);
    assertThat(result.rescuedRows()).isZero();
    assertThat(result.corruptRows()).isZero();
    Dataset<Row> plain =
        spark
            .read()
            .option("header", "true")
            .option("multiLine", "true")
            .option("recursiveFileLookup", "true")
            .schema(schema)
            .csv(dir.resolve("landing").toString());
    List<String> expected = rows(plain.selectExpr(shown(schema)).orderBy("id"));
    assertThat(expected).hasSize(1200);
    assertThat(rows(bronze().selectExpr(shown(schema)).orderBy("id"))).isEqualTo(expected);
    // The generator's quoting, as both read it.
    assertThat(
            rows(
                bronze()
                    .where("s LIKE 'with, a comma%' OR s LIKE 'a line%' OR s LIKE 'say%'")
                    .selectExpr("s")
                    .orderBy("id")
                    .limit(3)))
        .allMatch(
            s ->
                s.startsWith("with, a comma ")
                    || s.startsWith("a line\nbreak ")
                    || s.startsWith("say \"hi\" "));
    assertThat(bronze().where("s = '  spaced  '").count()).isPositive();
    assertThat(bronze().where("s IS NULL").count())
        .isEqualTo(plain.where("s IS NULL").count())
        .isPositive();
    // Provenance as for JSON lines.
    assertThat(
            rows(
                bronze()
                    .selectExpr(
                        "_rescued_data",
                        "_corrupt_record",
                        "_corrupt_record_base64",
                        "source_file_name",
                        "ingested_at IS NOT NULL")
                    .distinct()
                    .orderBy("source_file_name")))
        .containsExactly(
            "null|null|null|a.csv|true", "null|null|null|b.csv|true", "null|null|null|d.csv|true");
    assertThat(rows(bronze().selectExpr("source_file").distinct().orderBy("source_file")))
        .isEqualTo(rows(plain.selectExpr("_metadata.file_path").distinct().orderBy("file_path")));
  }

  @Test
  void whatDoesNotFitIsRescuedWithItsTextAndMalformedRecordsAreKept() throws IOException {
    Path file =
        land(
            "m.csv",
            "id,amount,name,extra\n"
                + "1,12.50,ann,x\n"
                + "2,abc,bob,\n"
                + "3,1.005,\"c,d\",\n"
                + "4,5\n"
                + "5,1,e,f,g\n"
                + "6,\"1,5\",f,\n"
                + "7,,,\n");

    BronzeResult result =
        ingest(config("id BIGINT, amount DECIMAL(10,2), name STRING, missing STRING"));

    String path = uri(file);
    assertThat(result.rows()).isEqualTo(7);
    assertThat(result.rescuedRows()).isEqualTo(4);
    assertThat(result.corruptRows()).isEqualTo(2);
    assertThat(
            rows(
                bronze()
                    .selectExpr(
                        "id", "amount", "name", "missing", "_rescued_data", "_corrupt_record")
                    .orderBy(col("id").asc_nulls_last(), col("_corrupt_record"))))
        .containsExactly(
            "1|12.50|ann|null|{\"extra\":\"x\",\"_file_path\":\"" + path + "\"}|null",
            "2|null|bob|null|{\"amount\":\"abc\",\"_file_path\":\"" + path + "\"}|null",
            "3|null|c,d|null|{\"amount\":\"1.005\",\"_file_path\":\"" + path + "\"}|null",
            "6|null|f|null|{\"amount\":\"1,5\",\"_file_path\":\"" + path + "\"}|null",
            "7|null|null|null|null|null",
            "null|null|null|null|null|4,5",
            "null|null|null|null|null|5,1,e,f,g");
    assertThat(rows(bronze().selectExpr("_corrupt_record_base64").distinct()))
        .containsExactly("null");
  }

  @Test
  void headerNamesMatchExactlyAsJsonFieldsDo() throws IOException {
    Path file = land("h.csv", "Name,id,id,note\nann,1,2,\"q\\\"uote\"\n");

    ingest(config("id BIGINT, name STRING"));

    // Name matches only with another case, and of the repeated id the last is typed: both are
    // rescued as a JSON line's fields would be.
    assertThat(rows(bronze().selectExpr("id", "name", "_rescued_data")))
        .containsExactly(
            "2|null|{\"Name\":\"ann\",\"id\":\"1\",\"note\":\"q\\\"uote\",\"_file_path\":\""
                + uri(file)
                + "\"}");
    RescuingJsonParser json =
        new RescuingJsonParser(
            StructType.fromDDL("id BIGINT, name STRING"),
            io.replaysafe.common.config.SchemaEvolutionMode.RESCUE);
    assertThat(
            json.parse("{\"Name\":\"ann\",\"id\":\"1\",\"id\":2,\"note\":\"q\\\"uote\"}", uri(file))
                .rescued())
        .isEqualTo(rows(bronze().select("_rescued_data")).get(0));
  }

  @Test
  void anUnterminatedQuoteMakesTheLastRecordCorrupt() throws IOException {
    land("u.csv", "id,name\n1,ok\n2,\"open\n3,x\n");
    land("v.csv", "id,name\n4,\"closed\"\n5,\"open at the end");
    land("w.csv", "id,name\n6,\"a\\\"\"\n");

    ingest(config("id BIGINT, name STRING"));

    assertThat(
            rows(
                bronze()
                    .selectExpr("id", "name", "_corrupt_record")
                    .orderBy(col("id").asc_nulls_last(), col("_corrupt_record"))))
        .containsExactly(
            "1|ok|null",
            "4|closed|null",
            "6|a\"|null",
            "null|null|2,\"open\n3,x",
            "null|null|5,\"open at the end");
  }

  @Test
  void emptyHeaderOnlyBomCrlfAndGzipFiles() throws IOException {
    land("empty.csv", "");
    land("header-only.csv", "id,name\n");
    Path bom = land("bom.csv", "\uFEFFid,name\r\n1,\"two\r\nlines\"\r\n2,b\r\n");
    land("z.csv.gz", gzip("id,name\n3,zipped\n"));

    BronzeResult result = ingest(config("id BIGINT, name STRING"));

    assertThat(result.rows()).isEqualTo(3);
    assertThat(result.rescuedRows()).isZero();
    assertThat(result.corruptRows()).isZero();
    List<String> plain =
        rows(
            spark
                .read()
                .option("header", "true")
                .option("multiLine", "true")
                .schema("id BIGINT, name STRING")
                .csv(bom.toString())
                .orderBy("id"));
    // The line break inside quotes is normalised to \n, by Spark's reader as by bronze.
    assertThat(rows(bronze().selectExpr("id", "name", "source_file_name").orderBy("id")))
        .containsExactly("1|two\nlines|bom.csv", "2|b|bom.csv", "3|zipped|z.csv.gz");
    assertThat(plain).containsExactly("1|two\nlines", "2|b");
  }

  @Test
  void withoutAHeaderTheFieldsAreTheSchemasColumnsInOrder() throws IOException {
    land("p.txt", "1|a|2024-02-29\n2|b\n3|c|not a date\n");

    BronzeResult result =
        ingest(config("id BIGINT, name STRING, dt DATE", "header: false", "sep: \"|\""));

    assertThat(result.rows()).isEqualTo(3);
    assertThat(
            rows(
                bronze()
                    .selectExpr(
                        "id",
                        "name",
                        "cast(dt as string)",
                        "regexp_replace(_rescued_data, '\"_file_path\":\"[^\"]*\"', 'P')",
                        "_corrupt_record")
                    .orderBy(col("id").asc_nulls_last())))
        .containsExactly(
            "1|a|2024-02-29|null|null",
            "3|c|null|{\"dt\":\"not a date\",P}|null",
            "null|null|null|null|2|b");
  }

  @Test
  void aFileThatIsNotValidTextIsABadFileAndTheOthersAreIngested() throws IOException {
    land("a.csv", "id,name\n1,good\n");
    byte[] latin1 = "id,name\n2,caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1);
    Path bad = land("b.csv", latin1);
    PipelineConfig config = config("id BIGINT, name STRING");

    BronzeResult result = ingest(config);

    assertThat(result.unreadableFiles()).containsExactly(bad.toUri().toString());
    assertThat(rows(bronze().selectExpr("id", "name").orderBy("id"))).containsExactly("1|good");
    BadFiles badFiles = new BadFiles(config, spark);
    assertThat(rows(badFiles.unresolved().selectExpr("error_class", "error_message")))
        .singleElement()
        .satisfies(
            row ->
                assertThat(row)
                    .startsWith("java.io.IOException|")
                    .contains("b.csv is not valid UTF-8 text: ")
                    .contains("set source.options.encoding"));

    // Read as Latin-1, the same bytes are text.
    PipelineConfig latin = config("id BIGINT, name STRING", "encoding: ISO-8859-1");
    assertThat(
            rows(
                BronzeRows.rows(spark, latin.source(), List.of(bad.toUri().toString()))
                    .selectExpr("id", "name")))
        .containsExactly("2|caf\u00e9");
  }

  /**
   * A bad CSV file's whole life, each step a new job as a scheduler starts it: recorded, left alone
   * by runs after it, re-sent in the right encoding and retried, ingested exactly once.
   */
  @Test
  void aBadCsvFileIsRetriedAfterItIsResentAndIngestedExactlyOnceAcrossRestarts()
      throws IOException {
    PipelineConfig config = config("id BIGINT, name STRING");
    land("a.csv", "id,name\n1,good\n");
    Path bad = land("b.csv", "id,name\n2,caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));

    BronzeResult first = ingest(config);
    assertThat(first.unreadableFiles()).containsExactly(bad.toUri().toString());

    // Restarted with a new file: the new file alone is ingested; the bad one is not tried again.
    land("c.csv", "id,name\n3,later\n");
    BronzeResult second = ingest(config);
    assertThat(second.unreadableFiles()).isEmpty();
    assertThat(second.rows()).isEqualTo(1);
    assertThat(rows(bronze().selectExpr("id", "name").orderBy("id")))
        .containsExactly("1|good", "3|later");

    // The producer re-sends the file as UTF-8; an operator decides to retry it.
    land("b.csv", "id,name\n2,caf\u00e9\n");
    BadFiles badFiles = new BadFiles(config, spark);
    assertThat(badFiles.decide(List.of(bad.toUri().toString()), "retry", "ann", "re-sent"))
        .isEqualTo(1);
    BronzeResult retry = ingest(config);
    assertThat(retry.retriedFiles()).isEqualTo(1);
    assertThat(retry.unreadableFiles()).isEmpty();
    assertThat(rows(badFiles.unresolved().select("path"))).isEmpty();

    // Another restart with nothing new ingests nothing twice.
    BronzeResult idle = ingest(config);
    assertThat(idle.rows()).isZero();
    assertThat(rows(bronze().selectExpr("id", "name", "source_file_name").orderBy("id")))
        .containsExactly("1|good|a.csv", "2|caf\u00e9|b.csv", "3|later|c.csv");
  }

  @Test
  void failOnNewColumnsStopsAtAHeaderColumnTheSchemaDoesNotDeclare() throws IOException {
    Path file = land("n.csv", "id,name,fresh\n1,a,b\n");
    String yaml =
        "name: csv\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  format: csv\n  schema: \"id BIGINT, name STRING\"\n"
            + "  schemaEvolutionMode: failOnNewColumns\nbronze:\n  path: "
            + dir.resolve("bronze")
            + "\n  checkpoint: "
            + dir.resolve("checkpoint")
            + "\n";

    assertThatThrownBy(() -> ingest(ConfigLoader.parse("test", yaml)))
        .isInstanceOf(NewColumnException.class)
        .hasMessageStartingWith("New field 'fresh' in " + uri(file) + " is not declared");
  }

  @Test
  void thePlanSamplesCsvAsTheJobReadsIt() throws IOException {
    Path file = land("m.csv", "id,amount,extra\n1,x,y\n2,3,\n4\n");
    PipelineConfig config = config("id BIGINT, amount INT");

    SampleParse parse =
        SampleParse.summarize(
            SampleParse.bronzeRows(spark, config.source(), List.of(file.toUri().toString())),
            config.source(),
            1);

    assertThat(parse.rows()).isEqualTo(3);
    assertThat(parse.rescuedRows()).isEqualTo(1);
    assertThat(parse.rescuedByField().keySet()).containsExactly("amount", "extra");
    assertThat(parse.corruptRows()).isEqualTo(1);
  }

  @Test
  void initDraftsCsvWithSparksCsvInferenceWholeNumbersAsBigint() throws IOException {
    land(
        "a.csv",
        "id,amount,at,ok\n1,2.5,2026-11-30T10:00:00Z,true\n2,3,2026-11-30T10:00:01Z,false\n");
    SourceSample.Newest sample =
        SourceSample.newest(spark, dir.resolve("landing").toUri().toString(), 10, 1 << 20);

    SourceSample.SampleFormat format = SourceSample.formatOf(sample);
    SourceSample.DraftSchema drafted = SourceSample.draftSchema(spark, sample, format);

    assertThat(format.format()).isEqualTo(SourceFormat.CSV);
    StructType inferred =
        spark
            .read()
            .option("header", true)
            .option("inferSchema", true)
            .csv(sample.files().toArray(String[]::new))
            .schema();
    // Spark's own inference, but for the whole numbers: INT there, BIGINT in the draft.
    assertThat(inferred.toDDL()).isEqualTo("id INT,amount DOUBLE,at TIMESTAMP,ok BOOLEAN");
    assertThat(drafted.schema().toDDL())
        .isEqualTo("id BIGINT,amount DOUBLE,at TIMESTAMP,ok BOOLEAN");
  }

  static byte[] gzip(String text) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
      gz.write(text.getBytes(StandardCharsets.UTF_8));
    }
    return bytes.toByteArray();
  }
}
