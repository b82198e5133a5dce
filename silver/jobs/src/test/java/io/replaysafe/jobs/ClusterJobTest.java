package io.replaysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.PipelineYaml;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster jobs in-process: exit codes, the one line on stdout, and the tables they write. */
class ClusterJobTest extends SparkTestBase {
  @TempDir Path dir;

  record Run(int exitCode, String out, String err) {}

  static Run run(ClusterJob job, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ClusterJob.Ending ending =
        job.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        ending.exitCode(),
        out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8));
  }

  /** An orders pipeline on local disk; silver keys order_id, sequence source_version. */
  String pipeline() {
    return PipelineYaml.local(
        "orders",
        dir,
        "order_id BIGINT, source_version BIGINT, status STRING",
        "keys: [order_id]\nsequenceBy: [source_version]\n");
  }

  void land(String name, String... lines) throws IOException {
    Files.createDirectories(dir.resolve("landing"));
    Files.writeString(dir.resolve("landing").resolve(name), String.join("\n", lines) + "\n");
  }

  Path pipelineFile() throws IOException {
    return Files.writeString(dir.resolve("orders.yaml"), pipeline());
  }

  @Test
  void bronzeThenSilverFromALocalFile() throws IOException {
    land(
        "a.json",
        "{\"order_id\":1,\"source_version\":1,\"status\":\"Created\"}",
        "{\"order_id\":1,\"source_version\":2,\"status\":\"Shipped\"}",
        "{\"order_id\":2,\"source_version\":1,\"status\":\"Created\",\"coupon\":\"X\"}");
    String file = pipelineFile().toString();

    Run bronze = run(ClusterJob.BRONZE, "--config", file);
    assertThat(bronze.exitCode()).as(bronze.err()).isZero();
    assertThat(bronze.out().lines().toList())
        .singleElement()
        .asString()
        .startsWith(
            "bronze orders: 1 file(s), 3 row(s) (1 with rescued data, 0 corrupt) in 1 batch(es);"
                + " bronze table version 1;");

    Run silver = run(ClusterJob.SILVER, "--config", file);
    assertThat(silver.exitCode()).as(silver.err()).isZero();
    assertThat(silver.out().lines().toList())
        .singleElement()
        .asString()
        .startsWith(
            "silver orders: 1 batch(es), 3 row(s) in; 0 invalid, 0 exact retries collapsed, 0"
                + " older version(s) ignored, 0 conflict(s) (0 in batch, 0 with target), 0"
                + " quarantined; inserted 2, updated 0, deleted 0; silver table version 1; ");
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(dir.resolve("silver").toString())
                    .select("order_id", "source_version", "status")
                    .orderBy("order_id")))
        .containsExactly("1|2|Shipped", "2|1|Created");
  }

  @Test
  void jsonAndAHadoopUriAndAnInlineFile() throws IOException {
    land("a.json", "{\"order_id\":7,\"source_version\":1,\"status\":\"Created\"}");
    // file: goes through the session's Hadoop file system, as dbfs:/ and s3a:// do on a cluster.
    Run bronze = run(ClusterJob.BRONZE, "--config", pipelineFile().toUri().toString(), "--json");
    assertThat(bronze.exitCode()).as(bronze.err()).isZero();
    assertThat(bronze.out())
        .startsWith(
            "{\"layer\":\"bronze\",\"pipeline\":\"orders\",\"status\":\"ok\",\"batches\":1,"
                + "\"files\":1,\"rows\":1,\"rescuedRows\":0,\"corruptRows\":0,\"bronzeVersion\":1,"
                + "\"seconds\":")
        .hasLineCount(1);

    Run silver = run(ClusterJob.SILVER, "--config-inline", pipeline(), "--json");
    assertThat(silver.exitCode()).as(silver.err()).isZero();
    assertThat(silver.out())
        .startsWith(
            "{\"layer\":\"silver\",\"pipeline\":\"orders\",\"status\":\"ok\",\"batches\":1,"
                + "\"inputRows\":1,")
        .contains("\"inserted\":1,")
        .hasLineCount(1);
  }

  @Test
  void aMissingFileIsAConfigurationError() {
    String missing = dir.resolve("nope.yaml").toString();
    Run run = run(ClusterJob.BRONZE, "--config", missing);
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out())
        .isEqualTo(
            "bronze "
                + missing
                + ": FAILED: Cannot read pipeline file "
                + missing
                + ": it does not exist; check the --config path\n");
    assertThat(run.err())
        .isEqualTo(
            "replaysafe bronze: Cannot read pipeline file "
                + missing
                + ": it does not exist; check the --config path\n");

    Run throughHadoop = run(ClusterJob.SILVER, "--config", "file:" + missing, "--json");
    assertThat(throughHadoop.exitCode()).isEqualTo(2);
    assertThat(throughHadoop.out())
        .isEqualTo(
            "{\"layer\":\"silver\",\"pipeline\":\"file:"
                + missing
                + "\",\"status\":\"failed\",\"exitCode\":2,\"kind\":\"config\",\"error\":\"Cannot read pipeline file"
                + " file:"
                + missing
                + ": it does not exist; check the --config path\"}\n");
  }

  @Test
  void anUnknownSchemeIsAConfigurationError() {
    Run run = run(ClusterJob.BRONZE, "--config", "nosuchfs://bucket/orders.yaml");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out())
        .startsWith(
            "bronze nosuchfs://bucket/orders.yaml: FAILED: Cannot read pipeline file"
                + " nosuchfs://bucket/orders.yaml: this cluster has no file system for"
                + " 'nosuchfs:' (");
  }

  @Test
  void badArgumentsAreAUsageErrorWithNothingOnStdout() {
    Run run = run(ClusterJob.SILVER, "--confg", "x");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .isEqualTo(
            "replaysafe silver: Cannot start the silver job: Unknown options: '--confg', 'x'."
                + " Usage: silver (--config PATH | --config-inline YAML) [--json]\n");
  }

  @Test
  void aRejectedBatchExitsWithOneAndSaysWhyOnOneLine() throws IOException {
    land(
        "conflict.json",
        "{\"order_id\":5,\"source_version\":2,\"status\":\"Shipped\"}",
        "{\"order_id\":5,\"source_version\":2,\"status\":\"Cancelled\"}");
    String file = pipelineFile().toString();
    assertThat(run(ClusterJob.BRONZE, "--config", file).exitCode()).isZero();

    Run silver = run(ClusterJob.SILVER, "--config", file);
    assertThat(silver.exitCode()).isEqualTo(1);
    assertThat(silver.out())
        .isEqualTo(
            "silver orders: FAILED: Cannot merge batch 0 into silver "
                + dir.resolve("silver")
                + ": onConflict is fail and the same key and sequence carry different payloads."
                + " Nothing was written and the silver checkpoint did not advance; correct the"
                + " producer's data (or set onConflict: quarantine) and run again.\n");
    assertThat(silver.err())
        .startsWith("replaysafe silver: Cannot merge batch 0 into silver ")
        .contains("key 5 sequence 2 has 2 different payloads in batch 0 (hashes ");
  }
}
