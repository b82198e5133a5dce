package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Date;
import java.time.LocalDateTime;
import java.util.HexFormat;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * The payload hash across contract versions: a payload stored under the first version hashes the
 * same after columns were added and types widened, as long as the new columns are null and the
 * values fit the old types; any real difference changes the hash.
 */
class HashRuleTest extends SparkTestBase {
  static final StructType V1 =
      StructType.fromDDL(
          "status STRING, qty INT, price FLOAT, day DATE, customer STRUCT<name: STRING, zip: INT>");
  static final StructType V2 =
      StructType.fromDDL(
          "status STRING, qty BIGINT, price DOUBLE, day TIMESTAMP_NTZ,"
              + " customer STRUCT<name: STRING, zip: BIGINT, tier: STRING>, coupon STRING");
  static final List<String> P1 = List.of("status", "qty", "price", "day", "customer");
  static final List<String> P2 = List.of("status", "coupon", "qty", "price", "day", "customer");

  static String sha256(String text) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  static List<String> hashes(HashRule rule, StructType schema, List<Row> rows) {
    return rows(spark.createDataFrame(rows, schema).select(rule.expression(schema)));
  }

  static Row v2(long qty, double price, LocalDateTime day, Row customer, String coupon) {
    return RowFactory.create("a", qty, price, day, customer, coupon);
  }

  @Test
  void hashesOfTheFirstVersionSurviveAddedColumnsAndWidenedTypes() throws Exception {
    HashRule first = HashRule.initial(P1, V1, 6);
    HashRule second = first.next(P2, V2, 6);
    String stored =
        hashes(
                first,
                V1,
                List.of(
                    RowFactory.create(
                        "a", 1, 0.1f, Date.valueOf("2024-01-02"), RowFactory.create("Ann", 123))))
            .get(0);
    // The first version's hash is the canonical JSON of the payload, as it always was.
    assertThat(stored)
        .isEqualTo(
            sha256(
                "{\"status\":\"a\",\"qty\":1,\"price\":0.1,\"day\":\"2024-01-02\","
                    + "\"customer\":{\"name\":\"Ann\",\"zip\":123}}"));

    LocalDateTime midnight = LocalDateTime.parse("2024-01-02T00:00:00");
    List<String> after =
        hashes(
            second,
            V2,
            List.of(
                // The stored row read back from the widened bronze table: the same payload.
                v2(1, (double) 0.1f, midnight, RowFactory.create("Ann", 123L, null), null),
                // The same event delivered again after the change: the same payload.
                v2(1, 0.1, midnight, RowFactory.create("Ann", 123L, null), null),
                // Real differences: the new column set, a new struct field set, a value the old
                // type cannot hold, a time the old DATE could not hold.
                v2(1, 0.1, midnight, RowFactory.create("Ann", 123L, null), "X"),
                v2(1, 0.1, midnight, RowFactory.create("Ann", 123L, "gold"), null),
                v2(3_000_000_000L, 0.1, midnight, RowFactory.create("Ann", 123L, null), null),
                v2(
                    1,
                    0.1,
                    LocalDateTime.parse("2024-01-02T10:00:00"),
                    RowFactory.create("Ann", 123L, null),
                    null),
                v2(1, 0.1, midnight, null, null)));
    assertThat(after.subList(0, 2)).containsOnly(stored);
    assertThat(after.subList(2, 7)).doesNotContain(stored).doesNotHaveDuplicates();
  }

  @Test
  void theRuleRoundTripsThroughJsonAndRefusesWhatWouldChangeStoredHashes() {
    HashRule second = HashRule.initial(P1, V1, 6).next(P2, V2, 6);
    assertThat(HashRule.fromJson(second.toJson())).isEqualTo(second);
    assertThat(second.entries())
        .extracting(HashRule.Entry::column, HashRule.Entry::optional)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("status", false),
            org.assertj.core.groups.Tuple.tuple("qty", false),
            org.assertj.core.groups.Tuple.tuple("price", false),
            org.assertj.core.groups.Tuple.tuple("day", false),
            org.assertj.core.groups.Tuple.tuple("customer", false),
            org.assertj.core.groups.Tuple.tuple("coupon", true));

    assertThatThrownBy(() -> second.next(List.of("status", "coupon"), V2, 6))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("Cannot remove [qty, price, day, customer] from the payload");
    assertThatThrownBy(() -> second.next(P2, V2, 2))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("Cannot change silver.floatScale from 6 to 2 in place");
  }
}
