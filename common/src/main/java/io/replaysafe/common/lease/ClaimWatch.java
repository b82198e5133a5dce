package io.replaysafe.common.lease;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * A writer's memory, while it acquires, of when it first saw each claim object, on its own
 * monotonic clock: a claim counts as dead only once this writer has itself seen the same version
 * for longer than the holder's time to live plus its margin. A live holder writes a new version
 * every quarter of its time to live, so its newest object never stays that long.
 */
final class ClaimWatch {
  private final LongSupplier nanos;
  private final Map<String, Long> firstSeen = new HashMap<>();
  private final Map<String, String> watchedById = new HashMap<>();

  ClaimWatch(LongSupplier nanos) {
    this.nanos = nanos;
  }

  /** True the first time claim object {@code name} of writer {@code id} is watched. */
  boolean firstSighting(String id, String name) {
    watchedById.putIfAbsent(id, name);
    return firstSeen.putIfAbsent(name, nanos.getAsLong()) == null;
  }

  /** True when writer {@code id} wrote a new version since it was first watched: it is alive. */
  boolean changedSinceWatched(String id, String name) {
    String watched = watchedById.get(id);
    return watched != null && !watched.equals(name);
  }

  /** True when {@code name} was first seen more than {@code limit} ago. */
  boolean unchangedLongerThan(String name, Duration limit) {
    Long first = firstSeen.get(name);
    return first != null && nanos.getAsLong() - first > limit.toNanos();
  }

  /** How long to wait before listing again while claims are watched: a thirtieth of the limit. */
  long pause(List<LeaseDirectory.Stored> watched) {
    long shortest =
        watched.stream().mapToLong(s -> s.claim().unchangedLimit().toMillis()).min().orElse(1000);
    return Math.max(100, Math.min(5000, shortest / 30));
  }
}
