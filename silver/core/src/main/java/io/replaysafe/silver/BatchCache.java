package io.replaysafe.silver;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.storage.StorageLevel;

/** The datasets one batch persists, released together when the batch ends. */
final class BatchCache implements AutoCloseable {
  private final List<Dataset<?>> cached = new ArrayList<>();

  Dataset<Row> persist(Dataset<Row> df) {
    Dataset<Row> persisted = df.persist(StorageLevel.MEMORY_AND_DISK());
    cached.add(persisted);
    return persisted;
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
