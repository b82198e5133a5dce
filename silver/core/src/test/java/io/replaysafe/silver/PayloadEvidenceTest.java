package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.config.EvidenceConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rejection report (stderr, {@code --json}, the run log, {@code status}) names rows by key,
 * sequence, file and hash; payload values, a corrupt line included, only with {@code
 * evidence.showValues: true}, cut to a short prefix. The quarantine table keeps raw payloads.
 */
class PayloadEvidenceTest extends SparkTestBase {
  static final String MARKER = "Ada-Lovelace-1815";

  @TempDir Path dir;

  private String deliverInvalidAndCorrupt(SilverHarness p) {
    return p.deliver(
        order(1, 1, "Created"),
        "{\"order_id\":null,\"source_version\":1,\"status\":\"" + MARKER + "\"}",
        "not json " + MARKER + " " + "x".repeat(300));
  }

  @Test
  void byDefaultTheReportAndTheRunLogCarryHashesNotValues() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    String file = "file:" + dir.resolve("landing").resolve(deliverInvalidAndCorrupt(p));
    String nullKeyRow =
        "{\"order_id\":null,\"source_version\":1,\"status\":\""
            + MARKER
            + "\",\"op\":null,\"_rescued_data\":null,\"_corrupt_record\":null}";

    assertThatThrownBy(p::run)
        .isInstanceOf(BatchRejectedException.class)
        .hasMessageContaining(
            "\n  INVALID_NULL_KEY: key column 'order_id' is null (missing or not convertible) in "
                + file
                + " ("
                + EvidenceConfig.DEFAULT.show(nullKeyRow)
                + ")")
        .hasMessageContaining(
            "\n  INVALID_CORRUPT_RECORD: the line is not a JSON object in " + file)
        .hasMessageNotContaining(MARKER)
        .hasMessageNotContaining("not json");
    assertThat(rows(p.runs().select("message"))).noneMatch(m -> m.contains(MARKER)).hasSize(1);
  }

  @Test
  void withShowValuesTheReportShowsAShortPrefixOfEachRow() {
    SilverHarness p = SilverHarness.orders(spark, dir, "").showingValues();
    deliverInvalidAndCorrupt(p);

    assertThatThrownBy(p::run)
        .isInstanceOf(BatchRejectedException.class)
        .hasMessageContaining("\"status\":\"" + MARKER + "\"")
        .hasMessageContaining("\"_corrupt_record\":\"not json " + MARKER + " " + "x".repeat(50))
        .hasMessageNotContaining("x".repeat(300));
  }

  private static String sha256(String text) throws Exception {
    return java.util.HexFormat.of()
        .formatHex(
            java.security.MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  @Test
  void showIsAHashByDefaultAndAPrefixOnRequest() throws Exception {
    String line = "y".repeat(250);
    assertThat(EvidenceConfig.DEFAULT.show(line))
        .isEqualTo("row hash " + sha256(line).substring(0, 12));
    assertThat(new EvidenceConfig(true).show(line))
        .isEqualTo("row hash " + sha256(line).substring(0, 12) + ": " + "y".repeat(200) + "...");
    assertThat(new EvidenceConfig(true).show("short")).endsWith(": short");
  }
}
