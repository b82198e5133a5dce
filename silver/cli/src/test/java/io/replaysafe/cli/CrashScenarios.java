package io.replaysafe.cli;

import static io.replaysafe.cli.CrashMatrix.delete;
import static io.replaysafe.cli.CrashMatrix.orders;

import io.replaysafe.cli.CrashMatrix.Pipeline;
import io.replaysafe.cli.CrashMatrix.Step;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The crash matrix's two scenarios. The second delivery reaches every silver write of a batch at
 * once: an update, an older version, a delete, an in-batch conflict, a conflict with the stored
 * version, an insert, a revived key, an exact retry, invalid and malformed rows, and (current state
 * only) a truncate. The operations that follow write too: release, discard, reconcile, repair,
 * erase (then deliveries of the erased key, older and newer).
 */
final class CrashScenarios {
  static final String SCD1 = "scd1";
  static final String SCD2 = "scd2";
  static final int DELIVERY_2 = 1;

  private static final Map<String, Map<String, List<String>>> FAULT_FREE = new HashMap<>();

  private CrashScenarios() {}

  static String silverYaml(String scenario) {
    String common =
        "keys: [order_id]\nsequenceBy: [source_version]\napplyAsDeletes: \"op = 'DELETE'\"\n"
            + "exceptColumnList: [op]\nonConflict: quarantine\nonInvalid: quarantine\n";
    return SCD1.equals(scenario)
        ? common + "applyAsTruncates: \"op = 'TRUNCATE'\"\n"
        : common + "storedAsScdType: 2\n";
  }

  static List<Step> steps(String scenario) {
    boolean currentState = SCD1.equals(scenario);
    List<String> second =
        new java.util.ArrayList<>(
            List.of(
                orders(1, 11, "Shipped"),
                orders(1, 11, "Shipped"),
                orders(2, 9, "Old"),
                delete(3, 11),
                orders(4, 12, "Alpha"),
                orders(4, 12, "Beta"),
                orders(6, 20, "New"),
                orders(7, 10, "Changed"),
                orders(8, 11, "Back"),
                "{\"order_id\":null,\"source_version\":3,\"status\":\"x\",\"op\":\"UPSERT\"}",
                "not json"));
    if (currentState) {
      second.add("{\"order_id\":null,\"source_version\":5,\"op\":\"TRUNCATE\"}");
    }
    List<Step> steps =
        new java.util.ArrayList<>(
            List.of(
                new Step(
                    "delivery 1",
                    List.of(
                        orders(1, 10, "Created"),
                        orders(2, 10, "Created"),
                        orders(3, 10, "Created"),
                        orders(4, 10, "Created"),
                        orders(5, 1, "Created"),
                        orders(7, 10, "Created"),
                        delete(8, 10)),
                    CrashScenarios::run),
                new Step("delivery 2", second, CrashScenarios::run),
                new Step(
                    "delivery 3",
                    List.of(orders(3, 5, "Ghost"), orders(9, 30, "New"), orders(2, 9, "Old")),
                    CrashScenarios::run)));
    if (currentState) {
      steps.add(
          new Step(
              "release",
              List.of(),
              p -> decision(p, "release", p.quarantineId("Alpha"), "producer confirmed Alpha")));
    }
    steps.add(
        new Step(
            "discard",
            List.of(),
            p -> decision(p, "discard", p.quarantineId("Beta"), "Beta was a test event")));
    if (currentState) {
      steps.add(
          new Step(
              "reconcile",
              List.of(),
              p ->
                  List.of(
                      "reconcile",
                      "--config",
                      p.file().toString(),
                      "--source-keys",
                      sourceKeys(p).toString(),
                      "--apply")));
      steps.add(
          new Step(
              "repair",
              List.of(),
              p -> List.of("repair", "--config", p.file().toString(), "--keys", "1,2"),
              CrashScenarios::loseTheUpdateOfKey1));
    }
    steps.add(
        new Step(
            "erase",
            List.of(),
            p -> List.of("erase", "--config", p.file().toString(), "--keys", "7", "--by", "dpo")));
    // An older event of the erased key, then a newer one: ignored, then applied.
    steps.add(
        new Step(
            "delivery 4",
            List.of(orders(7, 9, "Late"), orders(5, 2, "Paid")),
            CrashScenarios::run));
    steps.add(new Step("delivery 5", List.of(orders(7, 40, "Returned")), CrashScenarios::run));
    return steps;
  }

  /**
   * A scheduled run between a crashed operation and its rerun: a new key and a newer version of key
   * 9, which no operation touches, so silver's newest commit is the run's, not the crashed
   * operation's.
   */
  static final Step RUN_BETWEEN =
      new Step(
          "run between",
          List.of(orders(10, 1, "Between"), orders(9, 31, "Newer")),
          CrashScenarios::run);

