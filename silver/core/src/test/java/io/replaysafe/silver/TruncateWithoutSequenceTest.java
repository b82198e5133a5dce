package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A truncate without a sequence is an invalid row, never a stored null watermark. */
class TruncateWithoutSequenceTest extends SparkTestBase {
  @TempDir Path dir;

  static final String NO_SEQUENCE = "{\"order_id\":null,\"status\":null,\"op\":\"TRUNCATE\"}";

  @Test
  void isQuarantinedAsInvalidAndLaterTruncatesStillWork() {
    SilverHarness p =
        SilverHarness.orders(
            spark, dir, "applyAsTruncates: \"op = 'TRUNCATE'\"\nonInvalid: quarantine\n");
    p.deliver(order(1, 1, "Created"), order(2, 3, "Created"));
    p.run();

    p.deliver(NO_SEQUENCE, order(3, 4, "Created"));
    p.run();

    assertThat(p.silverRows()).containsExactly("1|1|Created", "2|3|Created", "3|4|Created");
    assertThat(rows(p.quarantine().select("reason", "message", "status")))
        .containsExactly(
            "INVALID_NULL_SEQUENCE|truncate event without a sequence: source_version must be"
                + " set|OPEN");
    assertThat(
            spark.read().format("delta").load(dir.resolve("silver_truncates").toString()).count())
        .isZero();

    p.deliver(TruncateTest.truncate(2));
    p.run();
    assertThat(p.silverRows()).containsExactly("2|3|Created", "3|4|Created");
  }

  @Test
  void rejectsTheBatchUnderOnInvalidFail() {
    SilverHarness p = SilverHarness.orders(spark, dir, "applyAsTruncates: \"op = 'TRUNCATE'\"\n");
    p.deliver(order(1, 1, "Created"), NO_SEQUENCE);

    assertThatThrownBy(p::run)
        .isInstanceOf(BatchRejectedException.class)
        .hasMessageContaining(
            "INVALID_NULL_SEQUENCE: truncate event without a sequence: source_version must be set"
                + " in file:");
    assertThat(p.silverRows()).isEmpty();
  }

  @Test
  void aNullWatermarkStoredByAnEarlierVersionIsIgnored() {
    SilverHarness p = SilverHarness.orders(spark, dir, "applyAsTruncates: \"op = 'TRUNCATE'\"\n");
    p.deliver(order(1, 1, "Created"), order(2, 3, "Created"));
    p.run();
    spark.sql(
        "INSERT INTO delta.`"
            + dir.resolve("silver_truncates")
            + "` VALUES (NULL, 'file:/old-version', current_timestamp())");

    p.deliver(TruncateTest.truncate(2));
    p.run();

    assertThat(p.silverRows()).containsExactly("2|3|Created");
  }
}
