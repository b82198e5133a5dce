package io.replaysafe.cli.bench;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The order events of {@code scripts/bench-freshness} (issue 27), one file per delivery, and the
 * generator's own oracle of silver's final state. Keys are drawn from 2 million, as seed 003's
 * stream: 60% a key drawn uniformly (a new order, or the next version of one seen before), 25% the
 * next version of a key seen before, 5% deletes of a live key, 5% older versions (a version below
 * the key's latest that was never delivered) and 5% exact replays of an event of an earlier file.
 *
 * <p>Versions step by 10, so an older version ({@code latest - 5}) is never one delivered before.
 * Every payload is a function of (key, version, kind): two events with the same key and version are
 * always identical, so the contract never sees a conflict, and the final state is the event with
 * each key's highest version, absent when that event is a delete, whatever order the events are
 * applied in. Not thread-safe: one generator thread calls {@link #nextFile}, the reader calls the
 * rest after the generator stopped (or under the caller's own lock).
 */
final class FreshnessEvents {
  static final String SCHEMA = OrderEvents.SCHEMA;
  static final long KEY_SPACE = 2_000_000;
  private static final long STEP = 10;
  private static final int REPLAY_WINDOW = 2_000;
  private static final String[] STATUSES = {"created", "paid", "packed", "shipped", "delivered"};
  private static final String[] CURRENCIES = {"EUR", "USD", "GBP"};
  private static final Instant START = Instant.parse("2026-12-01T00:00:00Z");

  enum Kind {
    NEW,
    UPDATE,
    DELETE,
    OLDER,
    REPLAY
  }

  /** One event of one file; {@code file} is its index in {@link #fileNames()}. */
  record Event(int file, long key, long version, boolean delete, Kind kind) {}

  /** A key's latest version, and whether that version is a delete. */
  private static final class Latest {
    long version;
    boolean deleted;
  }

  private final Random random;
  private final Map<Long, Latest> latest = new HashMap<>();
  private final List<Long> touched = new ArrayList<>();
  private final List<Event> events = new ArrayList<>();
  private final List<String> fileNames = new ArrayList<>();
  private final List<Instant> landedAt = new ArrayList<>();

  /** The lines of the last events of earlier files, for exact replays. */
  private final List<String> recentLines = new ArrayList<>();

  private final List<Event> recentEvents = new ArrayList<>();
  private final Map<Kind, Long> kinds = new EnumMap<>(Kind.class);

  FreshnessEvents(long seed) {
    this.random = new Random(seed);
    for (Kind k : Kind.values()) {
      kinds.put(k, 0L);
    }
  }

  /** The name and content of the next file; {@link #landed} records when it landed. */
  record File(int index, String name, byte[] content) {}

  File nextFile(int size) {
    int index = fileNames.size();
    String name = String.format(Locale.ROOT, "orders-%06d.json", index);
    StringBuilder lines = new StringBuilder();
    List<String> fileLines = new ArrayList<>();
    List<Event> fileEvents = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      int draw = random.nextInt(100);
      Event event;
      String line;
      if (draw < 5 && !recentLines.isEmpty()) {
        int at = random.nextInt(recentLines.size());
        Event original = recentEvents.get(at);
        event =
            new Event(index, original.key(), original.version(), original.delete(), Kind.REPLAY);
        line = recentLines.get(at);
      } else if (draw < 10 && !touched.isEmpty()) {
        long key = touched.get(random.nextInt(touched.size()));
        long version = latest.get(key).version - STEP / 2;
        event = new Event(index, key, version, false, Kind.OLDER);
        line = line(key, version, Kind.OLDER);
      } else if (draw < 15 && !touched.isEmpty()) {
        long key = liveKey();
        if (key < 0) {
          event = next(index, randomKey(), false);
        } else {
          event = next(index, key, true);
        }
        line = line(event.key(), event.version(), event.kind());
      } else if (draw < 40 && !touched.isEmpty()) {
        event = next(index, touched.get(random.nextInt(touched.size())), false);
        line = line(event.key(), event.version(), event.kind());
      } else {
        event = next(index, randomKey(), false);
        line = line(event.key(), event.version(), event.kind());
      }
      kinds.merge(event.kind(), 1L, Long::sum);
      events.add(event);
      fileEvents.add(event);
      fileLines.add(line);
      lines.append(line);
    }
    // Replays come from earlier files only: an event and its replay never share a file.
    recentLines.addAll(fileLines);
    recentEvents.addAll(fileEvents);
    if (recentLines.size() > REPLAY_WINDOW) {
      int drop = recentLines.size() - REPLAY_WINDOW;
      recentLines.subList(0, drop).clear();
      recentEvents.subList(0, drop).clear();
    }
    fileNames.add(name);
    landedAt.add(null);
    return new File(index, name, lines.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** When file {@code index} was in place in the landing zone, by this JVM's clock. */
  void landed(int index, Instant at) {
    landedAt.set(index, at);
  }

  private long randomKey() {
    return 1 + (long) (random.nextDouble() * KEY_SPACE);
  }

  /** A key seen before whose latest event is not a delete, or -1 after a few misses. */
  private long liveKey() {
    for (int attempt = 0; attempt < 8; attempt++) {
      long key = touched.get(random.nextInt(touched.size()));
      if (!latest.get(key).deleted) {
        return key;
      }
    }
    return -1;
  }

  /** The key's next version: a new order, an update (or a revival after a delete), a delete. */
  private Event next(int file, long key, boolean delete) {
    Latest l = latest.get(key);
    Kind kind;
    if (l == null) {
      l = new Latest();
      latest.put(key, l);
      touched.add(key);
      kind = delete ? Kind.DELETE : Kind.NEW;
    } else {
      kind = delete ? Kind.DELETE : Kind.UPDATE;
    }
    l.version += STEP;
    l.deleted = delete;
    return new Event(file, key, l.version, delete, kind);
  }

  /** The event's JSON line: a function of key, version and kind only. */
  private static String line(long key, long version, Kind kind) {
    return String.format(
        Locale.ROOT,
        "{\"order_id\":%d,\"source_version\":%d,\"customer_id\":\"%s\",\"status\":\"%s\","
            + "\"amount\":%.2f,\"currency\":\"%s\",\"updated_at\":\"%s\",\"op\":\"%s\"}\n",
        key,
        version,
        customer(key),
        status(version, kind),
        cents(key, version) / 100.0,
        currency(key),
        START.plusSeconds(version),
        kind == Kind.DELETE ? "DELETE" : "UPSERT");
  }

  private static String customer(long key) {
    return String.format(Locale.ROOT, "c%05d", key % 20_000);
  }

  private static String status(long version, Kind kind) {
    return switch (kind) {
      case DELETE -> "deleted";
      case OLDER -> "stale";
      default -> STATUSES[(int) ((version / STEP - 1) % STATUSES.length)];
    };
  }

  private static long cents(long key, long version) {
    return Math.floorMod(key * 1_000_003L + version * 7_919L, 100_000L);
  }

  private static String currency(long key) {
    return CURRENCIES[(int) (key % CURRENCIES.length)];
  }

  /**
   * The oracle: silver's rows after every event so far, one per key whose highest version is not a
   * delete, as {@link #rowOf} formats a silver row.
   */
  Set<String> expectedSilver() {
    Set<String> rows = new HashSet<>();
    for (var e : latest.entrySet()) {
      if (!e.getValue().deleted) {
        long key = e.getKey();
        long version = e.getValue().version;
        rows.add(
            row(
                key,
                version,
                customer(key),
                status(version, Kind.UPDATE),
                cents(key, version),
                currency(key)));
      }
    }
    return rows;
  }

  /** A silver row (order_id, source_version, customer_id, status, amount, currency) as text. */
  static String row(
      long key, long version, String customer, String status, long cents, String currency) {
    return key + "|" + version + "|" + customer + "|" + status + "|" + cents + "|" + currency;
  }

  List<Event> events() {
    return events;
  }

  List<String> fileNames() {
    return fileNames;
  }

  Instant landedAt(int file) {
    return landedAt.get(file);
  }

  int files() {
    return fileNames.size();
  }

  /** How many events of each kind were generated. */
  Map<Kind, Long> kinds() {
    return kinds;
  }
}
