package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.s3.S3Clients;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/** {@code init} and {@code plan} over s3a against the embedded endpoint: reads only. */
class InitAndPlanS3Test extends SparkTestBase {
  private static EmbeddedS3Server server;
  private static S3Client s3;

  @TempDir Path dir;

  @BeforeAll
  static void startEndpoint() {
    server = EmbeddedS3Server.start(0, List.of("fh-landing", "fh-lake"));
    server.credentials().installAsSystemProperties();
    s3 = S3Clients.create(StorageConfig.of(server.endpoint().toString(), "us-east-1", true));
  }

  @AfterAll
  static void stopEndpoint() {
    server.close();
  }

  @Test
  void initAndPlanReadTheBucketAndCreateNothingInIt() throws Exception {
    put(
        "orders/2026/11/30/a.json",
        "{\"order_id\":1,\"source_version\":1,\"status\":\"new\"}\n"
            + "{\"order_id\":1,\"source_version\":2,\"status\":\"paid\",\"coupon\":\"X\"}\n");
    put(
        "orders/2026/11/30/b.json",
        "{\"order_id\":2,\"source_version\":1,\"status\":\"new\"}\n{\"order_id\":2\n");
    Map<String, String> before = objects();
    Path out = dir.resolve("orders.yaml");

    CliRunner.Outcome init =
        CliRunner.run(
            "init",
            "--source",
            "s3a://fh-landing/orders",
            "--endpoint",
            server.endpoint().toString(),
            "--lake",
            "s3a://fh-lake/tables",
            "--out",
            out.toString());

    assertThat(init.exitCode()).as(init.err()).isEqualTo(0);
    String yaml = Files.readString(out);
    assertThat(yaml)
        .contains(
            "storage:\n  endpoint: "
                + server.endpoint()
                + "\n  region: us-east-1\n  pathStyleAccess: true\n",
            "  schema: >-\n    coupon STRING,\n    order_id BIGINT,\n    source_version BIGINT,\n    status STRING\n",
            "bronze:\n  path: s3a://fh-lake/tables/bronze/orders\n",
            "  #   [order_id]  repeats (2 distinct values in 3 rows) and is unique together with"
                + " sequence source_version: one row per version\n");
    assertThat(objects()).isEqualTo(before);

    Path chosen = dir.resolve("chosen.yaml");
    Files.writeString(
        chosen,
        yaml.replace("  keys: []", "  keys: [order_id]")
            .replace("  sequenceBy: []", "  sequenceBy: [source_version]"));
    CliRunner.Outcome plan = CliRunner.run("plan", "--config", chosen.toString());

    assertThat(plan.exitCode()).as(plan.err()).isEqualTo(3);
    assertThat(plan.out())
        .contains(
            "bronze would ingest next: 2 file(s), ",
            "sample: 2 file(s), 4 row(s) parsed as bronze parses them\n"
                + "  rows with rescued data: 0\n",
            "  corrupt rows: 1\n      row hash ",
            " in s3a://fh-landing/orders/2026/11/30/b.json\n",
            "  invalid rows: 1 (onInvalid: fail)\n    INVALID_CORRUPT_RECORD: 1 row(s)\n")
        .endsWith(
            "plan orders: bronze would keep 1 corrupt row(s); silver would reject the batch for 1"
                + " invalid row(s) (exit 3)\n")
        // The corrupt line's payload stays out of the report (evidence.showValues is off).
        .doesNotContain("{\"order_id\":2");
    assertThat(objects()).isEqualTo(before);
  }

  private static void put(String key, String content) {
    s3.putObject(
        b -> b.bucket("fh-landing").key(key),
        RequestBody.fromString(content, StandardCharsets.UTF_8));
  }

  /** Every object in both buckets with its size. */
  private static Map<String, String> objects() {
    Map<String, String> all = new TreeMap<>();
    for (String bucket : List.of("fh-landing", "fh-lake")) {
      for (S3Object o :
          s3.listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream().toList()) {
        all.put(bucket + "/" + o.key(), o.size() + "@" + o.lastModified());
      }
    }
    return all;
  }
}
