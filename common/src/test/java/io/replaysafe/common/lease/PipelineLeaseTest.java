package io.replaysafe.common.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.ErrorKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer's lease on local disk: refused, raced, taken over, renewed and fenced. The same race
 * on the embedded S3 endpoint is PipelineLeaseS3Test (in common/embedded-s3, which depends on this
 * module).
 */
class PipelineLeaseTest {
  private static final Duration TTL = Duration.ofSeconds(120);
  private static final Duration MARGIN = Duration.ofSeconds(30);
  @TempDir Path dir;

  private String location() {
    return dir.resolve("bronze_lease").toString();
  }

  private PipelineLease take(String command) {
    return LeaseRace.take(location(), new Configuration(), command);
  }

  @Test
  void aSecondWriterIsRefusedAtOnceWithTheHolderNamed() {
    try (PipelineLease first = take("run")) {
      LeaseClaim held = first.claim();
      long started = System.nanoTime();
      assertThatThrownBy(() -> take("quarantine release"))
          .isInstanceOf(LeaseHeldException.class)
          .satisfies(e -> assertThat(ErrorKind.of(e)).isEqualTo(ErrorKind.RETRYABLE))
          .hasMessage(
              "Cannot start 'quarantine release': another writer holds this pipeline's lease "
                  + location()
                  + ": host "
                  + LeaseClaim.thisHost()
                  + ", pid "
                  + ProcessHandle.current().pid()
                  + ", command 'run', since "
                  + held.since()
                  + " (claim version 1, written "
                  + held.heartbeatAt()
                  + " by its clock; time to live 120 s). One writer at a time keeps the tables"
                  + " consistent. Run it again when that one has finished; if that process is"
                  + " dead, its lease is taken over once its claim has stayed unchanged for its"
                  + " time to live plus 30 s, or at once from the same host and pid namespace.");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    }
    // Released: the next writer gets in at once, and no claim is left behind.
    try (PipelineLease next = take("repair")) {
      assertThat(next.claim().state()).isEqualTo(LeaseClaim.HELD);
      assertThat(dir.resolve("bronze_lease").toFile().list())
          .containsExactly(next.claim().id() + ".v1.json");
    }
    assertThat(dir.resolve("bronze_lease").toFile().list()).isEmpty();
  }

  @Test
  void aClaimOfAnEndedProcessInThisPidNamespaceIsTakenOverAtOnce() throws Exception {
    long ended = endedPid();
    Path claim =
        writeClaim("1-dead", LeaseClaim.thisHost(), ended, ns(), Instant.now(), 120, "run");
    try (PipelineLease lease = take("run")) {
      assertThat(claim).doesNotExist();
      assertThat(lease.claim().command()).isEqualTo("run");
    }
  }

  @Test
  void anEndedPidInAnotherPidNamespaceSaysNothingTheClaimStaysHeld() throws Exception {
    // Same host name, another container: its pid 1234 is not ours to look up.
    long ended = endedPid();
    Path claim =
        writeClaim(
            "1-container",
            LeaseClaim.thisHost(),
            ended,
            "other-boot/pid:[1]",
            Instant.now(),
            120,
            "run");
    assertThatThrownBy(() -> take("bronze"))
        .isInstanceOf(LeaseHeldException.class)
        .hasMessageContaining("pid " + ended + ", command 'run'");
    assertThat(claim).exists();
    // Nor where the namespace is unknown (a claim from a system without /proc).
    Files.delete(claim);
    writeClaim("2-unknown", LeaseClaim.thisHost(), ended, null, Instant.now(), 120, "run");
    assertThatThrownBy(() -> take("bronze")).isInstanceOf(LeaseHeldException.class);
  }

  @Test
  void aStaleLookingClaimIsTakenOverOnlyAfterTheReaderWatchedItUnchanged() throws Exception {
    // Written an hour ago by its holder's clock, time to live 2 s, margin 1 s: the reader watches
    // the object for 3 s on its own clock before it deletes it.
    take("warm-up").close(); // the file system's first use is slow: keep it out of the timing
    Path stale =
        writeClaim("1-old", "elsewhere", 42, null, Instant.now().minusSeconds(3600), 2, "run");
    long started = System.nanoTime();
    try (PipelineLease lease = take("bronze")) {
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThanOrEqualTo(Duration.ofSeconds(3));
      assertThat(stale).doesNotExist();
      assertThat(lease.claim().host()).isEqualTo(LeaseClaim.thisHost());
    }
  }

