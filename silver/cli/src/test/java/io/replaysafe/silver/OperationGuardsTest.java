package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.cli.CliRunner;
import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the commands refuse before touching data, through the CLI: the exit code says whose fix it
 * is (2: the arguments or pipeline file; 1: the state of the tables), the message what, why, how.
 */
class OperationGuardsTest extends SparkTestBase {
  @TempDir Path dir;

  static String historyRefusal(String operation, Path silver) {
    return "replaysafe: Cannot "
        + operation
        + " silver "
        + silver
        + ": it is a history table (storedAsScdType 2), and "
        + operation
        + " works on current-state tables (storedAsScdType 1) only. Correct a history through"
        + " its source instead: deliver the corrected or deleting events, and the next batch"
        + " rebuilds the history of every key they touch.\n";
  }

  @Test
  void repairAndReconcileRefuseAHistoryTableWithOneWording() throws Exception {
    // quarantine release works on history tables (QuarantineReleaseHistoryTest); these two write
    // current state directly.
    SilverHarness p = SilverHarness.orders(spark, dir, "storedAsScdType: 2\n");
    String config = p.writePipelineFile("").toString();
    Path keys = Files.writeString(dir.resolve("keys.txt"), "1\n");
    Path silver = dir.resolve("silver");

    CliRunner.Outcome repair = CliRunner.run("repair", "--config", config, "--keys", "1");
    CliRunner.Outcome reconcile =
        CliRunner.run("reconcile", "--config", config, "--source-keys", keys.toString());

    assertThat(repair.exitCode()).isEqualTo(2);
    assertThat(repair.err()).isEqualTo(historyRefusal("repair", silver));
    assertThat(reconcile.exitCode()).isEqualTo(2);
    assertThat(reconcile.err()).isEqualTo(historyRefusal("reconcile", silver));
  }

  @Test
  void silverBeforeAnyBronzeRunIsAStateErrorNotAUsageError() throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    String config = p.writePipelineFile("").toString();

    CliRunner.Outcome silver = CliRunner.run("silver", "--config", config);

    assertThat(silver.exitCode()).isEqualTo(1);
    assertThat(silver.err())
        .isEqualTo(
            "replaysafe: Cannot run silver for pipeline 'orders': there is no bronze table at "
                + dir.resolve("bronze")
                + " yet. Run 'replaysafe bronze' (or 'replaysafe run') first.\n");
  }

  @Test
  void repairWithoutKeysSaysWhatToPass() throws Exception {
    SilverHarness p = SilverHarness.orders(spark, dir, "");
    String config = p.writePipelineFile("").toString();

    CliRunner.Outcome repair = CliRunner.run("repair", "--config", config);

    assertThat(repair.exitCode()).isEqualTo(2);
    assertThat(repair.err())
        .isEqualTo(
            "replaysafe: No keys given: repair, reconcile and erase act on named keys only. Pass --keys"
                + " K1,K2 or --keys-file FILE (one key per line, as reports print them).\n");
  }
}
