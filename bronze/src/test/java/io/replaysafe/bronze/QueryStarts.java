package io.replaysafe.bronze;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryListener;

/**
 * The names of the streaming queries started while it listens. Spark tells a listener of a query's
 * start on the thread that starts it, before {@code start()} returns, so the list is complete when
 * the run that started them returned.
 */
final class QueryStarts extends StreamingQueryListener implements AutoCloseable {
  private final SparkSession spark;
  private final List<String> names = new CopyOnWriteArrayList<>();

  private QueryStarts(SparkSession spark) {
    this.spark = spark;
  }

  static QueryStarts listen(SparkSession spark) {
    QueryStarts starts = new QueryStarts(spark);
    spark.streams().addListener(starts);
    return starts;
  }

  List<String> names() {
    return List.copyOf(names);
  }

  void clear() {
    names.clear();
  }

  @Override
  public void onQueryStarted(QueryStartedEvent event) {
    names.add(String.valueOf(event.name()));
  }

  @Override
  public void onQueryProgress(QueryProgressEvent event) {}

  @Override
  public void onQueryTerminated(QueryTerminatedEvent event) {}

  @Override
  public void close() {
    spark.streams().removeListener(this);
  }
}
