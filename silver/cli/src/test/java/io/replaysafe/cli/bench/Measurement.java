package io.replaysafe.cli.bench;

import java.util.List;
import java.util.Map;

/**
 * One measured run of one side: a fresh JVM's wall clock, CPU and peak RSS, the S3 requests it made
 * by kind (empty on local disk), the load average around it, and the seconds the job itself
 * reported for each layer (the rest of the wall clock is JVM start, class loading, the session and,
 * for replaysafe, the lease).
 */
record Measurement(
    Side side,
    Storage storage,
    Case runCase,
    int round,
    TimedChild.Cost cost,
    Map<String, Long> requests,
    Map<String, Map<String, Long>> requestAreas,
    double loadAtStart,
    double loadAtEnd,
    double bronzeSeconds,
    double silverSeconds) {
  /** The request kinds the counting proxy tells apart, in the order they are printed. */
  static final List<String> REQUEST_KINDS = List.of("LIST", "GET", "HEAD", "PUT", "POST", "DELETE");

  long totalRequests() {
    return requests.values().stream().mapToLong(Long::longValue).sum();
  }

  enum Side {
    REPLAYSAFE("replaysafe"),
    HAND_WRITTEN("hand-written");

    final String label;

    Side(String label) {
      this.label = label;
    }
  }

  enum Storage {
    LOCAL("local"),
    S3A("s3a");

    final String label;

    Storage(String label) {
      this.label = label;
    }
  }

  /** What landed before the run; {@link #PREPARE} builds the table and is not timed. */
  enum Case {
    PREPARE("prepare", 0),
    TEN("10 new", 10),
    THOUSAND("1,000 new", 1000),
    NOTHING("nothing new", 0);

    static final List<Case> TIMED = List.of(TEN, THOUSAND, NOTHING);

    final String label;
    final int events;

    Case(String label, int events) {
      this.label = label;
      this.events = events;
    }
  }
}