  @Test
  void aLiveHolderWhoseClockIsAnHourBehindIsNotTakenOver() throws Exception {
    // The old rule (heartbeat older than the time to live by the reader's clock) took this over
    // at once. Its holder writes a new version every 0.5 s: the reader sees it change.
    AtomicBoolean alive = new AtomicBoolean(true);
    Thread holder =
        new Thread(
            () -> {
              for (int v = 0; alive.get(); v++) {
                try {
                  Path file =
                      writeClaim(
                          "1-behind.v" + (v + 1),
                          "elsewhere",
                          42,
                          null,
                          Instant.now().minusSeconds(3600),
                          2,
                          "run",
                          "1-behind",
                          v + 1);
                  Files.deleteIfExists(
                      dir.resolve("bronze_lease").resolve("1-behind.v" + v + ".json"));
                  assertThat(file).exists();
                  Thread.sleep(500);
                } catch (Exception e) {
                  return;
                }
              }
            });
    holder.start();
    try {
      assertThatThrownBy(() -> take("bronze"))
          .isInstanceOf(LeaseHeldException.class)
          .hasMessageContaining("host elsewhere, pid 42, command 'run'");
    } finally {
      alive.set(false);
      holder.join();
    }
  }

  @Test
  void aClaimWrittenByAClockFarAheadIsWatchedNotTrustedForever() throws Exception {
    Path ahead =
        writeClaim("1-ahead", "elsewhere", 42, null, Instant.now().plusSeconds(3600), 2, "run");
    try (PipelineLease lease = take("bronze")) {
      assertThat(ahead).doesNotExist();
    }
  }

