package io.replaysafe.silver;

import static io.replaysafe.silver.StepFixtures.ORDERS;
import static io.replaysafe.silver.StepFixtures.ORDERS_SCHEMA;
import static io.replaysafe.silver.StepFixtures.bronze;
import static io.replaysafe.silver.StepFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key predicate a batch hands to the reads and writes of the target: the range of its valid
 * keys, and the keys themselves when the batch is small, never an invalid row's key.
 */
class PreparedBatchTest extends SparkTestBase {
  @TempDir Path dir;

  private PreparedBatch prepare(List<Row> rows) {
    SilverContract contract = TestContracts.contract(dir, ORDERS_SCHEMA, ORDERS);
    try (BatchCache cache = new BatchCache()) {
      return PreparedBatch.of(
          bronze(spark, rows), 0, contract, new Truncates(spark, contract), cache);
    }
  }

  @Test
  void aSmallBatchListsItsDistinctValidKeys() {
    PreparedBatch batch =
        prepare(
            List.of(
                row(3, 1, "A", "UPSERT", "f", 1),
                row(1, 1, "A", "UPSERT", "f", 1),
                row(3, 1, "A", "UPSERT", "f", 1),
                // No sequence: invalid, so its key selects nothing in the target.
                RowFactory.create(9L, null, "A", "UPSERT", null, null, "f", 1L)));

    assertThat(batch.invalidCount()).isEqualTo(1);
    assertThat(batch.bounds().min()).containsExactly(1L);
    assertThat(batch.bounds().max()).containsExactly(3L);
    assertThat(batch.bounds().values()).containsExactly(3L, 1L);
    assertThat(batch.bounds().exact()).isTrue();
  }

  @Test
  void aBatchWithMoreKeysThanAListHoldsKeepsTheRangeOnly() {
    List<Row> rows = new ArrayList<>();
    for (long k = 1; k <= StoredState.KeyBounds.LISTED_KEYS + 1; k++) {
      rows.add(row(k, 1, "A", "UPSERT", "f", 1));
    }

    PreparedBatch batch = prepare(rows);

    assertThat(batch.bounds().min()).containsExactly(1L);
    assertThat(batch.bounds().max()).containsExactly((long) StoredState.KeyBounds.LISTED_KEYS + 1);
    assertThat(batch.bounds().values()).isNull();
    assertThat(batch.bounds().exact()).isFalse();
  }
}
