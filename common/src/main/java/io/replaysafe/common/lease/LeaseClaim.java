package io.replaysafe.common.lease;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * One version of one writer's claim on a pipeline, as stored in the lease directory (one small JSON
 * object per version, {@code <id>.v<version>.json}). Everything a second writer needs to name the
 * holder and to decide that it died. The timestamps are the holder's own clock: another host reads
 * them only as a hint of whether to watch the claim, never to decide that it expired (see {@link
 * PipelineLease}).
 *
 * @param id unique per acquisition
 * @param version 0 while claiming, then one more at every renewal: a live holder's newest version
 *     changes at least every quarter of its time to live
 * @param host the holder's host name
 * @param pid the holder's process id
 * @param pidStart when that process started (ISO-8601), so a reused pid is not mistaken for it
 * @param pidNamespace the holder's boot id and pid namespace ({@code <boot id>/pid:[inode]}), so
 *     its pid is checked only by a process that sees the same pids; null where unknown
 * @param command what holds the lease, e.g. {@code run} or {@code quarantine release}
 * @param since when the claim was made (ISO-8601, UTC, holder's clock)
 * @param heartbeatAt when this version was written (holder's clock)
 * @param ttlSeconds how long an unchanged claim stays live
 * @param marginSeconds the holder stops writing this long before its time to live runs out, and
 *     another writer waits this long after it
 * @param state {@code claiming} while its writer checks for rivals, {@code held} after
 */
public record LeaseClaim(
    String id,
    long version,
    String host,
    long pid,
    String pidStart,
    String pidNamespace,
    String command,
    String since,
    String heartbeatAt,
    long ttlSeconds,
    long marginSeconds,
    String state) {
  public static final String CLAIMING = "claiming";
  public static final String HELD = "held";

  private static volatile String cachedHost;
  private static volatile Optional<String> cachedNamespace;

  /** A new claim by this process, version 0, in state {@code claiming}. */
  static LeaseClaim claiming(String command, Instant now, Duration ttl, Duration margin) {
    ProcessHandle self = ProcessHandle.current();
    return new LeaseClaim(
        now.toEpochMilli() + "-" + UUID.randomUUID(),
        0,
        thisHost(),
        self.pid(),
        self.info().startInstant().map(Instant::toString).orElse(null),
        thisPidNamespace().orElse(null),
        command,
        now.toString(),
        now.toString(),
        ttl.toSeconds(),
        margin.toSeconds(),
        CLAIMING);
  }

  /**
   * Stands for a claim whose object cannot be read: it counts as held by an unknown holder, with
   * the configured time to live, so a writer never proceeds past a claim it cannot see into until
   * it has watched it unchanged for that long.
   */
  static LeaseClaim unreadable(String id, String file, Instant modified) {
    return new LeaseClaim(
        id,
        0,
        "unknown",
        -1,
        null,
        null,
        "unknown (unreadable claim " + file + ")",
        modified.toString(),
        modified.toString(),
        PipelineLease.configuredTtl().toSeconds(),
        PipelineLease.configuredMargin(PipelineLease.configuredTtl()).toSeconds(),
        HELD);
  }

  /** Version {@code next} of this claim, held, written at {@code now}. */
  LeaseClaim renewed(long next, Instant now) {
    return new LeaseClaim(
        id,
        next,
        host,
        pid,
        pidStart,
        pidNamespace,
        command,
        since,
        now.toString(),
        ttlSeconds,
        marginSeconds,
        HELD);
  }

  boolean held() {
    return HELD.equals(state);
  }

  /** How long another writer must see this version unchanged before it counts as dead. */
  Duration unchangedLimit() {
    return Duration.ofSeconds(ttlSeconds + marginSeconds);
  }

  /**
   * True when the holder's own timestamp says this version is recent by {@code now}. A hint only: a
   * fresh-looking claim is reported as held at once, a stale-looking one is watched on the reader's
   * clock before it counts as dead, so a skewed clock delays a takeover, never causes one. A
   * version written "in the future" by more than the margin is watched too, so a dead holder's fast
   * clock delays its takeover by at most the watch.
   */
  boolean looksFresh(Instant now) {
    try {
      Instant written = Instant.parse(heartbeatAt);
      return !now.isAfter(written.plusSeconds(ttlSeconds))
          && !written.isAfter(now.plusSeconds(marginSeconds));
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Why this claim is dead at once, or empty: it was made by a process that has ended, and this
   * process sees the same pids (same host, same boot, same pid namespace). Anywhere else, a pid
   * says nothing: only time decides.
   */
  Optional<String> endedProcess() {
    Optional<String> mine = thisPidNamespace();
    if (!thisHost().equals(host)
        || pidNamespace == null
        || mine.isEmpty()
        || !mine.get().equals(pidNamespace)
        || processAlive()) {
      return Optional.empty();
    }
    return Optional.of("process " + pid + " in this pid namespace has ended");
  }

  private boolean processAlive() {
    return ProcessHandle.of(pid)
        .map(
            p ->
                pidStart == null
                    || p.info().startInstant().map(s -> s.toString().equals(pidStart)).orElse(true))
        .orElse(false);
  }

  /** "host h, pid 12, command 'run', since 2026-...Z (claim version 3, written 2026-...Z)". */
  String describe() {
    return "host "
        + host
        + ", pid "
        + pid
        + ", command '"
        + command
        + "', since "
        + since
        + " (claim version "
        + version
        + ", written "
        + heartbeatAt
        + " by its clock; time to live "
        + ttlSeconds
        + " s)";
  }

  /** This machine's name, as claims record it. */
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

  /**
   * This process's pid space: the kernel's boot id and the pid namespace's inode, where Linux shows
   * them. Two containers on one host (or one host name) have different pid namespaces, so a claim
   * made in one is never judged by a pid looked up in the other.
   */
  static Optional<String> thisPidNamespace() {
    Optional<String> ns = cachedNamespace;
    if (ns == null) {
      try {
        String boot = Files.readString(java.nio.file.Path.of("/proc/sys/kernel/random/boot_id"));
        String pids = Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/ns/pid")).toString();
        ns = Optional.of(boot.trim() + "/" + pids);
      } catch (IOException | RuntimeException e) {
        ns = Optional.empty();
      }
      cachedNamespace = ns;
    }
    return ns;
  }
}
