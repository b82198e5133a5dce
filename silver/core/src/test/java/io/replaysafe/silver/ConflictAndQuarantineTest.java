package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Conflicts with the stored version (which the seeds leave undone), both policies, and quarantine.
 */
class ConflictAndQuarantineTest extends SparkTestBase {
  @TempDir Path dir;

  static String sha256(String text) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** The canonical payload of the orders contract: status and op, nulls kept. */
  static String hashOf(String status, String op) throws Exception {
    return sha256(
        "{\"status\":"
            + (status == null ? "null" : "\"" + status + "\"")
            + ",\"op\":\""
            + op
            + "\"}");
  }

  @Test
  void conflictWithTheStoredVersionRejectsTheBatchUnderFail() throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(101, 2, "Shipped"));
    p.run();
    String file = p.deliver(order(101, 2, "Returned"), order(102, 1, "Created"));

    String stored = hashOf("Shipped", "UPSERT").substring(0, 12);
    String incoming = hashOf("Returned", "UPSERT").substring(0, 12);
    assertThatThrownBy(p::run)
        .isInstanceOf(BatchRejectedException.class)
        .hasMessageContaining(
            "key 101 sequence 2 differs from the stored version at the same sequence (stored hash "
                + stored
                + ", incoming "
                + incoming
                + ")")
        .hasMessageContaining(
            "key 101 sequence 2 hash "
                + incoming
                + " in file:"
                + dir.resolve("landing").resolve(file))
        // Values stay out of the report by default (evidence.showValues).
        .hasMessageNotContaining("Returned");
    assertThat(p.silverRows()).containsExactly("101|2|Shipped");
  }

  @Test
  void conflictWithTheStoredVersionIsQuarantinedWithAReadableReport() throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "onConflict: quarantine\n");
    p.deliver(order(101, 2, "Shipped"));
    p.run();
    String file = p.deliver(order(101, 2, "Returned"), order(102, 1, "Created"));

    SilverResult result = p.run();

    assertThat(p.silverRows()).containsExactly("101|2|Shipped", "102|1|Created");
    assertThat(result.total(BatchReport::conflictsWithTarget)).isEqualTo(1);
    assertThat(result.total(BatchReport::quarantined)).isEqualTo(1);
    Row q = p.quarantine().first();
    String incoming = hashOf("Returned", "UPSERT");
    assertThat(q.<String>getAs("reason")).isEqualTo("CONFLICT_WITH_TARGET");
    assertThat(q.<String>getAs("message"))
        .isEqualTo(
            "key 101 sequence 2 differs from the stored version at the same sequence (stored hash "
                + hashOf("Shipped", "UPSERT").substring(0, 12)
                + ", incoming "
                + incoming.substring(0, 12)
                + ")");
    assertThat(q.<String>getAs("rule_version"))
        .isEqualTo(new SilverContract(p.config).ruleVersion())
        .startsWith("r");
    assertThat(q.<String>getAs("key")).isEqualTo("{\"order_id\":101}");
    assertThat(q.<String>getAs("raw_key")).isEqualTo("{\"order_id\":101}");
    assertThat(q.<String>getAs("sequence")).isEqualTo("{\"source_version\":2}");
    assertThat(q.<String>getAs("payload_hash")).isEqualTo(incoming);
    assertThat(q.<String>getAs("raw_payload"))
        .isEqualTo(
            "{\"order_id\":101,\"source_version\":2,\"status\":\"Returned\",\"op\":\"UPSERT\","
                + "\"_rescued_data\":null,\"_corrupt_record\":null}");
    assertThat(q.<String>getAs("source_file"))
        .isEqualTo("file:" + dir.resolve("landing").resolve(file));
    assertThat(q.<Long>getAs("bronze_version")).isEqualTo(2L);
    assertThat(q.<Long>getAs("silver_batch_id")).isEqualTo(1L);
    assertThat(q.<String>getAs("status")).isEqualTo("OPEN");
  }

  @ParameterizedTest
  @EnumSource(SilverHarness.Shape.class)
  void aConflictInTheBatchQuarantinesEveryRowOfThatKey(SilverHarness.Shape shape) throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "onConflict: quarantine\n", shape);
    p.deliver(
        order(101, 1, "Created"),
        order(101, 2, "Shipped"),
        order(101, 2, "Cancelled"),
        order(102, 1, "Created"));

    SilverResult result = p.run();

    assertThat(p.silverRows()).containsExactly("102|1|Created");
    assertThat(
            rows(
                p.quarantine()
                    .selectExpr(
                        "reason",
                        "sequence",
                        "get_json_object(raw_payload, '" + shape.rawField("status") + "')")
                    .orderBy("sequence", "raw_payload")))
        .containsExactly(
            "CONFLICT_IN_BATCH|{\"source_version\":1}|Created",
            "CONFLICT_IN_BATCH|{\"source_version\":2}|Cancelled",
            "CONFLICT_IN_BATCH|{\"source_version\":2}|Shipped");
    List<String> hashes =
        Stream.of(hashOf("Shipped", "UPSERT"), hashOf("Cancelled", "UPSERT"))
            .map(h -> h.substring(0, 12))
            .sorted()
            .toList();
    assertThat(rows(p.quarantine().select("message").distinct()))
        .containsExactly(
            "key 101 sequence 2 has 2 different payloads in batch 0 (hashes "
                + String.join(", ", hashes)
                + ")");
    assertThat(result.total(BatchReport::quarantined)).isEqualTo(3);
  }

  @Test
  void invalidRowsAreQuarantinedAndEveryInputRowIsAccountedFor() {
    SilverHarness p = SilverHarness.orders(spark, dir, "onInvalid: quarantine\n");
    p.deliver(
        order(101, 1, "Created"),
        order(101, 1, "Created"),
        "{\"order_id\":\"10x\",\"source_version\":1,\"status\":\"Created\"}",
        "{\"order_id\":103,\"source_version\":",
        order(104, 1, "Created"));

    SilverResult result = p.run();

    assertThat(p.silverRows()).containsExactly("101|1|Created", "104|1|Created");
    assertThat(rows(p.quarantine().select("reason", "raw_payload").orderBy("reason")))
        .containsExactly(
            "INVALID_CORRUPT_RECORD|{\"order_id\":null,\"source_version\":null,\"status\":null,\"op\":null,"
                + "\"_rescued_data\":null,\"_corrupt_record\":\"{\\\"order_id\\\":103,\\\"source_version\\\":\"}",
            "INVALID_NULL_KEY|{\"order_id\":null,\"source_version\":1,\"status\":\"Created\",\"op\":null,"
                + "\"_rescued_data\":\"{\\\"order_id\\\":\\\"10x\\\",\\\"_file_path\\\":\\\"file:"
                + dir.resolve("landing/delivery-001.json")
                + "\\\"}\",\"_corrupt_record\":null}");
    BatchReport b = result.batches().get(0);
    // 5 rows in: 2 invalid (quarantined), 1 exact retry collapsed, 2 keys inserted.
    assertThat(b.inputRows()).isEqualTo(5);
    assertThat(b.invalid()).isEqualTo(2);
    assertThat(b.quarantined()).isEqualTo(2);
    assertThat(b.exactRetries()).isEqualTo(1);
    assertThat(b.distinctKeys()).isEqualTo(2);
    assertThat(b.inserted()).isEqualTo(2);
    assertThat(List.of(b.updated(), b.deleted(), b.olderIgnored(), b.supersededInBatch()))
        .containsExactly(0L, 0L, 0L, 0L);
    assertThat(List.of(b.conflictsInBatch(), b.conflictsWithTarget())).containsExactly(0L, 0L);
  }
}
