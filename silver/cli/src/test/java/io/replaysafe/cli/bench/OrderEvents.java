package io.replaysafe.cli.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The order events both sides of the benchmark ingest, as JSON lines, generated from a fixed seed
 * so every run of the benchmark delivers the same ones. Each key's {@code source_version} only
 * grows, so neither side ever sees an older version, an exact retry or a conflict: both contracts
 * agree on every event, and the silver tables must end with the same rows, {@link #liveKeys()} of
 * them.
 */
final class OrderEvents {
  static final String SCHEMA =
      "order_id BIGINT, source_version BIGINT, customer_id STRING, status STRING,"
          + " amount DOUBLE, currency STRING, updated_at TIMESTAMP, op STRING";
  private static final String[] STATUSES = {"created", "paid", "packed", "shipped", "delivered"};
  private static final String[] CURRENCIES = {"EUR", "USD", "GBP"};
  private static final Instant START = Instant.parse("2026-12-01T00:00:00Z");

  private final Random random = new Random(28);

  /** The latest version of each key (index: order_id); 0 for keys never delivered. */
  private long[] versions = new long[1024];

  /** Keys whose latest event is not a delete: the rows silver holds. */
  private final List<Long> live = new ArrayList<>();

  private long nextKey = 1;
  private long events;

  /** {@code rows} new orders, version 1 each, spread over {@code files} files. */
  List<String> initial(int rows, int files) {
    List<String> contents = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      StringBuilder lines = new StringBuilder();
      int count = rows / files + (f < rows % files ? 1 : 0);
      for (int i = 0; i < count; i++) {
        lines.append(upsert(newKey()));
      }
      contents.add(lines.toString());
    }
    return contents;
  }

  /**
   * One delivery of {@code size} events: 5% new orders, 5% deletes of stored orders, the rest
   * updates of stored orders drawn uniformly (so a MERGE touches files all over the table), each at
   * its key's next version.
   */
  String delivery(int size) {
    int fresh = Math.max(1, size / 20);
    int deletes = Math.max(1, size / 20);
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < size - fresh - deletes; i++) {
      lines.append(upsert(live.get(random.nextInt(live.size()))));
    }
    for (int i = 0; i < fresh; i++) {
      lines.append(upsert(newKey()));
    }
    for (int i = 0; i < deletes; i++) {
      // A swap-remove keeps drawing uniform among the keys still live.
      int at = random.nextInt(live.size());
      long key = live.get(at);
      live.set(at, live.get(live.size() - 1));
      live.remove(live.size() - 1);
      lines.append(event(key, "DELETE"));
    }
    return lines.toString();
  }

  /** The rows both silver tables hold after every delivery so far. */
  long liveKeys() {
    return live.size();
  }

  private long newKey() {
    long key = nextKey++;
    if (key >= versions.length) {
      versions = Arrays.copyOf(versions, versions.length * 2);
    }
    live.add(key);
    return key;
  }

  private String upsert(long key) {
    return event(key, "UPSERT");
  }

  private String event(long key, String op) {
    long version = ++versions[(int) key];
    events++;
    return String.format(
        Locale.ROOT,
        "{\"order_id\":%d,\"source_version\":%d,\"customer_id\":\"c%05d\",\"status\":\"%s\","
            + "\"amount\":%.2f,\"currency\":\"%s\",\"updated_at\":\"%s\",\"op\":\"%s\"}\n",
        key,
        version,
        key % 20_000,
        STATUSES[(int) Math.min(version - 1, STATUSES.length - 1)],
        random.nextInt(100_000) / 100.0,
        CURRENCIES[(int) (key % CURRENCIES.length)],
        START.plusSeconds(events),
        op);
  }
}
