package io.replaysafe.silver;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random CDC events generated the way Spark's AutoCDC out-of-order convergence suites generate
 * them: several keys, between 1 and {@code maxEventsPerKey} events a key, about 20% deletes, 15%
 * exact duplicates (the same line again), a quarter of the payload values null; and, as issue 31
 * asks, 15% no-op continuations (the key's previous upsert again at a new sequence). Sequences are
 * unique across keys and the keys' events interleave.
 */
final class RandomCdcStream {
  static final String SCHEMA =
      "id BIGINT, name STRING, score BIGINT, active BOOLEAN, seq BIGINT, is_delete BOOLEAN";

  private static final double DELETE = 0.20;
  private static final double CONTINUATION = 0.15;
  private static final double DUPLICATE = 0.15;
  private static final double NON_NULL = 0.75;
  private static final List<String> NAMES = List.of("red", "blue", "green", "yellow");

  /**
   * One event; {@code id} is the generated key, moved by an offset when written. A truncate has no
   * key and no payload (its line's id is null: pipelines that apply truncates say {@code
   * applyAsTruncates: "id IS NULL"}).
   */
  record Event(
      long id,
      String name,
      Long score,
      Boolean active,
      long seq,
      boolean delete,
      boolean truncate) {
    String json(long keyOffset) {
      if (truncate) {
        return "{\"id\":null,\"seq\":" + seq + ",\"is_delete\":false}";
      }
      return "{\"id\":"
          + (id + keyOffset)
          + ",\"name\":"
          + (name == null ? "null" : "\"" + name + "\"")
          + ",\"score\":"
          + score
          + ",\"active\":"
          + active
          + ",\"seq\":"
          + seq
          + ",\"is_delete\":"
          + delete
          + "}";
    }

    Event at(long sequence) {
      return new Event(id, name, score, active, sequence, false, false);
    }
  }

  private RandomCdcStream() {}

  /** The events of {@code keys} keys numbered from {@code firstKey}, in sequence order. */
  static List<Event> generate(Random random, long firstKey, int keys, int maxEventsPerKey) {
    return generate(random, firstKey, keys, maxEventsPerKey, 0);
  }

  /** As {@link #generate(Random, long, int, int)}, a truncate before an event at that rate. */
  static List<Event> generate(
      Random random, long firstKey, int keys, int maxEventsPerKey, double truncates) {
    List<Long> slots = new ArrayList<>();
    for (long k = firstKey; k < firstKey + keys; k++) {
      int events = 1 + random.nextInt(maxEventsPerKey);
      for (int i = 0; i < events; i++) {
        slots.add(k);
      }
    }
    Collections.shuffle(slots, random);
    List<Event> events = new ArrayList<>();
    Map<Long, Event> previous = new HashMap<>();
    long seq = 0;
    for (long key : slots) {
      seq += 1 + random.nextInt(3);
      if (random.nextDouble() < truncates) {
        events.add(new Event(0, null, null, null, seq++, false, true));
      }
      double kind = random.nextDouble();
      Event last = previous.get(key);
      Event event;
      if (kind < DELETE) {
        event = random(random, key, seq, true);
      } else if (kind < DELETE + CONTINUATION && last != null && !last.delete()) {
        event = last.at(seq);
      } else {
        event = random(random, key, seq, false);
      }
      events.add(event);
      if (random.nextDouble() < DUPLICATE) {
        events.add(event);
      }
      previous.put(key, event);
    }
    return events;
  }

  private static Event random(Random random, long key, long seq, boolean delete) {
    return new Event(
        key,
        random.nextDouble() < NON_NULL ? NAMES.get(random.nextInt(NAMES.size())) : null,
        random.nextDouble() < NON_NULL ? (long) random.nextInt(100) : null,
        random.nextDouble() < NON_NULL ? random.nextBoolean() : null,
        seq,
        delete,
        false);
  }

  /** {@code events} cut into {@code batches} consecutive slices of (almost) equal size. */
  static List<List<Event>> slices(List<Event> events, int batches) {
    List<List<Event>> result = new ArrayList<>();
    for (int b = 0; b < batches; b++) {
      result.add(events.subList(b * events.size() / batches, (b + 1) * events.size() / batches));
    }
    return result;
  }
}
