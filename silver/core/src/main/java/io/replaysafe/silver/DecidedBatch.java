package io.replaysafe.silver;

import static io.replaysafe.silver.BatchPreparation.KEY_DISPLAY;
import static io.replaysafe.silver.BatchPreparation.SEQ_DISPLAY;
import static io.replaysafe.silver.SilverContract.ACTION;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.to_json;

import io.replaysafe.common.ReservedNames;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Step 8 decided, before any write: the classified latest rows of a current-state batch, how many
 * keys got each action, and the notable decisions in words.
 *
 * @param rows the latest rows with their {@link SilverContract#ACTION}, safe to read after silver
 *     changed (collected or checkpointed)
 */
record DecidedBatch(Dataset<Row> rows, Map<MergeAction, Long> actions, List<Note> notes) {

  /**
   * A batch of up to this many rows (after exact retries collapse) is planned on the driver: its
   * plan is collected once instead of checkpointed, counted and queried for notes in three jobs.
   */
  static final long DRIVER_PLAN_ROWS = BatchCache.LOCAL_ROWS;

  private static final String STORED_SEQ_JSON = ReservedNames.TARGET_SEQ_JSON;

  DecidedBatch {
    actions = Map.copyOf(actions);
    notes = List.copyOf(notes);
  }

  long count(MergeAction... of) {
    return MergeAction.count(actions, of);
  }

  /** How many keys the plan decided. */
  long keys() {
    return actions.values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * Fixes {@code classified} ({@link MergeClassifier#classify}) so the writes cannot change it.
   * Checkpointed or collected, not cached: the MERGE into silver invalidates every cached plan that
   * read silver, and a recomputed plan would see the batch's own writes (a revived key would then
   * look like an exact retry to the tombstone MERGE).
   */
  static DecidedBatch of(SparkSession spark, Dataset<Row> classified, long rows, int maxNotes) {
    Dataset<Row> explained =
        classified.withColumn(STORED_SEQ_JSON, to_json(col(StoredState.T_SEQ)));
    Map<MergeAction, Long> actions = new EnumMap<>(MergeAction.class);
    if (rows <= DRIVER_PLAN_ROWS) {
      // A small batch is decided on the driver: one job collects the plan, which then counts its
      // actions and explains its decisions without another job, and the MERGE reads it as a local
      // relation whose size Spark knows.
      List<Row> collected = explained.collectAsList();
      int action = explained.schema().fieldIndex(ACTION);
      for (Row r : collected) {
        actions.merge(MergeAction.valueOf(r.getString(action)), 1L, Long::sum);
      }
      return new DecidedBatch(
          spark.createDataFrame(collected, explained.schema()),
          actions,
          notes(collected, explained.schema(), maxNotes));
    }
    Dataset<Row> plan = classified.localCheckpoint(true);
    for (Row r : plan.groupBy(ACTION).count().collectAsList()) {
      actions.put(MergeAction.valueOf(r.getString(0)), r.getLong(1));
    }
    List<Note> notes = List.of();
    if (MergeAction.count(actions, Note.NOTED) > 0) {
      Dataset<Row> noted =
          plan.where(MergeAction.in(Note.NOTED))
              .select(
                  col(ACTION),
                  col(KEY_DISPLAY),
                  col(SEQ_DISPLAY),
                  to_json(col(StoredState.T_SEQ)).as(STORED_SEQ_JSON))
              .orderBy(KEY_DISPLAY, SEQ_DISPLAY)
              .limit(maxNotes);
      notes = notes(noted.collectAsList(), noted.schema(), maxNotes);
    }
    return new DecidedBatch(plan, actions, notes);
  }

  /**
   * The notes of the first {@code max} noted rows in key and sequence order. Spark orders strings
   * by their UTF-8 bytes, so the notes come out as a Spark query sorts them.
   */
  static List<Note> notes(List<Row> plan, StructType schema, int max) {
    int action = schema.fieldIndex(ACTION);
    int key = schema.fieldIndex(KEY_DISPLAY);
    int seq = schema.fieldIndex(SEQ_DISPLAY);
    int stored = schema.fieldIndex(STORED_SEQ_JSON);
    Comparator<Row> order =
        Comparator.comparing((Row r) -> UTF8String.fromString(r.getString(key)))
            .thenComparing(r -> UTF8String.fromString(r.getString(seq)));
    Set<String> noted =
        Arrays.stream(Note.NOTED).map(MergeAction::name).collect(Collectors.toSet());
    return plan.stream()
        .filter(r -> noted.contains(r.getString(action)))
        .sorted(order)
        .limit(max)
        .map(
            r ->
                Note.ofAction(
                    MergeAction.valueOf(r.getString(action)),
                    r.getString(key),
                    r.getString(seq),
                    r.isNullAt(stored) ? null : r.getString(stored)))
        .toList();
  }
}
