package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.silver.RandomCdcStream.Event;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same events give the same tables however they are batched, the property Spark's AutoCDC
 * out-of-order convergence suites check: random CDC streams ({@link RandomCdcStream}) go through
 * the real path (files, a bronze run, a silver run per contract) in sequence order as one batch,
 * shuffled into 8 batches, in reverse order in 8 batches and (where only that holds) cut in order
 * into 8 batches; every table must equal the one-batch one, current state must equal the open
 * history records, and silver rebuilt from the same bronze (a new table and checkpoint, one batch)
 * must equal the table the runs wrote, provenance included.
 *
 * <p>Each way of batching is a copy of the same events under keys of its own (the key plus {@link
 * Copy#offset}) in one bronze table, and each seed's stream has keys of its own too: keys never
 * affect each other, so one pipeline run per batch serves every copy and seed. The whole class is
 * tagged slow (about four minutes on 2 cores: 8 rounds of a bronze and three silver runs per test),
 * so it runs in {@code -Pslow}, which CI runs after the README's suite. It runs {@value
 * #DEFAULT_SEEDS} seeds; {@code -Dreplaysafe.convergence.seeds=N} runs more, {@code
 * -Dreplaysafe.convergence.seed=S} starts from another seed (a failure names the one to use),
 * {@code -Dreplaysafe.convergence.keys} and {@code -Dreplaysafe.convergence.maxEventsPerKey} size
 * each stream.
 */
@Tag("slow")
class ConvergencePropertyTest extends SparkTestBase {
  static final int DEFAULT_SEEDS = 2;
  static final int BATCHES = 8;

  private static final String CONTRACT =
      "keys: [id]\nsequenceBy: [seq]\napplyAsDeletes: \"is_delete = true\"\n";
  private static final String HISTORY = "exceptColumnList: [is_delete]\nstoredAsScdType: 2\n";

  @TempDir Path dir;

  /** Each pipeline's silver section, for its rebuild. */
  private final Map<SilverHarness, String> contracts = new HashMap<>();

  /** A way of batching the same events, under keys moved by {@code offset}. */
  enum Copy {
    IN_ORDER_ONE_BATCH(10_000),
    SHUFFLED(20_000),
    REVERSED(30_000),
    IN_ORDER_CUT(40_000);

    final long offset;

    Copy(long offset) {
      this.offset = offset;
    }

    /** The batches of this copy, {@code events} being in sequence order. */
    List<List<Event>> batches(List<Event> events, Random random) {
      return switch (this) {
        case IN_ORDER_ONE_BATCH -> List.of(events);
        case SHUFFLED -> {
          List<Event> shuffled = new ArrayList<>(events);
          Collections.shuffle(shuffled, random);
          yield RandomCdcStream.slices(shuffled, BATCHES);
        }
        case REVERSED -> {
          List<Event> reversed = new ArrayList<>(events);
          Collections.reverse(reversed);
          yield RandomCdcStream.slices(reversed, BATCHES);
        }
        case IN_ORDER_CUT -> RandomCdcStream.slices(events, BATCHES);
      };
    }
  }

  @Test
  void historyAndCurrentStateWithAColumnListGiveTheInOrderTablesInAnyOrderAndARebuildAgrees() {
    SilverHarness current = pipeline("current", "columnList: [id, name, score, seq]\n");
    SilverHarness listed = pipeline("listed", HISTORY + "trackHistoryColumnList: [name, score]\n");
    SilverHarness except = pipeline("except", HISTORY + "trackHistoryExceptColumnList: [active]\n");
    List<SilverHarness> all = List.of(current, listed, except);
    List<Copy> copies = List.of(Copy.IN_ORDER_ONE_BATCH, Copy.SHUFFLED, Copy.REVERSED);
    String clue = deliver(current, all, copies);

    for (SilverHarness p : all) {
      for (Copy copy : copies) {
        assertThat(decided(p, copy))
            .as("%s, %s against one batch in order; %s", name(p), copy, clue)
            .isEqualTo(decided(p, Copy.IN_ORDER_ONE_BATCH));
      }
      assertRebuildAgrees(p, clue);
    }
    assertThat(decided(except, Copy.SHUFFLED)).as(clue).isEqualTo(decided(listed, Copy.SHUFFLED));
    for (SilverHarness history : List.of(listed, except)) {
      for (Copy copy : copies) {
        assertThat(openRecords(history, copy, current))
            .as("%s open records against current state, %s; %s", name(history), copy, clue)
            .isEqualTo(dataColumns(current, copy));
      }
    }
  }

  /**
   * {@code ignoreNullUpdates}: history converges in any order; current state, which keeps no
   * events, in any cut of the events in sequence order (a late event older than the stored row is
   * ignored as older, so the nulls it would have filled stay as they were).
   */
  @Test
  void nullUpdatesGiveTheInOrderTables() {
    SilverHarness current =
        pipeline("current_nulls", "exceptColumnList: [is_delete]\nignoreNullUpdates: true\n");
    SilverHarness history =
        pipeline(
            "history_nulls",
            HISTORY + "trackHistoryExceptColumnList: [active]\nignoreNullUpdates: true\n");
    List<SilverHarness> all = List.of(current, history);
    String clue = deliver(current, all, List.of(Copy.values()));

    for (Copy copy : Copy.values()) {
      assertThat(decided(history, copy))
          .as("history, %s against one batch in order; %s", copy, clue)
          .isEqualTo(decided(history, Copy.IN_ORDER_ONE_BATCH));
      assertThat(openRecords(history, copy, current))
          .as("open records against current state, %s; %s", copy, clue)
          .isEqualTo(dataColumns(current, Copy.IN_ORDER_ONE_BATCH));
    }
    assertThat(decided(current, Copy.IN_ORDER_CUT))
        .as("current state cut in order; %s", clue)
        .isEqualTo(decided(current, Copy.IN_ORDER_ONE_BATCH));
    assertRebuildAgrees(history, clue);
  }

  /**
   * {@code applyAsTruncates}: a truncate is table-wide, so each way of batching has a pipeline of
   * its own (its own bronze). One seed's stream with a truncate before about 3% of the events.
   */
  @Test
  void truncatesGiveTheInOrderTableInAnyOrder() {
    String contract = "exceptColumnList: [is_delete]\napplyAsTruncates: \"id IS NULL\"\n";
    long seed = Long.getLong("replaysafe.convergence.seed", 31L);
    int keys = Integer.getInteger("replaysafe.convergence.keys", 3);
    int maxEvents = Integer.getInteger("replaysafe.convergence.maxEventsPerKey", 80);
    Random random = new Random(seed);
    List<Event> events = RandomCdcStream.generate(random, 1, keys, maxEvents, 0.03);
    String clue =
        String.format(
            "seed %d (-Dreplaysafe.convergence.seed), %d keys of up to %d events, %d events",
            seed, keys, maxEvents, events.size());
    List<Copy> copies = List.of(Copy.IN_ORDER_ONE_BATCH, Copy.SHUFFLED, Copy.REVERSED);
    List<SilverHarness> pipelines = new ArrayList<>();
    List<List<List<Event>>> batches = new ArrayList<>();
    for (Copy copy : copies) {
      pipelines.add(
          new SilverHarness(
              spark,
              dir.resolve(copy.name()),
              "silver",
              RandomCdcStream.SCHEMA,
              CONTRACT + contract));
      batches.add(copy.batches(events, random));
    }
    for (int c = 0; c < copies.size(); c++) {
      for (List<Event> batch : batches.get(c)) {
        pipelines.get(c).deliver(batch.stream().map(e -> e.json(0)).toArray(String[]::new));
        pipelines.get(c).run();
      }
    }
    for (int c = 0; c < copies.size(); c++) {
      assertThat(decided(pipelines.get(c), 0))
          .as("%s against one batch in order; %s", copies.get(c), clue)
          .isEqualTo(decided(pipelines.get(0), 0));
    }
  }

  private SilverHarness pipeline(String silverName, String contract) {
    SilverHarness p =
        new SilverHarness(spark, dir, silverName, RandomCdcStream.SCHEMA, CONTRACT + contract);
    contracts.put(p, contract);
    return p;
  }

  /**
   * Generates every seed's stream and delivers each copy's batch {@code r} in run {@code r}: one
   * bronze run, then a silver run of each pipeline. Returns how to reproduce the streams.
   */
  private String deliver(SilverHarness bronze, List<SilverHarness> silvers, List<Copy> copies) {
    long baseSeed = Long.getLong("replaysafe.convergence.seed", 31L);
    int seeds = Integer.getInteger("replaysafe.convergence.seeds", DEFAULT_SEEDS);
    int keys = Integer.getInteger("replaysafe.convergence.keys", 3);
    int maxEvents = Integer.getInteger("replaysafe.convergence.maxEventsPerKey", 80);
    List<List<String>> rounds = new ArrayList<>();
    for (int r = 0; r < BATCHES; r++) {
      rounds.add(new ArrayList<>());
    }
    int total = 0;
    for (int s = 0; s < seeds; s++) {
      Random random = new Random(baseSeed + s);
      List<Event> events = RandomCdcStream.generate(random, 100L * s + 1, keys, maxEvents);
      total += events.size();
      for (Copy copy : copies) {
        List<List<Event>> batches = copy.batches(events, random);
        for (int r = 0; r < batches.size(); r++) {
          for (Event e : batches.get(r)) {
            rounds.get(r).add(e.json(copy.offset));
          }
        }
      }
    }
    for (List<String> round : rounds) {
      bronze.deliver(round.toArray(String[]::new));
      bronze.bronzeOnly();
      silvers.forEach(SilverHarness::silverOnly);
    }
    return String.format(
        "seeds %d from %d (-Dreplaysafe.convergence.seed=%d -Dreplaysafe.convergence.seeds=1"
            + " reproduces the first), %d keys of up to %d events each, %d events a copy",
        seeds, baseSeed, baseSeed, keys, maxEvents, total);
  }

  /** Silver rebuilt from the same bronze in one batch equals the table the runs wrote. */
  private void assertRebuildAgrees(SilverHarness incremental, String clue) {
    SilverHarness rebuilt = pipeline(name(incremental) + "_rebuilt", contracts.get(incremental));
    rebuilt.silverOnly();
    assertThat(content(rebuilt))
        .as("%s rebuilt from bronze against its runs; %s", name(incremental), clue)
        .isEqualTo(content(incremental));
  }

  private static String name(SilverHarness p) {
    return Path.of(p.config.requireSilver().path()).getFileName().toString();
  }

  /** The copy's rows as decided: every column but provenance and the applied-at time. */
  private static List<String> decided(SilverHarness p, Copy copy) {
    return decided(p, copy.offset);
  }

  private static List<String> decided(SilverHarness p, long offset) {
    Dataset<Row> s = p.silver();
    List<String> columns =
        Arrays.stream(s.columns())
            .filter(
                c ->
                    !List.of(
                            SilverContract.APPLIED_AT,
                            SilverContract.STORED_SOURCE_FILE,
                            SilverContract.BRONZE_VERSION)
                        .contains(c))
            .toList();
    return ofCopy(s, offset, columns);
  }

  /** Current state's business columns. */
  private static List<String> dataColumns(SilverHarness current, Copy copy) {
    return ofCopy(current.silver(), copy.offset, current.config.silverColumns());
  }

  /** The open history records on current state's business columns. */
  private static List<String> openRecords(SilverHarness history, Copy copy, SilverHarness current) {
    return ofCopy(
        history.silver().where(SilverContract.END_AT + " IS NULL"),
        copy.offset,
        current.config.silverColumns());
  }

  /** Every row and column but the applied-at time. */
  private static List<String> content(SilverHarness p) {
    Dataset<Row> s = p.silver().drop(SilverContract.APPLIED_AT);
    return sorted(rowsOf(s));
  }

  /** The copy's rows with its keys moved back, sorted: copies compare row for row. */
  private static List<String> ofCopy(Dataset<Row> table, long offset, List<String> columns) {
    String[] select =
        columns.stream()
            .map(c -> c.equals("id") ? "id - " + offset + " AS id" : "`" + c + "`")
            .toArray(String[]::new);
    return sorted(
        rowsOf(
            table.where("id >= " + offset + " AND id < " + (offset + 10_000)).selectExpr(select)));
  }

  private static List<String> sorted(List<String> rows) {
    return rows.stream().sorted(Comparator.naturalOrder()).toList();
  }
}
