package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.S3LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running pipeline on the embedded S3 endpoint gets a new column and a widened type between two
 * scheduled {@code replaysafe run}s: bronze keeps its checkpoint, silver its stored rows, old
 * replays stay exact retries and a change only in the new column is quarantined.
 */
class ContractEvolutionS3Test extends SparkTestBase {
  private static EmbeddedS3Server server;
  private static S3LandingZone landing;

  @TempDir Path dir;

  @BeforeAll
  static void startEndpoint() {
    server = EmbeddedS3Server.start(0, List.of("evo-landing", "evo-lake"));
    server.credentials().installAsSystemProperties();
    landing =
        new S3LandingZone(
            StorageConfig.of(server.endpoint().toString(), "us-east-1", true),
            "evo-landing",
            "orders");
  }

  @AfterAll
  static void stopEndpoint() {
    server.close();
  }

  Path pipeline(String schema) throws Exception {
    Path file = dir.resolve("orders.yaml");
    Files.writeString(
        file,
        "name: orders\nstorage:\n  endpoint: "
            + server.endpoint()
            + "\n  region: us-east-1\n  pathStyleAccess: true\n"
            + "source:\n  path: s3a://evo-landing/orders/\n  schema: \""
            + schema
            + "\"\nbronze:\n  path: s3a://evo-lake/bronze/orders\n"
            + "  checkpoint: s3a://evo-lake/_checkpoints/bronze/orders\n"
            + "silver:\n  path: s3a://evo-lake/silver/orders\n"
            + "  checkpoint: s3a://evo-lake/_checkpoints/silver/orders\n"
            + "  keys: [order_id]\n  sequenceBy: [source_version]\n"
            + "  applyAsDeletes: \"op = 'DELETE'\"\n  exceptColumnList: [op]\n"
            + "  onConflict: quarantine\n");
    return file;
  }

  static void land(String name, String... lines) {
    landing.put(name, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
  }

  static Dataset<Row> table(String path) {
    return spark.read().format("delta").load(path);
  }

  @Test
  void addingAColumnAndWideningATypeThroughRunKeepsEveryLayerRowByRow() throws Exception {
    Path v1 = pipeline("order_id BIGINT, source_version BIGINT, status STRING, op STRING, qty INT");
    land(
        "1.json",
        "{\"order_id\":1,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"qty\":2}",
        "{\"order_id\":2,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"qty\":5,"
            + "\"coupon\":\"EARLY\"}");
    CliRunner.Outcome first = CliRunner.run("run", "--config", v1.toString());
    assertThat(first.exitCode()).as(first.err()).isZero();

    Path v2 =
        pipeline(
            "order_id BIGINT, source_version BIGINT, status STRING, op STRING, qty BIGINT,"
                + " coupon STRING");
    land(
        "2.json",
        // An exact replay of a stored event: no conflict.
        "{\"order_id\":1,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"qty\":2}",
        // A newer version with the new column and a quantity INT could not hold: an update.
        "{\"order_id\":2,\"source_version\":2,\"status\":\"Paid\",\"op\":\"UPSERT\","
            + "\"qty\":3000000000,\"coupon\":\"X\"}",
        // A new key with the coupon, and a conflicting copy differing only in the coupon.
        "{\"order_id\":3,\"source_version\":1,\"status\":\"New\",\"op\":\"UPSERT\",\"qty\":1,"
            + "\"coupon\":\"A\"}");
    CliRunner.Outcome second = CliRunner.run("run", "--config", v2.toString());
    assertThat(second.exitCode()).as(second.err()).isZero();
    assertThat(second.out())
        .startsWith("run orders: ok | bronze orders: 1 file(s), 3 row(s)")
        .contains("1 exact retry");

    land(
        "3.json",
        "{\"order_id\":3,\"source_version\":1,\"status\":\"New\",\"op\":\"UPSERT\",\"qty\":1,"
            + "\"coupon\":\"B\"}");
    CliRunner.Outcome third = CliRunner.run("run", "--config", v2.toString());
    assertThat(third.exitCode()).as(third.err()).isZero();

    String f1 = "s3a://evo-landing/orders/1.json";
    assertThat(
            rows(
                table("s3a://evo-lake/bronze/orders")
                    .selectExpr(
                        "source_file_name",
                        "order_id",
                        "source_version",
                        "status",
                        "qty",
                        "coupon",
                        "_rescued_data")
                    .orderBy("source_file_name", "order_id", "source_version")))
        .containsExactly(
            "1.json|1|1|Created|2|null|null",
            "1.json|2|1|Created|5|null|{\"coupon\":\"EARLY\",\"_file_path\":\"" + f1 + "\"}",
            "2.json|1|1|Created|2|null|null",
            "2.json|2|2|Paid|3000000000|X|null",
            "2.json|3|1|New|1|A|null",
            "3.json|3|1|New|1|B|null");
    assertThat(
            rows(
                table("s3a://evo-lake/silver/orders")
                    .selectExpr("order_id", "source_version", "status", "qty", "coupon")
                    .orderBy("order_id")))
        .containsExactly("1|1|Created|2|null", "2|2|Paid|3000000000|X", "3|1|New|1|A");
    assertThat(
            rows(
                table("s3a://evo-lake/silver/orders_quarantine")
                    .selectExpr(
                        "reason",
                        "key",
                        "sequence",
                        "get_json_object(raw_payload, '$.coupon')",
                        "source_file",
                        "status")))
        .containsExactly(
            "CONFLICT_WITH_TARGET|{\"order_id\":3}|{\"source_version\":1}|B|"
                + "s3a://evo-landing/orders/3.json|OPEN");
    assertThat(
            rows(
                table("s3a://evo-lake/silver/orders_runs")
                    .selectExpr("batch_id", "exact_retries", "updated", "inserted", "quarantined")
                    .orderBy("batch_id")))
        .containsExactly("0|0|0|2|0", "1|1|1|1|0", "2|0|0|0|1");

    CliRunner.Outcome status = CliRunner.run("status", "--config", v2.toString());
    assertThat(status.out())
        .contains("contract history:")
        .contains("version 2 (")
        .contains(
            "source column 'qty' widened from INT to BIGINT; source column 'coupon' added (STRING);"
                + " payload column 'coupon' added; silver column 'coupon' added");
  }
}
