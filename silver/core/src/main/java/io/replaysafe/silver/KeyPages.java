package io.replaysafe.silver;

import org.apache.spark.sql.SparkSession;

/**
 * Silver's Parquet files written in pages of at most {@link #rows()} rows while this is open, so
 * that a batch's key predicate ({@link StoredState.KeyBounds}) skips most of each file, not only
 * the files outside the batch's keys.
 *
 * <p>Why: a batch's rows are written sorted by key (the plan ranks each key's versions, so each
 * task's output is in key order), yet a file of 200,000 rows (what silver's compaction leaves) is
 * one row group whose key column Parquet cuts into pages of 20,000 rows by default, and a batch of
 * 10 events lands in most of them. With pages of 1,000 rows the page index Parquet writes beside
 * each column (min and max per page) lets Spark's reader skip the pages that hold none of the
 * batch's keys in the stored-state read and in Delta MERGE's writes of the modified rows and of the
 * deletion vectors: 0.16-0.35 s each instead of 0.89-1.87 s on such a file, fresh JVMs, 10 events
 * (2026-12-05). Delta's search for the touched files is not helped: it numbers the target's rows
 * ({@code monotonically_increasing_id}, {@code input_file_name}) before joining, and Spark pushes
 * no filter below that projection.
 *
 * <p>The cost is more page headers and page-index entries: the 200,000-row file 2 % larger, and
 * runs of 1,000 new events, which touch every page, took the same time with and without (18.8 s,
 * scripts/bench-scheduled). Readers need nothing: the page index is part of the Parquet format that
 * every Spark and Delta version reads, and a reader that ignores it reads every page.
 *
 * <p>The setting is the session's Hadoop-side key {@value #PAGE_ROWS}, which Spark copies into the
 * configuration of every write while it holds, including Delta's MERGE and OPTIMIZE and a streaming
 * query's session cloned from this one; {@link #close} unsets it, so what a scheduled bronze run
 * writes (read whole, once) keeps Parquet's default. The setting is the session's, not a table's:
 * in {@code run --continuous} bronze shares the session with a silver run that holds it for days,
 * and {@code maintain} compacts bronze's tables under it too, so those bronze files get the small
 * pages as well; only their page size differs. A session whose deployment chose a page size keeps
 * its own.
 */
public final class KeyPages implements AutoCloseable {
  static final String PAGE_ROWS = "parquet.page.row.count.limit";

  /** The most rows of a page; 0 leaves Parquet's default (20,000). */
  public static final String ROWS_PROPERTY = "replaysafe.silverPageRows";

  static final int ROWS_DEFAULT = 1000;

  private final SparkSession spark;
  // Whether this set the page size (the session had none); close() then unsets it.
  private boolean set;

  private KeyPages(SparkSession spark, boolean set) {
    this.spark = spark;
    this.set = set;
  }

  /** The most rows of a page silver writes ({@value #ROWS_PROPERTY}, default 1,000). */
  public static int rows() {
    return Integer.getInteger(ROWS_PROPERTY, ROWS_DEFAULT);
  }

  /** Small pages for what {@code spark} writes until {@link #close}. */
  public static KeyPages apply(SparkSession spark) {
    int rows = rows();
    if (rows <= 0
        || spark.conf().getOption(PAGE_ROWS).isDefined()
        || spark.sparkContext().hadoopConfiguration().get(PAGE_ROWS) != null) {
      return new KeyPages(spark, false);
    }
    spark.conf().set(PAGE_ROWS, String.valueOf(rows));
    return new KeyPages(spark, true);
  }

  /** Restores the session's setting (none); idempotent. */
  @Override
  public void close() {
    if (set) {
      spark.conf().unset(PAGE_ROWS);
      set = false;
    }
  }
}
