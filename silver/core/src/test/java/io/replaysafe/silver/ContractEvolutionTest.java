package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A column added to a running pipeline's contract: bronze and silver evolve in place, replays of
 * events delivered before the change stay exact retries, events that set the new column update, and
 * an event that differs from a stored one only in the new column is a conflict.
 */
class ContractEvolutionTest extends SparkTestBase {
  static final String CONTRACT =
      "keys: [order_id]\nsequenceBy: [source_version]\napplyAsDeletes: \"op = 'DELETE'\"\n"
          + "exceptColumnList: [op]\nonConflict: quarantine\n";
  static final String V2_SCHEMA = SilverHarness.ORDERS_SCHEMA + ", coupon STRING";

  @TempDir Path dir;

  static String withCoupon(long id, long version, String status, String coupon) {
    String base = order(id, version, status);
    return base.substring(0, base.length() - 1) + ",\"coupon\":\"" + coupon + "\"}";
  }

  @Test
  void anAddedColumnKeepsOldReplaysExactRetriesAndMakesNewValuesUpdatesOrConflicts() {
    SilverHarness v1 = new SilverHarness(spark, dir, SilverHarness.ORDERS_SCHEMA, CONTRACT);
    v1.deliver(
        order(101, 1, "Created"),
        order(102, 2, "Shipped"),
        // Before the change, the coupon is a field the schema does not declare: rescued.
        withCoupon(103, 1, "Created", "EARLY"));
    v1.run();
    String r1 = new SilverContract(v1.config).ruleVersion();

    SilverHarness v2 = v1.evolved(V2_SCHEMA, CONTRACT);
    // Replays of events silver holds, without the new field: exact retries, no conflict.
    v2.deliver(order(101, 1, "Created"), order(102, 2, "Shipped"), withCoupon(104, 1, "New", "Y"));
    SilverResult replay = v2.run();

    assertThat(replay.total(BatchReport::exactRetries)).isEqualTo(2);
    assertThat(replay.total(BatchReport::conflictsWithTarget)).isZero();
    assertThat(replay.total(BatchReport::inserted)).isEqualTo(1);
    assertThat(v2.silverRows())
        .containsExactly(
            "101|1|Created|null", "102|2|Shipped|null", "103|1|Created|null", "104|1|New|Y");

    v2.deliver(
        // A newer version that sets the coupon: an update.
        withCoupon(101, 2, "Paid", "X"),
        // Same key and sequence as stored, differing only in the new column: a conflict.
        withCoupon(104, 1, "New", "Z"),
        // An event delivered before the change, now with the coupon set: a real change.
        withCoupon(103, 1, "Created", "LATE"),
        // Two payloads at one key and sequence in the batch, differing only in the coupon.
        withCoupon(105, 1, "New", "A"),
        withCoupon(105, 1, "New", "B"));
    SilverResult changes = v2.run();

    assertThat(changes.total(BatchReport::updated)).isEqualTo(1);
    assertThat(changes.total(BatchReport::conflictsWithTarget)).isEqualTo(2);
    assertThat(changes.total(BatchReport::conflictsInBatch)).isEqualTo(1);
    assertThat(v2.silverRows())
        .containsExactly("101|2|Paid|X", "102|2|Shipped|null", "103|1|Created|null", "104|1|New|Y");
    String r2 = new SilverContract(v2.config).ruleVersion();
    assertThat(
            rows(
                v2.quarantine()
                    .selectExpr(
                        "reason",
                        "key",
                        "get_json_object(raw_payload, '$.coupon')",
                        "rule_version = '" + r2 + "'")
                    .orderBy("key", "raw_payload")))
        .containsExactly(
            "CONFLICT_WITH_TARGET|{\"order_id\":103}|LATE|true",
            "CONFLICT_WITH_TARGET|{\"order_id\":104}|Z|true",
            "CONFLICT_IN_BATCH|{\"order_id\":105}|A|true",
            "CONFLICT_IN_BATCH|{\"order_id\":105}|B|true");

    // Evidence: the rule version of every batch, and the contract's history.
    assertThat(rows(v2.runs().selectExpr("batch_id", "rule_version").orderBy("batch_id")))
        .containsExactly("0|" + r1, "1|" + r2, "2|" + r2);
    assertThat(
            rows(
                spark
                    .read()
                    .format("delta")
                    .load(ContractHistory.path(v2.config.requireSilver()))
                    .selectExpr("version", "rule_version", "payload_columns", "changes")
                    .orderBy("version")))
        .containsExactly(
            "1|" + r1 + "|[\"status\",\"op\"]|first version",
            "2|"
                + r2
                + "|[\"status\",\"op\",\"coupon\"]|source column 'coupon' added (STRING);"
                + " payload column 'coupon' added; silver column 'coupon' added");
    assertThat(v2.silver().columns())
        .startsWith("order_id", "source_version", "status", "coupon", "__payload_hash");
  }

  @Test
  void keysSequenceAndPayloadRemovalCannotChangeInPlace() {
    SilverHarness v1 = new SilverHarness(spark, dir, SilverHarness.ORDERS_SCHEMA, CONTRACT);
    v1.deliver(order(101, 1, "Created"));
    v1.run();
    String silverPath = v1.config.requireSilver().path();

    assertThatThrownBy(
            () ->
                ContractHistory.resolve(
                    spark,
                    v1.evolved(
                            SilverHarness.ORDERS_SCHEMA,
                            CONTRACT.replace("keys: [order_id]", "keys: [order_id, status]"))
                        .config))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Cannot change silver.keys of silver "
                + silverPath
                + " from [order_id] to [order_id, status] in place: keys, their normalisation and"
                + " sequenceBy are silver's identity and precedence; every stored row, tombstone"
                + " and sequence guard was decided with them, and a new identity would merge or"
                + " split stored keys. Write silver anew under the new contract: set a new"
                + " silver.path and silver.checkpoint (it is built from all of bronze), then switch"
                + " readers to it.");
    assertThatThrownBy(
            () ->
                ContractHistory.resolve(
                    spark,
                    v1.evolved(
                            V2_SCHEMA + ", updated_at BIGINT",
                            CONTRACT.replace(
                                "sequenceBy: [source_version]",
                                "sequenceBy: [source_version, updated_at]"))
                        .config))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "Cannot change silver.sequenceBy of silver "
                + silverPath
                + " from [source_version] to [source_version, updated_at] in place");
    assertThatThrownBy(
            () ->
                ContractHistory.resolve(
                    spark,
                    v1.evolved(SilverHarness.ORDERS_SCHEMA, CONTRACT + "payloadColumns: [status]\n")
                        .config))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("Cannot remove [op] from the payload in place");
    // Nothing was recorded by the refusals.
    assertThat(ContractHistory.read(spark, v1.config)).hasSize(1);
    // An unchanged contract resolves to the recorded version with nothing to record.
    assertThat(ContractHistory.resolve(spark, v1.config).toRecord()).isEmpty();
    assertThat(List.of(v1.silver().columns())).doesNotContain("coupon");
  }
}
