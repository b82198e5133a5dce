package io.replaysafe.common.spark;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * Spark's interpreted evaluation (no whole-stage code generation, interpreted projections and
 * predicates) for the queries of a run whose new data is small. A fresh JVM compiles every class a
 * query generates, cold, with Janino and then the JIT, and each batch's code carries its own
 * literals, so it is compiled anew: for a batch of a few rows that is most of a Spark job's time,
 * while interpreting a few thousand rows costs little. Large runs, and the compaction of a table's
 * files, keep code generation: interpreted, a rewrite of 200,000 rows took twice as long (measured
 * with scripts/bench-scheduled, 2026-12-04).
 *
 * <p>The settings are the session's and apply to what starts while they hold, including a streaming
 * query's own session, which Spark clones from this one when the query starts; {@link #close}
 * restores what the session had before.
 */
public final class InterpretedMode implements AutoCloseable {
  static final String WHOLE_STAGE = "spark.sql.codegen.wholeStage";
  static final String FACTORY_MODE = "spark.sql.codegen.factoryMode";

  /** The most new rows a run is interpreted for; 0 turns interpretation off. */
  public static final String MAX_ROWS_PROPERTY = "replaysafe.interpretedMaxRows";

  static final long MAX_ROWS_DEFAULT = 10_000;

  /** The most bytes of new files a bronze run is interpreted for; 0 turns interpretation off. */
  public static final String MAX_BYTES_PROPERTY = "replaysafe.interpretedMaxBytes";

  /** About 10,000 JSON events of 400 bytes. */
  static final long MAX_BYTES_DEFAULT = 4L * 1024 * 1024;

  /** Each session's settings before, by session; empty when this mode changes nothing. */
  private final Map<SparkSession, Map<String, Optional<String>>> before;

  private InterpretedMode(Map<SparkSession, Map<String, Optional<String>>> before) {
    this.before = before;
  }

  /** The most new rows a run is interpreted for ({@value #MAX_ROWS_PROPERTY}). */
  public static long maxRows() {
    return Long.getLong(MAX_ROWS_PROPERTY, MAX_ROWS_DEFAULT);
  }

  /**
   * Interpreted evaluation while the result is open, when {@code newRows} is known and at most
   * {@link #maxRows()}; otherwise a mode that changes nothing.
   */
  public static InterpretedMode forNewRows(Optional<Long> newRows, SparkSession... sessions) {
    return within(newRows, maxRows()) ? enter(sessions) : unchanged();
  }

  /** The most bytes of new files a bronze run is interpreted for ({@value #MAX_BYTES_PROPERTY}). */
  public static long maxBytes() {
    return Long.getLong(MAX_BYTES_PROPERTY, MAX_BYTES_DEFAULT);
  }

  /**
   * Interpreted evaluation while the result is open, when {@code newBytes} of new files are known
   * and at most {@link #maxBytes()} (and more than none); otherwise a mode that changes nothing.
   */
  public static InterpretedMode forNewBytes(Optional<Long> newBytes, SparkSession... sessions) {
    boolean small = within(newBytes, maxBytes()) && newBytes.get() > 0;
    return small ? enter(sessions) : unchanged();
  }

  /**
   * The most bytes of bronze's Parquet files a continuous silver batch is interpreted for; 0 turns
   * interpretation off.
   */
  public static final String MAX_BATCH_BYTES_PROPERTY = "replaysafe.interpretedMaxBatchBytes";

  /** Bronze's compressed Parquet: about 10,000 events. */
  static final long MAX_BATCH_BYTES_DEFAULT = 1024L * 1024;

  /**
   * Interpreted evaluation while the result is open, when the batch reads {@code batchBytes} of
   * files, known, at most {@value #MAX_BATCH_BYTES_PROPERTY} (default 1 MiB).
   */
  public static InterpretedMode forBatchBytes(Optional<Long> batchBytes, SparkSession... sessions) {
    long max = Long.getLong(MAX_BATCH_BYTES_PROPERTY, MAX_BATCH_BYTES_DEFAULT);
    return within(batchBytes, max) ? enter(sessions) : unchanged();
  }

  /** Whether {@code amount} is known and at most {@code max}; a bound of 0 turns it off. */
  private static boolean within(Optional<Long> amount, long max) {
    return max > 0 && amount.isPresent() && amount.get() <= max;
  }

  /** A mode that changes nothing. */
  private static InterpretedMode unchanged() {
    return new InterpretedMode(new LinkedHashMap<>());
  }

  /** Interpreted evaluation until {@link #close}. */
  static InterpretedMode enter(SparkSession... sessions) {
    Map<SparkSession, Map<String, Optional<String>>> before = new LinkedHashMap<>();
    for (SparkSession spark : sessions) {
      if (before.containsKey(spark)) {
        continue;
      }
      Map<String, Optional<String>> settings = new LinkedHashMap<>();
      for (String key : new String[] {WHOLE_STAGE, FACTORY_MODE}) {
        settings.put(key, Optional.ofNullable(spark.conf().getOption(key).getOrElse(() -> null)));
      }
      before.put(spark, settings);
      spark.conf().set(WHOLE_STAGE, "false");
      spark.conf().set(FACTORY_MODE, "NO_CODEGEN");
    }
    return new InterpretedMode(before);
  }

  /** Whether this mode interprets. */
  public boolean interpreted() {
    return !before.isEmpty();
  }

  /** Restores the session's code generation settings; idempotent. */
  @Override
  public void close() {
    before.forEach(
        (spark, settings) ->
            settings.forEach(
                (key, value) -> {
                  if (value.isPresent()) {
                    spark.conf().set(key, value.get());
                  } else {
                    spark.conf().unset(key);
                  }
                }));
    before.clear();
  }
}
