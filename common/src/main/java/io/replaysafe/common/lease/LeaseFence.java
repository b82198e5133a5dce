package io.replaysafe.common.lease;

import io.replaysafe.common.io.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * The leases this process holds, asked before every write that must not happen after a takeover.
 * The writes themselves go through Delta's log store ({@link FencedLogStore}: every commit of every
 * table) and Spark's checkpoint file manager ({@link FencedCheckpointFileManager}: offsets,
 * commits, the file source's log), which call {@link #check} just before they write; code that
 * writes anything else calls it too. A process holding no lease (a test setting up tables, a
 * read-only command) is not fenced.
 */
public final class LeaseFence {
  private static final Set<PipelineLease> HELD = new CopyOnWriteArraySet<>();

  private LeaseFence() {}

  static void register(PipelineLease lease) {
    HELD.add(lease);
  }

  static void unregister(PipelineLease lease) {
    HELD.remove(lease);
  }

  /**
   * Throws {@link LeaseLostException} (exit 4) when a lease this process holds may have been lost:
   * call it just before writing {@code what}.
   */
  public static void check(String what) {
    for (PipelineLease lease : HELD) {
      lease.checkStillHeld(what);
    }
  }

  /**
   * Who writes, as one JSON object for a Delta commit's {@code commitInfo} ({@code
   * replaysafeWriter}): the lease's claim id, command, host and pid. Empty when no lease is held.
   */
  static Optional<String> writer() {
    for (PipelineLease lease : HELD) {
      LeaseClaim c = lease.claim();
      Map<String, Object> writer = new LinkedHashMap<>();
      writer.put("lease", c.id());
      writer.put("command", c.command());
      writer.put("host", c.host());
      writer.put("pid", c.pid());
      return Optional.of(Json.compact(writer));
    }
    return Optional.empty();
  }
}
