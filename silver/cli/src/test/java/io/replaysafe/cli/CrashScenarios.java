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
              p -> List.of("repair", "--config", p.file().toString(), "--keys", "1,2")));
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
