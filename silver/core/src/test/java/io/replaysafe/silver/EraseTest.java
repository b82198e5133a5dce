package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.silver.ops.Erase;
import io.replaysafe.silver.ops.KeySelection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code replaysafe erase}: a person's key leaves every layer, no file of the current tables holds
 * its values, a VACUUM removes the old files, and no later delivery at or before the erased
 * sequence brings it back, while a newer event (new data) is applied.
 */
class EraseTest extends SparkTestBase {
  /** The personal data of key 2, which must be gone from every layer. */
  private static final String MARKER = "Alice-Marker";

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(SilverHarness.Shape.class)
  void aKeyLeavesEveryLayerAndAnOlderDeliveryStaysOut(SilverHarness.Shape shape)
      throws IOException {
    SilverHarness p = SilverHarness.orders(spark, dir, "onConflict: quarantine\n", shape);
    p.deliver(order(1, 1, "Created"), order(2, 1, MARKER), order(2, 2, MARKER + "-2"));
    p.run();
    // The same key and sequence with another payload: quarantined with its raw payload.
    p.deliver(order(2, 2, MARKER + "-conflict"));
    p.run();
    // In bronze, not yet read by silver: its sequence (3) is the highest any layer holds.
    p.deliver(order(2, 3, MARKER + "-3"));
    p.bronzeOnly();
    assertThat(p.quarantine().count()).isEqualTo(1);

    Erase.Outcome erased =
        new Erase(p.config, spark).execute(new KeySelection(List.of("2")), "GDPR art. 17", "dpo");

    assertThat(erased.keysRequested()).isEqualTo(1);
    assertThat(erased.keysErased()).isEqualTo(1);
    assertThat(erased.notFound()).isEmpty();
    assertThat(erased.removed())
        .containsExactly(
            Map.entry(Erase.SILVER, 1L),
            Map.entry(Erase.TOMBSTONES, 0L),
            Map.entry(Erase.QUARANTINE, 1L),
            Map.entry(Erase.BRONZE, 4L));
    assertThat(erased.sourceFiles())
        .containsExactly(
            "file:" + p.config.source().path() + "/delivery-001.json",
            "file:" + p.config.source().path() + "/delivery-002.json",
            "file:" + p.config.source().path() + "/delivery-003.json")
        .allSatisfy(f -> assertThat(f).doesNotContain(MARKER));
    assertThat(p.silverRows()).containsExactly("1|1|Created");
    assertThat(p.quarantine().count()).isZero();
    assertThat(bronzeKeys(p, shape)).containsExactly(1L);
    // What stays: the key and the highest sequence, no payload.
    assertThat(rowsOf(erasures(p).selectExpr("key", "to_json(sequence)")))
        .containsExactly("2|{\"source_version\":3}");
    Dataset<Row> log = spark.read().format("delta").load(p.config.bronze().path() + "_erase_log");
    assertThat(
            rowsOf(
                log.selectExpr(
                    "requested_by",
                    "reason",
                    "keys_requested",
                    "keys_erased",
                    "to_json(rows_removed)")))
        .containsExactly(
            "dpo|GDPR art. 17|1|1|{\"silver\":1,\"tombstones\":0,\"quarantine\":1,\"bronze\":4}");
    assertThat(log.toJSON().collectAsList())
        .noneMatch(l -> l.contains(MARKER) || l.contains("\"2\""));

    // Read as plain Parquet (deletion vectors ignored), no file of a current version holds it.
    for (String table :
        List.of(p.config.bronze().path(), p.config.requireSilver().path(), quarantinePath(p))) {
      assertThat(plainContent(currentFiles(table))).as(table).noneMatch(l -> l.contains(MARKER));
    }

    // Silver reads past the erase's own deletes from bronze, and an older delivery of the key
    // (a replay, a late file) is ignored: neither applied nor quarantined.
    p.run();
    p.deliver(order(2, 2, MARKER + "-2"), order(2, 3, MARKER + "-conflict-at-3"));
    SilverResult replayed = p.run();
    assertThat(p.silverRows()).containsExactly("1|1|Created");
    assertThat(p.quarantine().count()).isZero();
    assertThat(replayed.toMap()).containsEntry("olderIgnored", 2L);
    assertThat(replayed.notes()).extracting(Note::kind).contains(Note.Kind.ERASED);

    // VACUUM past the retention removes the files that held the key: none on disk does any more,
    // except the landing files (the producer's) and the replayed delivery's rows in bronze.
    spark.conf().set("spark.databricks.delta.retentionDurationCheck.enabled", "false");
    try {
      for (String table : List.of(p.config.requireSilver().path(), quarantinePath(p))) {
        spark.sql("VACUUM delta.`" + table + "` RETAIN 0 HOURS");
        assertThat(plainContent(allDataFiles(table))).as(table).noneMatch(l -> l.contains(MARKER));
      }
    } finally {
      spark.conf().unset("spark.databricks.delta.retentionDurationCheck.enabled");
    }

    // A newer event is new data: the key lives again, from that event on.
    p.deliver(order(2, 4, "Returned"));
    p.run();
    assertThat(p.silverRows()).containsExactly("1|1|Created", "2|4|Returned");
  }