  @Test
  void theHolderStopsWritingPastItsDeadlineOnItsOwnClockAndARenewalResumesIt() {
    AtomicLong nanos = new AtomicLong(1_000_000_000L);
    MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));
    try (PipelineLease lease =
        PipelineLease.acquire(
            location(), new Configuration(), "run", TTL, MARGIN, clock, nanos::get)) {
      nanos.addAndGet(Duration.ofSeconds(90).toNanos());
      lease.checkStillHeld("s3a://lake/silver/_delta_log/00000000000000000002.json");

      nanos.addAndGet(Duration.ofSeconds(1).toNanos());
      assertThatThrownBy(
              () -> lease.checkStillHeld("s3a://lake/silver/_delta_log/00000000000000000002.json"))
          .isInstanceOf(LeaseLostException.class)
          .satisfies(e -> assertThat(ErrorKind.of(e)).isEqualTo(ErrorKind.RETRYABLE))
          .hasMessage(
              "'run' stopped before writing s3a://lake/silver/_delta_log/00000000000000000002.json:"
                  + " it may no longer hold the writer's lease "
                  + location()
                  + ". Its last confirmed renewal was 91 s ago by this process's clock, and a"
                  + " holder writes only within 90 s of one (time to live 120 s minus the margin"
                  + " of 30 s), so another writer may have taken over. This process was paused or"
                  + " the store was unreachable; rerun when no other writer is running (every step"
                  + " is idempotent).");
      // The fence every write asks says the same.
      assertThatThrownBy(() -> LeaseFence.check("x")).isInstanceOf(LeaseLostException.class);

      // Its claim was still there: a renewal confirms it and moves the deadline.
      clock.now = Instant.parse("2026-11-30T10:01:31Z");
      lease.renew();
      lease.checkStillHeld();
      assertThat(lease.claim().version()).isEqualTo(2);
      assertThat(lease.claim().heartbeatAt()).isEqualTo("2026-11-30T10:01:31Z");
      assertThat(lease.claim().since()).isEqualTo("2026-11-30T10:00:00Z");
      assertThat(dir.resolve("bronze_lease").toFile().list())
          .containsExactly(lease.claim().id() + ".v2.json");
    }
    LeaseFence.check("x"); // released: nothing fences this process any more
  }

  @Test
  void aRenewalAfterATakeoverNoticesItAndDoesNotUndoIt() throws Exception {
    try (PipelineLease paused = take("run")) {
      // While it was paused, another writer found its claim dead, deleted it and took the lease.
      Files.delete(dir.resolve("bronze_lease").resolve(paused.claim().id() + ".v1.json"));
      try (PipelineLease next = take("run")) {
        paused.renew();
        assertThatThrownBy(() -> paused.checkStillHeld("a commit"))
            .isInstanceOf(LeaseLostException.class)
            .hasMessage(
                "'run' lost the writer's lease "
                    + location()
                    + ": its claim "
                    + paused.claim().id()
                    + ".v1.json was removed, presumably by a writer that found it unchanged for"
                    + " longer than its time to live: this process was paused or cut off from the"
                    + " store. It wrote nothing after that; another writer may be running. Rerun"
                    + " when it has finished (every step is idempotent).");
        // Only the new holder's claim is left, and it still holds.
        assertThat(dir.resolve("bronze_lease").toFile().list())
            .containsExactly(next.claim().id() + ".v1.json");
        next.renew();
        next.checkStillHeld();
      }
    }
  }

  @Test
  void aMarginAboveHalfTheTimeToLiveIsRefused() {
    assertThatThrownBy(
            () ->
                PipelineLease.acquire(
                    location(),
                    new Configuration(),
                    "run",
                    TTL,
                    Duration.ofSeconds(61),
                    Clock.systemUTC(),
                    System::nanoTime))
        .satisfies(e -> assertThat(ErrorKind.of(e)).isEqualTo(ErrorKind.CONFIGURATION))
        .hasMessage(
            "Cannot use a lease margin of 61 s with a time to live of 120 s: the margin must be at"
                + " least 1 s and at most half the time to live. Set"
                + " -Dreplaysafe.lease.marginSeconds (default a quarter of the time to live).");
  }

  @Test
  void whatAKillInTheMiddleOfAClaimWriteLeavesIsNotAClaimTheNextWriterGetsInAtOnce()
      throws Exception {
    // A claim is written whole under a temporary name, then linked to its own: a kill between the
    // two leaves an empty temporary file, never an empty claim that reads as held by an unknown
    // writer for a full time to live.
    Path leaseDir = Files.createDirectories(dir.resolve("bronze_lease"));
    Path justNow = Files.createFile(leaseDir.resolve(".1-killed.v2.json.4f1c.tmp"));
    Path abandoned = Files.createFile(leaseDir.resolve(".1-killed.v1.json.77aa.tmp"));
    Files.setLastModifiedTime(
        abandoned,
        java.nio.file.attribute.FileTime.from(
            Instant.now().minus(LeaseDirectory.ABANDONED_AFTER).minusSeconds(1)));
    long started = System.nanoTime();
    try (PipelineLease lease = take("run")) {
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
      assertThat(lease.claim().command()).isEqualTo("run");
      // One still being written elsewhere may be young: only the old one is cleared away.
      assertThat(justNow).exists();
      assertThat(abandoned).doesNotExist();
      assertThat(leaseDir.toFile().list())
          .containsExactlyInAnyOrder(
              justNow.getFileName().toString(), lease.claim().id() + ".v1.json");
    }
  }

  @Test
  void aWriterKilledWhileItWritesItsHeldClaimIsTakenOverAtOnceByTheNextOne() throws Exception {
    // A child JVM halts (as kill -9 does) between writing its held claim (version 2, the second
    // claim write) and linking it to its name: its starting claim names a dead pid of this pid
    // namespace, so the next writer takes over at once instead of waiting out a time to live.
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-D" + CrashPoints.PROPERTY + "=" + CrashPoints.LEASE_CLAIM_MID_WRITE,
                "-Dreplaysafe.crashAfter=2",
                LeaseHolder.class.getName(),
                location())
            .redirectErrorStream(true)
            .start();
    String output = new String(child.getInputStream().readAllBytes());
    assertThat(child.waitFor()).as(output).isEqualTo(CrashPoints.EXIT_CODE);
    long started = System.nanoTime();
    try (PipelineLease lease = take("run")) {
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
      assertThat(lease.claim().pid()).isEqualTo(ProcessHandle.current().pid());
    }
  }

  /** Takes the lease at {@code args[0]} and holds it for a minute (a child JVM's main). */
  static final class LeaseHolder {
    public static void main(String[] args) throws Exception {
      try (PipelineLease lease = LeaseRace.take(args[0], new Configuration(), "run")) {
        Thread.sleep(60_000);
      }
    }
  }

  @Test
  void anEmptyClaimAsAnOlderVersionLeftItStillCountsAsHeldByAnUnknownWriter() throws Exception {
    Path leaseDir = Files.createDirectories(dir.resolve("bronze_lease"));
    Files.createFile(leaseDir.resolve("1-old.v1.json"));
    assertThatThrownBy(() -> take("run"))
        .isInstanceOf(LeaseHeldException.class)
        .hasMessageContaining("unreadable claim");
  }

  @Test
  void twoRacingWritersOnLocalDiskExactlyOneWinsEachTime() throws Exception {
    LeaseRace.race(location(), new Configuration());
  }

  private static long endedPid() throws Exception {
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    return ended.pid();
  }

  private static String ns() {
    return LeaseClaim.thisPidNamespace().orElseThrow();
  }

  private Path writeClaim(
      String id, String host, long pid, String ns, Instant written, long ttl, String command)
      throws Exception {
    return writeClaim(id + ".v1", host, pid, ns, written, ttl, command, id, 1);
  }

  private Path writeClaim(
      String name,
      String host,
      long pid,
      String ns,
      Instant written,
      long ttl,
      String command,
      String id,
      long version)
      throws Exception {
    Path leaseDir = Files.createDirectories(dir.resolve("bronze_lease"));
    Path file = leaseDir.resolve(name + ".json");
    new ObjectMapper()
        .writeValue(
            file.toFile(),
            new LeaseClaim(
                id,
                version,
                host,
                pid,
                null,
                ns,
                command,
                written.toString(),
                written.toString(),
                ttl,
                Math.max(1, ttl / 4),
                LeaseClaim.HELD));
    return file;
  }

  private static final class MutableClock extends Clock {
    volatile Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
