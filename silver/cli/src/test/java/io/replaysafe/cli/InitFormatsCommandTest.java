package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.CsvOptions;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replaysafe init} on CSV, tab-separated, Parquet and Avro samples: the format comes from
 * the files' names (or {@code --format}), the schema from Spark's inference in that format, and the
 * drafted file, once keys and sequence are chosen, runs as drafted.
 */
class InitFormatsCommandTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void csvSampleDraftsACsvSourceWhoseFileRunsAsDrafted() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing/orders"));
    Files.writeString(
        landing.resolve("a.csv"),
        "order_id,version,status,amount\n1,1,new,10.5\n2,1,new,3\n1,2,paid,10.5\n");
    Files.writeString(
        landing.resolve("b.csv"), "order_id,version,status,amount\n2,2,\"paid, late\",3\n");
    Path out = dir.resolve("orders.yaml");
    Path lake = dir.resolve("lake");

    CliRunner.Outcome init = init(landing, out, lake);

    assertThat(init.exitCode()).as(init.err()).isEqualTo(0);
    assertThat(init.out())
        .startsWith(
            "init orders: wrote " + out + " from 2 sample file(s), 4 row(s), 4 column(s); ");
    String yaml = Files.readString(out);
    assertThat(yaml).contains("  format: csv\n  options:\n    header: true", "    sep: ','");
    PipelineConfig drafted = chosen(yaml, "order_id", "version");
    // Spark's CSV inference, whole numbers widened to BIGINT as JSON inference drafts them.
    assertThat(drafted.source().schema().toDDL())
        .isEqualTo("order_id BIGINT,version BIGINT,status STRING,amount DOUBLE");
    assertThat(drafted.source().format()).isEqualTo("csv");

    Files.writeString(out, chosenYaml(yaml, "order_id", "version"));
    CliRunner.Outcome run = CliRunner.run("run", "--config", out.toString());
    assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
    assertThat(
            spark
                .read()
                .format("delta")
                .load(lake.resolve("silver/orders").toString())
                .select("order_id", "version", "status", "amount")
                .orderBy("order_id")
                .collectAsList())
        .containsExactly(
            RowFactory.create(1L, 2L, "paid", 10.5), RowFactory.create(2L, 2L, "paid, late", 3.0));
  }

  @Test
  void tabSeparatedSampleDraftsTheTabDelimiter() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing/tsv"));
    Files.writeString(landing.resolve("a.tsv"), "id\tname\n1\tx, y\n2\tz\n");
    Path out = dir.resolve("tsv.yaml");

    CliRunner.Outcome init = init(landing, out, dir.resolve("lake"));

    assertThat(init.exitCode()).as(init.err()).isEqualTo(0);
    String yaml = Files.readString(out);
    assertThat(yaml).contains("    sep: \"\\t\"");
    PipelineConfig drafted = chosen(yaml, "name", "id");
    assertThat(drafted.source().schema().toDDL()).isEqualTo("id BIGINT,name STRING");
    assertThat(CsvOptions.of(drafted.source().options().formatOptions()).sep()).isEqualTo("\t");
  }

  @Test
  void parquetAndAvroSamplesDraftTheFilesOwnSchema() throws Exception {
    StructType schema =
        new StructType()
            .add("id", "bigint")
            .add("version", "int")
            .add("status", "string")
            .add("tags", "array<string>");
    List<Row> rows =
        List.of(
            RowFactory.create(1L, 1, "new", List.of("a")),
            RowFactory.create(1L, 2, "paid", List.of()));
    for (String format : List.of("parquet", "avro")) {
      Path landing = dir.resolve("landing/" + format);
      Path written = dir.resolve("spark-" + format);
      spark
          .createDataFrame(rows, schema)
          .coalesce(1)
          .write()
          .format(format)
          .save(written.toString());
      Files.createDirectories(landing);
      try (var files = Files.list(written)) {
        for (Path f : files.filter(f -> f.toString().endsWith("." + format)).toList()) {
          Files.copy(f, landing.resolve("part." + format));
        }
      }
      Path out = dir.resolve(format + ".yaml");

      CliRunner.Outcome init = init(landing, out, dir.resolve("lake-" + format));

      assertThat(init.exitCode()).as(init.err()).isEqualTo(0);
      String yaml = Files.readString(out);
      assertThat(yaml).contains("  format: " + format + "\n");
      PipelineConfig drafted = chosen(yaml, "id", "version");
      // The files' own types: an INT stays INT, where CSV and JSON draft BIGINT.
      assertThat(drafted.source().schema().toDDL())
          .as(format)
          .isEqualTo("id BIGINT,version INT,status STRING,tags ARRAY<STRING>");
    }
  }

  @Test
  void aSampleInTwoFormatsIsRefusedNamingAFileOfEachAndFormatOverridesTheNames() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing/mixed"));
    Files.writeString(landing.resolve("a.csv"), "id,v\n1,2\n");
    Files.writeString(landing.resolve("b.json"), "{\"id\":1,\"v\":2}\n");
    Path out = dir.resolve("mixed.yaml");

    CliRunner.Outcome refused = init(landing, out, dir.resolve("lake"));

    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err())
        .isEqualTo(
            "replaysafe: Cannot draft a pipeline from "
                + landing
                + ": its newest files are in more than one format ("
                + "file:"
                + landing.resolve("a.csv")
                + " is csv, file:"
                + landing.resolve("b.json")
                + " is json), and a pipeline reads one. Point --source at one format's"
                + " directory, or pass --format to read every sampled file as one format.\n");
    assertThat(out).doesNotExist();

    // Files without a format's extension are JSON lines unless --format says otherwise.
    Path plain = Files.createDirectories(dir.resolve("landing/plain"));
    Files.writeString(plain.resolve("export-1"), "id;v\n1;2\n");
    CliRunner.Outcome csv =
        CliRunner.run(
            "init", "--source", plain.toString(), "--format", "csv", "--out", out.toString());
    assertThat(csv.exitCode()).as(csv.err()).isEqualTo(0);
    assertThat(Files.readString(out)).contains("  format: csv\n");

    CliRunner.Outcome bogus =
        CliRunner.run(
            "init",
            "--source",
            plain.toString(),
            "--format",
            "xml",
            "--out",
            dir.resolve("x.yaml").toString());
    assertThat(bogus.exitCode()).isEqualTo(2);
    assertThat(bogus.err())
        .isEqualTo(
            "replaysafe: --format 'xml' is not a format bronze reads: give json (JSON lines), csv,"
                + " parquet or avro.\n");
  }

  private static CliRunner.Outcome init(Path landing, Path out, Path lake) {
    return CliRunner.run(
        "init", "--source", landing.toString(), "--out", out.toString(), "--lake", lake.toString());
  }

  private static String chosenYaml(String yaml, String key, String sequence) {
    return yaml.replace("  keys: []", "  keys: [" + key + "]")
        .replace("  sequenceBy: []", "  sequenceBy: [" + sequence + "]");
  }

  private static PipelineConfig chosen(String yaml, String key, String sequence) {
    return ConfigLoader.parse("edited", chosenYaml(yaml, key, sequence));
  }
}
