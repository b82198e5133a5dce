package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A rejected batch is logged once, however often it is rejected, with a bounded report. */
class RejectionEvidenceTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void aBatchRejectedOnEveryRerunIsLoggedOnceWithTheFirstKeysAndExactTotals() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    List<String> lines = new ArrayList<>();
    for (int id = 1; id <= 25; id++) {
      lines.add(order(id, 1, "Created"));
      lines.add(order(id, 1, "Cancelled"));
    }
    p.deliver(lines.toArray(String[]::new));

    assertThatThrownBy(p::run)
        .isInstanceOf(BatchRejectedException.class)
        .hasMessageContaining("\n  25 conflicted key(s)\n  key 1 sequence 1 has 2 different")
        .hasMessageContaining("\n  ... and 5 more key(s)\n  rows (50 of 50):\n")
        .satisfies(
            e ->
                assertThat(e.getMessage().lines().filter(l -> l.startsWith("  key "))).hasSize(20));
    assertThatThrownBy(p::silverOnly).isInstanceOf(BatchRejectedException.class);
    assertThatThrownBy(p::silverOnly).isInstanceOf(BatchRejectedException.class);

    assertThat(rows(p.runs().select("batch_id", "status", "input_rows", "conflicts_in_batch")))
        .containsExactly("0|REJECTED|50|25");
  }
}
