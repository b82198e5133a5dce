package io.replaysafe.common.lease;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * One writer's claim on a pipeline, as stored in the lease directory (one small JSON object per
 * claim). Everything a second writer needs to name the holder, and to decide that it died.
 *
 * @param id unique per acquisition; also the object's name
 * @param host the holder's host name
 * @param pid the holder's process id
 * @param pidStart when that process started (ISO-8601), so a reused pid is not mistaken for it
 * @param command what holds the lease, e.g. {@code run} or {@code quarantine release}
 * @param since when the claim was made (ISO-8601, UTC)
 * @param heartbeatAt when the holder last renewed it (ISO-8601, UTC)
 * @param ttlSeconds how long after the last heartbeat the claim expires
 * @param state {@code claiming} while its writer checks for rivals, {@code held} after
 */
public record LeaseClaim(
    String id,
    String host,
    long pid,
    String pidStart,
    String command,
    String since,
    String heartbeatAt,
    long ttlSeconds,
    String state) {
  public static final String CLAIMING = "claiming";
  public static final String HELD = "held";

  private static volatile String cachedHost;

  /** A new claim by this process, in state {@code claiming}. */
  static LeaseClaim claiming(String command, Instant now, Duration ttl) {
    ProcessHandle self = ProcessHandle.current();
    return new LeaseClaim(
        now.toEpochMilli() + "-" + UUID.randomUUID(),
        thisHost(),
        self.pid(),
        self.info().startInstant().map(Instant::toString).orElse(null),
        command,
        now.toString(),
        now.toString(),
        ttl.toSeconds(),
        CLAIMING);
  }

  /**
   * Stands for a claim whose object cannot be read: it counts as held by an unknown holder, so a
   * writer never proceeds past a claim it cannot see into until that claim expires.
   */
  static LeaseClaim unreadable(String id, String file, Instant modified, Duration ttl) {
    return new LeaseClaim(
        id,
        "unknown",
        -1,
        null,
        "unknown (unreadable claim " + file + ")",
        modified.toString(),
        modified.toString(),
        ttl.toSeconds(),
        HELD);
  }

  LeaseClaim withState(String newState, Instant now) {
    return new LeaseClaim(
        id, host, pid, pidStart, command, since, now.toString(), ttlSeconds, newState);
  }

  boolean held() {
    return HELD.equals(state);
  }

  Instant expiresAt() {
    return Instant.parse(heartbeatAt).plusSeconds(ttlSeconds);
  }

  /**
   * Why this claim no longer counts, or empty while it does: its heartbeat is older than its time
   * to live, or it was made on this host by a process that has ended.
   */
  Optional<String> deadBecause(Instant now, String thisHost) {
    if (now.isAfter(expiresAt())) {
      return Optional.of(
          "its last heartbeat ("
              + heartbeatAt
              + ") is more than "
              + Duration.ofSeconds(ttlSeconds).toSeconds()
              + " s old");
    }
    if (thisHost.equals(host) && !processAlive()) {
      return Optional.of("process " + pid + " on this host has ended");
    }
    return Optional.empty();
  }

  private boolean processAlive() {
    return ProcessHandle.of(pid)
        .map(
            p ->
                pidStart == null
                    || p.info().startInstant().map(s -> s.toString().equals(pidStart)).orElse(true))
        .orElse(false);
  }

  /** "host h, pid 12, command 'run', since 2026-...Z (last heartbeat 2026-...Z)". */
  String describe() {
    return "host "
        + host
        + ", pid "
        + pid
        + ", command '"
        + command
        + "', since "
        + since
        + " (last heartbeat "
        + heartbeatAt
        + ", expires "
        + expiresAt()
        + ")";
  }

  /** This machine's name, as claims record it: a claim made here can be checked for a live pid. */
  static String thisHost() {
    String h = cachedHost;
    if (h == null) {
      // The kernel's name first: a reverse DNS lookup can take seconds where DNS is missing.
      java.nio.file.Path kernel = java.nio.file.Path.of("/proc/sys/kernel/hostname");
      try {
        h = Files.readString(kernel).trim();
      } catch (IOException | RuntimeException e) {
        h = "";
      }
      if (h.isEmpty()) {
        try {
          h = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
          h = Optional.ofNullable(System.getenv("HOSTNAME")).orElse("localhost");
        }
      }
      cachedHost = h;
    }
    return h;
  }
}