  @Test
  void vacuumRemovesTheOldBronzeFiles() throws IOException {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 1, MARKER));
    p.run();

    new Erase(p.config, spark).execute(new KeySelection(List.of("2")), null, null);
    // Silver reads the erase's commit before the VACUUM removes the files it points at.
    p.run();
    spark.conf().set("spark.databricks.delta.retentionDurationCheck.enabled", "false");
    try {
      spark.sql("VACUUM delta.`" + p.config.bronze().path() + "` RETAIN 0 HOURS");
    } finally {
      spark.conf().unset("spark.databricks.delta.retentionDurationCheck.enabled");
    }

    List<String> onDisk = plainContent(allDataFiles(p.config.bronze().path()));
    assertThat(onDisk).anyMatch(l -> l.contains("Created"));
    assertThat(onDisk).noneMatch(l -> l.contains(MARKER));
    assertThat(p.silverRows()).containsExactly("1|1|Created");
  }

  @Test
  void aHistoryTableLosesTheKeysVersionsAndEvents() {
    SilverHarness p = SilverHarness.orders(spark, dir, "storedAsScdType: 2\n");
    p.deliver(order(1, 1, "Created"), order(2, 1, MARKER), order(2, 2, MARKER + "-2"));
    p.run();

    Erase.Outcome erased =
        new Erase(p.config, spark).execute(new KeySelection(List.of("2")), "request 7", "dpo");

    assertThat(erased.removed())
        .containsExactly(
            Map.entry(Erase.HISTORY, 2L),
            Map.entry(Erase.EVENTS, 2L),
            Map.entry(Erase.QUARANTINE, 0L),
            Map.entry(Erase.BRONZE, 2L));
    assertThat(historyRows(p)).containsExactly("1|1|Created|1|null");
    assertThat(
            spark.read().format("delta").load(p.config.requireSilver().path() + "_events").count())
        .isEqualTo(1);

    // A late event inside the erased span would open a closed version in a history: ignored.
    p.deliver(order(2, 1, MARKER), order(2, 2, MARKER + "-late"));
    p.run();
    assertThat(historyRows(p)).containsExactly("1|1|Created|1|null");
    p.deliver(order(2, 5, "Returned"));
    p.run();
    assertThat(historyRows(p)).containsExactly("1|1|Created|1|null", "2|5|Returned|5|null");
  }

  @Test
  void aKeyNoLayerHoldsIsReportedAndNothingIsRecorded() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"));
    p.run();

    Erase.Outcome erased =
        new Erase(p.config, spark).execute(new KeySelection(List.of("9", "1")), null, null);

    assertThat(erased.keysRequested()).isEqualTo(2);
    assertThat(erased.keysErased()).isEqualTo(1);
    assertThat(erased.notFound()).containsExactly("9");
    assertThat(rowsOf(erasures(p).select("key"))).containsExactly("1");
    // Key 9 was never erased: its first event is applied.
    p.deliver(order(9, 1, "New"));
    p.run();
    assertThat(p.silverRows()).containsExactly("9|1|New");
  }

  @Test
  void aRerunFindsNothingLeftAndRecordsTheSameSequence() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"), order(2, 3, MARKER));
    p.run();
    KeySelection key = new KeySelection(List.of("2"));
    new Erase(p.config, spark).execute(key, null, null);

    Erase.Outcome again = new Erase(p.config, spark).execute(key, null, null);

    assertThat(again.keysErased()).isEqualTo(1);
    assertThat(again.rowsRemoved()).isZero();
    assertThat(rowsOf(erasures(p).selectExpr("key", "sequence.source_version")))
        .containsExactly("2|3", "2|3");
    assertThat(spark.read().format("delta").load(p.config.bronze().path() + "_erase_log").count())
        .isEqualTo(2);
  }

  private static List<String> historyRows(SilverHarness p) {
    return rowsOf(
        p.silver()
            .selectExpr("order_id", "source_version", "status", "__START_AT", "__END_AT")
            .orderBy("order_id", "__START_AT"));
  }

  private Dataset<Row> erasures(SilverHarness p) {
    return spark.read().format("delta").load(p.config.bronze().path() + "_erasures");
  }

  private static String quarantinePath(SilverHarness p) {
    return p.config.requireSilver().quarantinePath();
  }

  private List<Long> bronzeKeys(SilverHarness p, SilverHarness.Shape shape) {
    String key = shape == SilverHarness.Shape.PLAIN ? "order_id" : "payload.order_id";
    return spark
        .read()
        .format("delta")
        .load(p.config.bronze().path())
        .selectExpr(key)
        .distinct()
        .orderBy(key)
        .as(org.apache.spark.sql.Encoders.LONG())
        .collectAsList();
  }

  private List<String> currentFiles(String table) {
    return List.of(spark.read().format("delta").load(table).inputFiles());
  }

  private static List<String> allDataFiles(String table) throws IOException {
    Path root = Path.of(java.net.URI.create(table.startsWith("/") ? "file://" + table : table));
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(f -> f.toString().endsWith(".parquet"))
          .filter(f -> !f.toString().contains("_delta_log"))
          .map(Path::toString)
          .toList();
    }
  }

  /** Every row of the files as JSON, read as plain Parquet: what the files themselves hold. */
  private List<String> plainContent(List<String> files) {
    List<String> rows = new ArrayList<>();
    for (String file : files) {
      rows.addAll(spark.read().parquet(file).toJSON().collectAsList());
    }
    return rows;
  }
}
