package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.bronze.BronzeSideTables;
import io.replaysafe.common.ConfigException;
import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.silver.ops.Maintain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replaysafe maintain}: OPTIMIZE compacts every table of the pipeline without changing a
 * row, and a VACUUM retention shorter than Delta's safety check, silver's lag or the tombstone
 * retention is refused with the rule that refused it.
 */
class MaintainTest extends SparkTestBase {
  @TempDir Path dir;

  @Test
  void optimizeCompactsBronzesSmallFilesAndChangesNoRow() {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    p.deliver(order(1, 1, "Created"));
    p.run();
    p.deliver(order(2, 1, "Created"));
    p.run();
    p.deliver(order(1, 2, "Shipped"));
    p.run();

    List<Maintain.TableResult> results =
        new Maintain(p.config, spark).execute(BronzeSideTables.of(p.config), true, null);

    assertThat(results)
        .extracting(Maintain.TableResult::table)
        .containsExactly(
            "bronze", "file state", "silver", "tombstones", "quarantine", "runs", "contract");
    assertThat(results.get(0).filesCompacted()).isEqualTo(3);
    assertThat(results).allSatisfy(r -> assertThat(r.filesVacuumed()).isNull());
    assertThat(spark.read().format("delta").load(p.config.bronze().path()).inputFiles()).hasSize(1);
    assertThat(p.silverRows()).containsExactly("1|2|Shipped", "2|1|Created");
    p.deliver(order(2, 2, "Paid"));
    p.run();
    assertThat(p.silverRows()).containsExactly("1|2|Shipped", "2|2|Paid");
  }

  // Slow: a VACUUM of every table of the pipeline (several Spark jobs each).
  @org.junit.jupiter.api.Tag("slow")
  @Test
  void aRetentionShorterThanAnyRuleIsRefusedWithThatRule() throws IOException {
    SilverHarness p = SilverHarness.orders(spark, dir, "tombstoneRetention: '2 hours'\n");
    p.deliver(order(1, 1, "Created"));
    p.run();
    Maintain maintain = new Maintain(p.config, spark);
    var side = BronzeSideTables.of(p.config);

    assertThatThrownBy(() -> maintain.execute(side, false, Duration.ofDays(1)))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Cannot VACUUM with a retention of 1 day(s): the bronze table keeps removed files for"
                + " 7 day(s) (delta.deletedFileRetentionDuration), which readers of older versions"
                + " rely on. Pass --vacuum '7 days' or longer.");

    // Every table keeps removed files an hour only; silver lags behind a commit of 3 hours ago.
    List<Path> tables = deltaTables(dir);
    for (Path t : tables) {
      spark.sql(
          "ALTER TABLE delta.`"
              + t
              + "` SET TBLPROPERTIES ('delta.deletedFileRetentionDuration' = 'interval 1 hours')");
    }
    p.deliver(order(1, 2, "Shipped"));
    p.bronzeOnly();
    // Every bronze commit as if made 3 hours ago (Delta dates a commit by its file).
    try (Stream<Path> commits = Files.list(Path.of(p.config.bronze().path(), "_delta_log"))) {
      for (Path c : commits.filter(f -> f.toString().endsWith(".json")).toList()) {
        Files.setLastModifiedTime(c, FileTime.from(Instant.now().minus(Duration.ofHours(3))));
      }
    }

    assertThatThrownBy(() -> maintain.execute(side, false, Duration.ofHours(2)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "Cannot VACUUM with a retention of 2 hour(s): silver has not read bronze's commits of"
                + " the last ")
        .hasMessageEndingWith(
            ", and its next run reads their files. Run silver first ('replaysafe run'), or pass a"
                + " longer retention.");

    p.silverOnly();
    assertThatThrownBy(() -> maintain.execute(side, false, Duration.ofHours(1)))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Cannot VACUUM with a retention of 1 hour(s): silver.tombstoneRetention is 2 hour(s),"
                + " and a delete is kept, and restorable, that long. Pass --vacuum '2 hours' or"
                + " longer.");

    List<Maintain.TableResult> vacuumed = maintain.execute(side, false, Duration.ofHours(2));
    assertThat(vacuumed).extracting(Maintain.TableResult::table).contains("bronze", "silver");
    assertThat(vacuumed).allSatisfy(r -> assertThat(r.filesVacuumed()).isZero());
    assertThat(p.silverRows()).containsExactly("1|2|Shipped");
  }

  private static List<Path> deltaTables(Path root) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      return all.filter(d -> d.getFileName().toString().equals("_delta_log"))
          .map(Path::getParent)
          .toList();
    }
  }
}
