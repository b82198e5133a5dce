package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Step 8's decision as a table: what the target holds for the key, how the incoming sequence
 * compares with it, and whether the incoming row is a delete, give exactly one action. Every
 * combination is listed; the whole table is classified by {@link MergeClassifier#classify} in one
 * Spark job, one key per row.
 */
class MergeClassificationTest extends SparkTestBase {
  enum Stored {
    NOTHING,
    LIVE,
    TOMBSTONE
  }

  enum Order {
    OLDER,
    EQUAL_SAME_PAYLOAD,
    EQUAL_OTHER_PAYLOAD,
    NEWER
  }

  record Case(Stored stored, Order order, boolean delete, MergeAction action) {}

  static final List<Case> TABLE =
      List.of(
          new Case(Stored.NOTHING, null, false, MergeAction.INSERT),
          new Case(Stored.NOTHING, null, true, MergeAction.TOMBSTONE_ONLY),
          new Case(Stored.LIVE, Order.OLDER, false, MergeAction.OLDER),
          new Case(Stored.LIVE, Order.OLDER, true, MergeAction.OLDER),
          new Case(Stored.LIVE, Order.EQUAL_SAME_PAYLOAD, false, MergeAction.RETRY),
          new Case(Stored.LIVE, Order.EQUAL_SAME_PAYLOAD, true, MergeAction.RETRY),
          new Case(Stored.LIVE, Order.EQUAL_OTHER_PAYLOAD, false, MergeAction.CONFLICT),
          new Case(Stored.LIVE, Order.EQUAL_OTHER_PAYLOAD, true, MergeAction.CONFLICT),
          new Case(Stored.LIVE, Order.NEWER, false, MergeAction.UPDATE),
          new Case(Stored.LIVE, Order.NEWER, true, MergeAction.DELETE),
          new Case(Stored.TOMBSTONE, Order.OLDER, false, MergeAction.OLDER),
          new Case(Stored.TOMBSTONE, Order.OLDER, true, MergeAction.OLDER),
          new Case(Stored.TOMBSTONE, Order.EQUAL_SAME_PAYLOAD, false, MergeAction.RETRY),
          new Case(Stored.TOMBSTONE, Order.EQUAL_SAME_PAYLOAD, true, MergeAction.RETRY),
          new Case(Stored.TOMBSTONE, Order.EQUAL_OTHER_PAYLOAD, false, MergeAction.CONFLICT),
          new Case(Stored.TOMBSTONE, Order.EQUAL_OTHER_PAYLOAD, true, MergeAction.CONFLICT),
          new Case(Stored.TOMBSTONE, Order.NEWER, false, MergeAction.REVIVE),
          new Case(Stored.TOMBSTONE, Order.NEWER, true, MergeAction.TOMBSTONE_ONLY));

  /**
   * The stored version sits at sequence (5, 5). An older incoming row is (4, 9) and a newer one (6,
   * 0): the first column decides, whatever the second says.
   */
  static final Row STORED_SEQUENCE = RowFactory.create(5L, 5L);

  static final StructType SEQ_TYPE =
      new StructType().add("epoch", DataTypes.LongType).add("s", DataTypes.LongType);

  static Map<Long, String> classified;

  static Stream<Arguments> table() {
    List<Arguments> rows = new ArrayList<>();
    for (int i = 0; i < TABLE.size(); i++) {
      Case c = TABLE.get(i);
      rows.add(Arguments.of((long) i, c.stored(), c.order(), c.delete(), c.action().name()));
    }
    return rows.stream();
  }

  @BeforeAll
  static void classifyTheWholeTable(@org.junit.jupiter.api.io.TempDir Path dir) {
    SilverContract contract =
        TestContracts.contract(
            dir,
            "k BIGINT, epoch BIGINT, s BIGINT, status STRING",
            "keys: [k]\nsequenceBy: [epoch, s]\n");
    List<Row> incoming = new ArrayList<>();
    List<Row> target = new ArrayList<>();
    for (int i = 0; i < TABLE.size(); i++) {
      Case c = TABLE.get(i);
      long key = i;
      Row sequence =
          c.order() == null
              ? RowFactory.create(1L, 1L)
              : switch (c.order()) {
                case OLDER -> RowFactory.create(4L, 9L);
                case EQUAL_SAME_PAYLOAD, EQUAL_OTHER_PAYLOAD -> RowFactory.create(5L, 5L);
                case NEWER -> RowFactory.create(6L, 0L);
              };
      String hash = c.order() == Order.EQUAL_OTHER_PAYLOAD ? "other" : "same";
      incoming.add(RowFactory.create(key, sequence, hash, c.delete()));
      if (c.stored() != Stored.NOTHING) {
        target.add(RowFactory.create(key, STORED_SEQUENCE, "same", c.stored().name()));
      }
    }
    Dataset<Row> latest =
        spark
            .createDataFrame(
                incoming,
                new StructType()
                    .add("k", DataTypes.LongType)
                    .add(SilverContract.SEQ, SEQ_TYPE)
                    .add(SilverContract.PAYLOAD_HASH, DataTypes.StringType)
                    .add(SilverContract.IS_DELETE, DataTypes.BooleanType))
            .withColumn(BatchPreparation.WAIVED, org.apache.spark.sql.functions.lit(false));
    Dataset<Row> targetState =
        spark.createDataFrame(
            target,
            new StructType()
                .add("k", DataTypes.LongType)
                .add(StoredState.T_SEQ, SEQ_TYPE)
                .add(StoredState.T_HASH, DataTypes.StringType)
                .add(StoredState.T_KIND, DataTypes.StringType));
    classified = new HashMap<>();
    for (Row r :
        MergeClassifier.classify(latest, targetState, contract)
            .select("k", SilverContract.ACTION)
            .collectAsList()) {
      assertThat(classified.put(r.getLong(0), r.getString(1))).as("one action per key").isNull();
    }
  }

  @ParameterizedTest(name = "stored {1}, incoming {2}, delete {3} -> {4}")
  @MethodSource("table")
  void eachCombinationHasExactlyOneAction(
      long key, Stored stored, Order order, boolean delete, String action) {
    assertThat(classified.get(key)).isEqualTo(action);
  }

  @Test
  void theTableListsEveryCombinationOnce() {
    assertThat(classified).hasSize(TABLE.size());
    assertThat(TABLE.stream().map(c -> List.of(c.stored(), String.valueOf(c.order()), c.delete())))
        .doesNotHaveDuplicates()
        .hasSize(2 + 2 * Order.values().length * 2);
  }
}
