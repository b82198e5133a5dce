package io.replaysafe.silver;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.storage.StorageLevel;

/**
 * The intermediate datasets one batch fixes for its later steps, released together when the batch
 * ends. A small one is collected into a local relation, a large one cached (see {@link #fix}).
 */
final class BatchCache implements AutoCloseable {
  /**
   * Up to this many rows an intermediate dataset is collected rather than cached: the queries that
   * read it afterwards plan and run over the driver's copy, whose size Spark knows, in a few small
   * jobs instead of the stages of a cached plan (the fixed cost that dominated a small batch).
   */
  static final long LOCAL_ROWS = 50_000;

  private final List<Dataset<?>> cached = new ArrayList<>();

  /** A dataset {@link #fixKeepingRows} fixed, and the driver's copy of its rows (else null). */
  record Fixed(Dataset<Row> rows, List<Row> collected) {}

  Dataset<Row> persist(Dataset<Row> df) {
    Dataset<Row> persisted = df.persist(StorageLevel.MEMORY_AND_DISK());
    cached.add(persisted);
    return persisted;
  }

  /**
   * {@code df} computed once for the rest of the batch. {@code atMost} bounds its row count when a
   * count already known bounds it (the batch's valid rows bound the rows derived from them), or is
   * negative when nothing does: a collect of at most {@link #LOCAL_ROWS} + 1 rows then finds out.
   */
  Dataset<Row> fix(Dataset<Row> df, long atMost) {
    return fixKeepingRows(df, atMost).rows();
  }

  /** As {@link #fix}, with the driver's copy of the rows when it collected them. */
  Fixed fixKeepingRows(Dataset<Row> df, long atMost) {
    if (atMost > LOCAL_ROWS) {
      return new Fixed(persist(df), null);
    }
    List<Row> rows =
        atMost < 0 ? df.limit((int) LOCAL_ROWS + 1).collectAsList() : df.collectAsList();
    if (rows.size() > LOCAL_ROWS) {
      return new Fixed(persist(df), null);
    }
    // One partition: it satisfies every grouping a later window, aggregate or join asks for, so
    // those run without a shuffle, in one job each instead of a job per adaptive stage.
    return new Fixed(df.sparkSession().createDataFrame(rows, df.schema()).coalesce(1), rows);
  }

  @Override
  public void close() {
    // Newest first: uncaching a dataset that later caches depend on makes Spark re-plan them.
    for (int i = cached.size() - 1; i >= 0; i--) {
      cached.get(i).unpersist();
    }
    cached.clear();
  }
}
