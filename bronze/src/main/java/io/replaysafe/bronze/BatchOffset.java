package io.replaysafe.bronze;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.replaysafe.common.io.Json;
import org.apache.spark.sql.execution.streaming.Offset;

/**
 * The bronze source's offset: the number of the last batch planned, written {@code {"logOffset":N}}
 * as Spark's file source wrote its own, so a checkpoint that source wrote goes on from the same
 * offsets after the upgrade.
 */
final class BatchOffset extends Offset {
  private final long batch;

  BatchOffset(long batch) {
    this.batch = batch;
  }

  long batch() {
    return batch;
  }

  /** The batch of any offset Spark hands back: this class, or one read from the offset log. */
  static long of(org.apache.spark.sql.connector.read.streaming.Offset offset) {
    if (offset instanceof BatchOffset b) {
      return b.batch;
    }
    try {
      return Json.mapper().readTree(offset.json()).path("logOffset").asLong();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Not a bronze source offset: " + offset.json(), e);
    }
  }

  @Override
  public String json() {
    return "{\"logOffset\":" + batch + "}";
  }
}
