package io.replaysafe.silver;

import static io.replaysafe.silver.SilverHarness.delete;
import static io.replaysafe.silver.SilverHarness.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.spark.InterpretedMode;
import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.common.testing.SystemProperties;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.util.QueryExecutionListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scheduled run of few new rows is run with Spark's interpreted evaluation (InterpretedMode), a
 * large one with generated code; the tables are the same either way. Differential: the same
 * deliveries through a pipeline interpreted and through one with interpretation turned off.
 */
class InterpretedRunTest extends SparkTestBase {
  @TempDir Path dir;

  /** Spark's own defaults, as a run has them: the tests' session interprets everything. */
  @BeforeEach
  void generatedCodeAsSparkDefaults() {
    spark.conf().set("spark.sql.codegen.wholeStage", "true");
    spark.conf().set("spark.sql.codegen.factoryMode", "FALLBACK");
  }

  @AfterEach
  void interpretedAsTheOtherTests() {
    spark.conf().set("spark.sql.codegen.wholeStage", "false");
    spark.conf().set("spark.sql.codegen.factoryMode", "NO_CODEGEN");
  }

  /** Counts the executed plans with and without whole-stage generated code. */
  private static final class Plans implements QueryExecutionListener {
    final List<Boolean> generated = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
      generated.add(qe.executedPlan().find(p -> p instanceof WholeStageCodegenExec).isDefined());
    }

    @Override
    public void onFailure(String funcName, QueryExecution qe, Exception exception) {}
  }

  private static <T> T withMaxRows(long maxRows, Supplier<T> body) {
    return SystemProperties.with(InterpretedMode.MAX_ROWS_PROPERTY, Long.toString(maxRows), body);
  }

  /**
   * The deliveries of the seed 000 orders table: updates, an exact retry, a late older version, a
   * delete.
   */
  private static List<String[]> deliveries() {
    return List.of(
        new String[] {order(1, 1, "New"), order(2, 1, "New"), order(3, 1, "New")},
        new String[] {order(1, 2, "Shipped"), order(1, 2, "Shipped"), order(2, 3, "Paid")},
        new String[] {order(2, 2, "Late"), delete(3, 2), order(4, 1, null)});
  }

  private List<String> runAll(SilverHarness pipeline, long maxRows, Plans plans) {
    spark.listenerManager().register(plans);
    try {
      for (String[] delivery : deliveries()) {
        pipeline.deliver(delivery);
        pipeline.bronzeOnly();
        withMaxRows(maxRows, pipeline::silverOnly);
      }
    } finally {
      spark.listenerManager().unregister(plans);
    }
    // Where each row came from, without the pipeline's own directory.
    return pipeline.silverContent().stream()
        .map(row -> row.replace(pipeline.dir.toString(), "<dir>"))
        .toList();
  }

  @Test
  void aSmallRunIsInterpretedAndWritesWhatAGeneratedOneWrites() {
    Plans interpretedPlans = new Plans();
    List<String> interpreted =
        runAll(
            SilverHarness.orders(spark, dir.resolve("interpreted"), ""), 1_000, interpretedPlans);
    Plans generatedPlans = new Plans();
    List<String> generated =
        runAll(SilverHarness.orders(spark, dir.resolve("generated"), ""), 0, generatedPlans);

    assertThat(interpreted).isEqualTo(generated).hasSize(3);
    assertThat(generatedPlans.generated).contains(true);
    // The silver batches' queries ran interpreted; what ran before the stream (the tables' looks)
    // and after it (the compaction) may generate code.
    assertThat(interpretedPlans.generated.stream().filter(g -> g).count())
        .isLessThan(generatedPlans.generated.stream().filter(g -> g).count());
  }

  @Test
  void theSessionGetsItsOwnSettingsBackAfterTheRun() {
    SilverHarness pipeline = SilverHarness.orders(spark, dir.resolve("settings"), "");
    pipeline.deliver(order(1, 1, "New"));
    pipeline.bronzeOnly();
    try (InterpretedMode mode = InterpretedMode.forNewRows(java.util.Optional.of(1L), spark)) {
      assertThat(mode.interpreted()).isTrue();
      assertThat(spark.conf().get("spark.sql.codegen.wholeStage")).isEqualTo("false");
      assertThat(spark.conf().get("spark.sql.codegen.factoryMode")).isEqualTo("NO_CODEGEN");
    }
    assertThat(spark.conf().get("spark.sql.codegen.wholeStage")).isEqualTo("true");
    assertThat(spark.conf().get("spark.sql.codegen.factoryMode")).isEqualTo("FALLBACK");

    assertThat(InterpretedMode.forNewRows(java.util.Optional.empty(), spark).interpreted())
        .isFalse();
    assertThat(InterpretedMode.forNewRows(java.util.Optional.of(10_001L), spark).interpreted())
        .isFalse();
  }
}
