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
  // The driver's copy of each dataset fix collected, by identity.
  private final java.util.Map<Dataset<Row>, List<Row>> collected =
      new java.util.IdentityHashMap<>();

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
    if (atMost > LOCAL_ROWS) {
      return persist(df);
    }
    List<Row> rows =
        atMost < 0 ? df.limit((int) LOCAL_ROWS + 1).collectAsList() : df.collectAsList();
    if (rows.size() > LOCAL_ROWS) {
      return persist(df);
    }
    // One partition: it satisfies every grouping a later window, aggregate or join asks for, so
    // those run without a shuffle, in one job each instead of a job per adaptive stage.
    Dataset<Row> local = df.sparkSession().createDataFrame(rows, df.schema()).coalesce(1);
    collected.put(local, List.copyOf(rows));
    return local;
  }

  /** The rows of {@code fixed} when {@link #fix} collected them to the driver; null otherwise. */
  List<Row> collected(Dataset<Row> fixed) {
    return collected.get(fixed);
  }

  @Override
  public void close() {
    // Newest first: uncaching a dataset that later caches depend on makes Spark re-plan them.
    for (int i = cached.size() - 1; i >= 0; i--) {
      cached.get(i).unpersist();
    }
    cached.clear();
    collected.clear();
  }
}
