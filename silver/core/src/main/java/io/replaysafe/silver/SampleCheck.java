package io.replaysafe.silver;

import static io.replaysafe.silver.BatchPreparation.INVALID_MESSAGE;
import static io.replaysafe.silver.BatchPreparation.INVALID_REASON;
import static io.replaysafe.silver.BatchPreparation.KEY_DISPLAY;
import static io.replaysafe.silver.BatchPreparation.SEQ_DISPLAY;
import static io.replaysafe.silver.SilverContract.COMMIT_VERSION;
import static io.replaysafe.silver.SilverContract.PAYLOAD_HASH;
import static io.replaysafe.silver.SilverContract.RAW_PAYLOAD;
import static io.replaysafe.silver.SilverContract.SEQ;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_set;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sort_array;
import static org.apache.spark.sql.functions.substring;

import io.replaysafe.common.Columns;
import io.replaysafe.common.spark.SqlNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * The silver contract's checks on a sample of bronze rows, without a target and without writing:
 * the same identity, validation, exact-retry and in-batch conflict steps a silver batch runs
 * ({@link BatchPreparation}), so a dry run finds what the first real batch would quarantine or
 * reject. Conflicts with rows silver already stores are not looked for: the sample has no target.
 *
 * @param invalidByReason invalid rows per reason ({@code INVALID_NULL_KEY}, ...), by name
 * @param exactRetries rows that would collapse into another row (same key, sequence and payload)
 * @param conflicts (key, sequence) pairs carrying more than one payload in the sample
 * @param truncateEvents rows {@code applyAsTruncates} would treat as table-wide truncates
 */
public record SampleCheck(
    long rows,
    Map<String, Invalid> invalidByReason,
    long exactRetries,
    long conflicts,
    List<String> conflictExamples,
    long truncateEvents) {
  public static final int EXAMPLES = 3;

  /** Invalid rows of one reason and the first examples ("message in file: payload"). */
  public record Invalid(long rows, List<String> examples) {}

  public SampleCheck {
    invalidByReason = Collections.unmodifiableMap(new TreeMap<>(invalidByReason));
    conflictExamples = List.copyOf(conflictExamples);
  }

  public long invalidRows() {
    return invalidByReason.values().stream().mapToLong(Invalid::rows).sum();
  }

  /** True when the batch would apply every row: nothing invalid, no conflict. */
  public boolean clean() {
    return invalidRows() == 0 && conflicts == 0;
  }

  /** Runs the contract's per-batch checks on bronze rows (as bronze writes them). */
  public static SampleCheck of(
      SparkSession spark, Dataset<Row> bronzeRows, SilverContract contract) {
    List<Dataset<Row>> cached = new ArrayList<>();
    try {
      Dataset<Row> identified =
          BatchPreparation.identity(
              bronzeRows.withColumn(COMMIT_VERSION, lit(null).cast("long")), contract);
      long truncateEvents = 0;
      Truncates truncates = new Truncates(spark, contract);
      if (truncates.enabled()) {
        // As in a silver batch: truncate events carry no key and are not validated as key events.
        Column isTruncate = truncates.isTruncate().and(col(SEQ).isNotNull());
        truncateEvents = identified.where(isTruncate).count();
        identified = identified.where(org.apache.spark.sql.functions.not(isTruncate));
      }
      Dataset<Row> prepared = cache(BatchPreparation.validate(identified, contract), cached);
      long rows = prepared.count() + truncateEvents;

      Map<String, Invalid> invalid = new TreeMap<>();
      Dataset<Row> invalidRows = prepared.where(col(INVALID_REASON).isNotNull());
      for (Row r : invalidRows.groupBy(INVALID_REASON).count().collectAsList()) {
        String reason = r.getString(0);
        List<String> examples = new ArrayList<>();
        for (Row e :
            invalidRows
                .where(col(INVALID_REASON).equalTo(reason))
                .select(INVALID_MESSAGE, Columns.SOURCE_FILE, RAW_PAYLOAD)
                .orderBy(Columns.SOURCE_FILE, RAW_PAYLOAD)
                .limit(EXAMPLES)
                .collectAsList()) {
          examples.add(
              e.getString(0)
                  + " in "
                  + e.getString(1)
                  + " ("
                  + contract.pipeline().evidence().show(e.getString(2))
                  + ")");
        }
        invalid.put(reason, new Invalid(r.getLong(1), examples));
      }

      Dataset<Row> valid = prepared.where(BatchPreparation.isValidEvent());
      long validCount = valid.count();
      Dataset<Row> collapsed = cache(BatchPreparation.collapseRetries(valid, contract), cached);
      long exactRetries = validCount - collapsed.count();
      Dataset<Row> inBatch = cache(BatchPreparation.conflictsInBatch(collapsed, contract), cached);
      long conflicts = inBatch.count();
      List<String> conflictExamples = new ArrayList<>();
      if (conflicts > 0) {
        List<String> pair = new ArrayList<>(contract.keys());
        pair.add(SEQ);
        for (Row r :
            valid
                .join(inBatch, SqlNames.seq(pair), "left_semi")
                .groupBy(col(KEY_DISPLAY), col(SEQ_DISPLAY))
                .agg(
                    sort_array(collect_set(substring(col(PAYLOAD_HASH), 1, 12))).as("hashes"),
                    sort_array(collect_set(col(Columns.SOURCE_FILE))).as("files"))
                .select(
                    col(KEY_DISPLAY),
                    col(SEQ_DISPLAY),
                    concat_ws(", ", col("hashes")),
                    concat_ws(", ", col("files")))
                .orderBy(KEY_DISPLAY, SEQ_DISPLAY)
                .limit(EXAMPLES)
                .collectAsList()) {
          conflictExamples.add(
              "key "
                  + r.getString(0)
                  + " sequence "
                  + r.getString(1)
                  + " has different payloads (hashes "
                  + r.getString(2)
                  + ") in "
                  + r.getString(3));
        }
      }
      return new SampleCheck(
          rows, invalid, exactRetries, conflicts, conflictExamples, truncateEvents);
    } finally {
      for (int i = cached.size() - 1; i >= 0; i--) {
        cached.get(i).unpersist();
      }
    }
  }

  private static Dataset<Row> cache(Dataset<Row> df, List<Dataset<Row>> cached) {
    Dataset<Row> persisted = df.persist(StorageLevel.MEMORY_AND_DISK());
    cached.add(persisted);
    return persisted;
  }
}
