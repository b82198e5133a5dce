package io.replaysafe.cli.bench;

import java.util.Locale;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * After the runs: both sides' silver tables on one storage must hold the rows the events leave
 * (every key whose latest event is not a delete), at the same versions. A benchmark whose sides
 * diverge measured two different jobs, and says so.
 */
final class SilverCheck {
  record Outcome(long replaysafe, long handWritten, long expected, long differing) {
    boolean agrees() {
      return replaysafe == expected && handWritten == expected && differing == 0;
    }

    String line(String storage) {
      return String.format(
          Locale.ROOT,
          "silver rows, %s: replaysafe %,d, hand-written %,d, expected %,d;"
              + " (order_id, source_version) on one side only: %,d%s",
          storage,
          replaysafe,
          handWritten,
          expected,
          differing,
          agrees() ? "" : ": the two sides DIVERGE");
    }
  }

  private SilverCheck() {}

  static Outcome compare(SparkSession spark, String replaysafe, String handWritten, long expected) {
    Dataset<Row> rs = versions(spark, replaysafe);
    Dataset<Row> hw = versions(spark, handWritten);
    return new Outcome(
        rs.count(), hw.count(), expected, rs.except(hw).count() + hw.except(rs).count());
  }

  /**
   * replaysafe's table alone (bench-scheduled --replaysafe-only): the hand-written side is reported
   * as holding the expected rows, so only replaysafe's count can disagree.
   */
  static Outcome alone(SparkSession spark, String replaysafe, long expected) {
    return new Outcome(versions(spark, replaysafe).count(), expected, expected, 0);
  }

  private static Dataset<Row> versions(SparkSession spark, String table) {
    return spark.read().format("delta").load(table).select("order_id", "source_version");
  }
}
