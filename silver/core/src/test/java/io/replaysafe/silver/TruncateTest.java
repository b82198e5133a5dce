package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** applyAsTruncates on a current-state table, with a table-wide sequence (a log position). */
class TruncateTest extends SparkTestBase {
  @TempDir Path dir;

  static String truncate(long position) {
    return "{\"order_id\":null,\"source_version\":"
        + position
        + ",\"status\":null,\"op\":\"TRUNCATE\"}";
  }

  @Test
  void aTruncateRemovesOlderRowsAndKeepsOlderEventsOut() {
    SilverHarness p = SilverHarness.orders(spark, dir, "applyAsTruncates: \"op = 'TRUNCATE'\"\n");
    p.deliver(order(1, 1, "Created"), order(2, 3, "Created"), order(3, 5, "Created"));
    p.run();

    p.deliver(truncate(4), order(4, 6, "Created"));
    SilverResult truncated = p.run();

    assertThat(p.silverRows()).containsExactly("3|5|Created", "4|6|Created");
    assertThat(truncated.notes())
        .contains(
            new Note(
                Note.Kind.TRUNCATE,
                null,
                null,
                "1 truncate event(s); rows older than [4] removed"));

    p.deliver(
        order(1, 2, "Paid"), truncate(4)); // a late event from before the truncate, and a replay
    SilverResult late = p.run();

    assertThat(p.silverRows()).containsExactly("3|5|Created", "4|6|Created");
    assertThat(late.total(BatchReport::olderIgnored)).isEqualTo(1);
  }

  @Test
  void aKeyWhoseStoredRowTheBatchsTruncateRemovedIsInsertedByTheBatchsNewerEvent() {
    SilverHarness p = SilverHarness.orders(spark, dir, "applyAsTruncates: \"op = 'TRUNCATE'\"\n");
    p.deliver(order(1, 1, "Created"), order(2, 5, "Created"));
    p.run();

    // As in two runs (the truncate removes 1@1, then 1@6 is a new row): the stored state read
    // before the truncate must not make 1@6 an update of a row that is gone.
    p.deliver(truncate(4), order(1, 6, "Paid"));
    SilverResult run = p.run();

    assertThat(p.silverRows()).containsExactly("1|6|Paid", "2|5|Created");
    assertThat(run.total(BatchReport::inserted)).isEqualTo(1);
  }

  @Test
  void truncatesAreForCurrentStateTablesOnly() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p",
                    "name: x\nsource: {path: /l, schema: \"k INT, s INT, op STRING\"}\n"
                        + "bronze: {path: /b, checkpoint: /c}\n"
                        + "silver: {path: /s, checkpoint: /sc, keys: [k], sequenceBy: [s],"
                        + " storedAsScdType: 2, applyAsTruncates: \"op = 'T'\"}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p: silver.applyAsTruncates is supported for storedAsScdType 1 only (as"
                + " in AUTO CDC); remove it or use a current-state table");
  }
}
