package io.replaysafe.silver;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * Every way a handful of events can reach silver: each ordered partition of the events into runs
 * (all in one run, each alone in either order, ...), 3 for two events and 13 for three. The
 * batchings share one pipeline, each with a key of its own, so that {@link #deliver} needs only as
 * many runs as the longest batching has batches: round {@code r} lands every batching's batch
 * {@code r} in one file, and keys never affect each other.
 */
final class Batchings {
  /** Event {@code i}'s line for key {@code id}. */
  private final List<LongFunction<String>> events;

  /** Each batching: its batches, each the indexes of its events. */
  final List<List<List<Integer>>> batchings;

  Batchings(List<LongFunction<String>> events) {
    this.events = List.copyOf(events);
    this.batchings = orderedPartitions(events.size());
  }

  /** The key of batching {@code b}. */
  static long key(int b) {
    return 100 + b;
  }

  /** Lands each round's batches in one file and runs bronze then silver for every pipeline. */
  void deliver(SilverHarness bronze, List<SilverHarness> silvers) {
    int rounds = batchings.stream().mapToInt(List::size).max().orElse(0);
    for (int r = 0; r < rounds; r++) {
      List<String> lines = new ArrayList<>();
      for (int b = 0; b < batchings.size(); b++) {
        if (r < batchings.get(b).size()) {
          for (int event : batchings.get(b).get(r)) {
            lines.add(events.get(event).apply(key(b)));
          }
        }
      }
      bronze.deliver(lines.toArray(String[]::new));
      bronze.bronzeOnly();
      silvers.forEach(SilverHarness::silverOnly);
    }
  }

  /**
   * Whether batching {@code b} delivers the events in their listed (sequence) order: every event of
   * a batch comes before every event of the next.
   */
  boolean inSequenceOrder(int b) {
    List<List<Integer>> batches = batchings.get(b);
    for (int r = 1; r < batches.size(); r++) {
      List<Integer> before = batches.get(r - 1);
      if (before.get(before.size() - 1) > batches.get(r).get(0)) {
        return false;
      }
    }
    return true;
  }

  /** How batching {@code b} cut the events, for failure messages: "[0, 2] then [1]". */
  String describe(int b) {
    return String.join(" then ", batchings.get(b).stream().map(List::toString).toList());
  }

  /**
   * Ordered partitions of events 0..n-1: each event gets a batch number, the numbers used are
   * 0..m-1, and each batch lists its events in index order.
   */
  static List<List<List<Integer>>> orderedPartitions(int n) {
    List<List<List<Integer>>> result = new ArrayList<>();
    int[] batchOf = new int[n];
    int combinations = (int) Math.pow(n, n);
    for (int code = 0; code < combinations; code++) {
      int rest = code;
      int batches = 0;
      for (int i = 0; i < n; i++) {
        batchOf[i] = rest % n;
        rest /= n;
        batches = Math.max(batches, batchOf[i] + 1);
      }
      List<List<Integer>> partition = new ArrayList<>();
      for (int b = 0; b < batches; b++) {
        partition.add(new ArrayList<>());
      }
      for (int i = 0; i < n; i++) {
        partition.get(batchOf[i]).add(i);
      }
      if (partition.stream().noneMatch(List::isEmpty)) {
        result.add(partition);
      }
    }
    return result;
  }
}
