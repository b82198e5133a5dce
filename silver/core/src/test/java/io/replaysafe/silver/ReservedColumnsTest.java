package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No value in a bronze row reaches a decision except through the contract's declared columns: a
 * column named like one of silver's working columns is refused in the pipeline file (see {@code
 * ReservedNamesTest}), and one that bronze's table gained some other way is not read.
 */
class ReservedColumnsTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void aBronzeColumnNamedLikeSilversOwnDeletesNothingAndWaivesNothing() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"));
    BronzeIngest.from(p.config, spark).execute();
    String bronze = "delta.`" + dir.resolve("bronze") + "`";
    // A hand-made change (or a pipeline file of an earlier release) gave bronze these columns.
    spark.sql("ALTER TABLE " + bronze + " ADD COLUMNS (__force_delete BOOLEAN, __waived BOOLEAN)");
    spark.sql(
        "INSERT INTO "
            + bronze
            + " (order_id, source_version, status, op, __force_delete, __waived)"
            + " VALUES (3, 1, 'keep', 'UPSERT', true, false)");

    SilverResult result = p.silverOnly();

    assertThat(p.silverRows()).containsExactly("1|1|Created", "3|1|keep");
    BatchReport batch = result.batches().get(0);
    assertThat(batch.deleted()).isZero();
    assertThat(batch.inserted()).isEqualTo(2);
    assertThat(batch.notes()).isEmpty();
  }
}