  /**
   * The tables of the scenario without faults and with {@link #RUN_BETWEEN} before {@code step}.
   */
  static synchronized Map<String, List<String>> faultFreeWithBetween(
      SparkSession spark, Path dir, String scenario, String step) throws IOException {
    String key = scenario + " with a run before " + step;
    Map<String, List<String>> cached = FAULT_FREE.get(key);
    if (cached == null) {
      Pipeline p =
          CrashMatrix.create(
              spark,
              dir.resolve("fault-free-" + scenario + "-between-" + step.replace(' ', '-')),
              silverYaml(scenario));
      cached =
          CrashMatrix.faultFree(
              p, CrashMatrix.withBetween(steps(scenario), stepIndex(scenario, step), RUN_BETWEEN));
      FAULT_FREE.put(key, cached);
    }
    return cached;
  }

  static int stepIndex(String scenario, String name) {
    List<Step> steps = steps(scenario);
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException(name);
  }

  /**
   * A lost update, as seed 003's stale totals: silver holds key 1 as delivery 1 left it (version
   * 10, "Created") though bronze holds version 11. The repair of keys 1 and 2 then has a row to
   * change (key 2 is already right), so it reaches {@code silver-after-merge}; without this it
   * changed nothing, wrote no MERGE and never reached that point.
   */
  private static void loseTheUpdateOfKey1(Pipeline p) {
    String silver = p.dir().resolve("silver").toString();
    long version = 0;
    while (p.spark()
        .read()
        .format("delta")
        .option("versionAsOf", version)
        .load(silver)
        .where("order_id = 1")
        .isEmpty()) {
      version++;
    }
    p.spark()
        .read()
        .format("delta")
        .option("versionAsOf", version)
        .load(silver)
        .where("order_id = 1")
        .createOrReplaceTempView("key_1_as_first_applied");
    io.delta.tables.DeltaTable.forPath(p.spark(), silver)
        .as("t")
        .merge(p.spark().table("key_1_as_first_applied").as("s"), "t.order_id = s.order_id")
        .whenMatched()
        .updateAll()
        .execute();
  }

  /**
   * Whether a crash at {@code point} during {@code step} comes after the command finished: a repair
   * killed after its run-log row has repaired its keys, so its rerun is a second repair (of keys
   * that are now right: it changes nothing and logs a second row). Its fault-free counterpart runs
   * the step twice ({@link #faultFreeWithRerun}).
   */
  static boolean rerunIsASecondCommand(String step, String point) {
    return "repair".equals(step)
        && io.replaysafe.common.CrashPoints.SILVER_AFTER_RUN_LOG.equals(point);
  }

  /**
   * The tables of the scenario without faults, with {@link #RUN_BETWEEN} before {@code step} when
   * {@code between}; when {@code twice}, {@code step} runs a second time (without its arrival)
   * right after itself, or after the run between.
   */
  static synchronized Map<String, List<String>> faultFree(
      SparkSession spark, Path dir, String scenario, String step, boolean between, boolean twice)
      throws IOException {
    if (!between && !twice) {
      return faultFree(spark, dir, scenario);
    }
    if (between && !twice) {
      return faultFreeWithBetween(spark, dir, scenario, step);
    }
    String key = scenario + (between ? " with a run and" : " with") + " a rerun of " + step;
    Map<String, List<String>> cached = FAULT_FREE.get(key);
    if (cached == null) {
      List<Step> steps = steps(scenario);
      int index = stepIndex(scenario, step);
      Step original = steps.get(index);
      // The crashed command finished, then the run between came, then the rerun: in that order.
      steps =
          CrashMatrix.withBetween(steps, index + 1, new Step(step, List.of(), original.command()));
      if (between) {
        steps = CrashMatrix.withBetween(steps, index + 1, RUN_BETWEEN);
      }
      Pipeline p =
          CrashMatrix.create(
              spark,
              dir.resolve(
                  "fault-free-"
                      + scenario
                      + (between ? "-between" : "")
                      + "-twice-"
                      + step.replace(' ', '-')),
              silverYaml(scenario));
      cached = CrashMatrix.faultFree(p, steps);
      FAULT_FREE.put(key, cached);
    }
    return cached;
  }

  private static List<String> run(Pipeline p) {
    return List.of("run", "--config", p.file().toString());
  }

  private static List<String> decision(Pipeline p, String what, String id, String why) {
    return List.of(
        "quarantine",
        what,
        "--config",
        p.file().toString(),
        "--ids",
        id,
        "--by",
        "oncall@example.com",
        "--reason",
        why);
  }

  /** Every key except 6 (the run between's 10 included): reconcile deletes order 6. */
  private static Path sourceKeys(Pipeline p) {
    try {
      return Files.writeString(p.dir().resolve("source-keys.txt"), "1\n2\n3\n4\n5\n7\n8\n9\n10\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The tables after the scenario without faults, computed once per test JVM. */
  static synchronized Map<String, List<String>> faultFree(
      SparkSession spark, Path dir, String scenario) throws IOException {
    Map<String, List<String>> cached = FAULT_FREE.get(scenario);
    if (cached == null) {
      Pipeline p =
          CrashMatrix.create(spark, dir.resolve("fault-free-" + scenario), silverYaml(scenario));
      cached = CrashMatrix.faultFree(p, steps(scenario));
      FAULT_FREE.put(scenario, cached);
    }
    return cached;
  }
}
