package io.replaysafe.common.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.ErrorKind;
import io.replaysafe.common.s3.EmbeddedS3Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The writer's lease on local disk and on the embedded S3 endpoint, raced and taken over. */
class PipelineLeaseTest {
  private static final Duration TTL = Duration.ofSeconds(120);
  @TempDir Path dir;

  private static Configuration local() {
    return new Configuration();
  }

  private static PipelineLease take(String location, Configuration conf, String command) {
    return PipelineLease.acquire(location, conf, command, TTL, Clock.systemUTC());
  }

  @Test
  void aSecondWriterIsRefusedWithTheHolderNamed() {
    String location = dir.resolve("bronze_lease").toString();
    try (PipelineLease first = take(location, local(), "run")) {
      LeaseClaim held = first.claim();
      assertThatThrownBy(() -> take(location, local(), "quarantine release"))
          .isInstanceOf(LeaseHeldException.class)
          .satisfies(e -> assertThat(ErrorKind.of(e)).isEqualTo(ErrorKind.RETRYABLE))
          .hasMessage(
              "Cannot start 'quarantine release': another writer holds this pipeline's lease "
                  + location
                  + ": host "
                  + LeaseClaim.thisHost()
                  + ", pid "
                  + ProcessHandle.current().pid()
                  + ", command 'run', since "
                  + held.since()
                  + " (last heartbeat "
                  + held.heartbeatAt()
                  + ", expires "
                  + Instant.parse(held.heartbeatAt()).plus(TTL)
                  + "). One writer at a time keeps the tables consistent. Run it again when that"
                  + " one has finished; if that process is dead, its lease is taken over once it"
                  + " expires, or at once from the same host.");
    }
    // Released: the next writer gets in at once, and no claim is left behind.
    try (PipelineLease next = take(location, local(), "repair")) {
      assertThat(next.claim().state()).isEqualTo(LeaseClaim.HELD);
      assertThat(dir.resolve("bronze_lease").toFile().list()).hasSize(1);
    }
    assertThat(dir.resolve("bronze_lease").toFile().list()).isEmpty();
  }

  @Test
  void aClaimOfAnEndedProcessOnThisHostIsTakenOverAtOnce() throws Exception {
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    Instant now = Instant.now();
    Path claim =
        writeClaim("1-dead", LeaseClaim.thisHost(), ended.pid(), now, "run"); // heartbeat fresh
    try (PipelineLease lease = take(dir.resolve("bronze_lease").toString(), local(), "run")) {
      assertThat(claim).doesNotExist();
      assertThat(lease.claim().command()).isEqualTo("run");
    }
  }

  @Test
  void anExpiredClaimIsTakenOverAndALiveOneOnAnotherHostIsNot() throws Exception {
    Instant now = Instant.now();
    Path expired = writeClaim("1-old", "elsewhere", 42, now.minus(Duration.ofMinutes(3)), "run");
    Path live = writeClaim("2-live", "elsewhere", 43, now, "silver");
    assertThatThrownBy(() -> take(dir.resolve("bronze_lease").toString(), local(), "bronze"))
        .isInstanceOf(LeaseHeldException.class)
        .hasMessageContaining("host elsewhere, pid 43, command 'silver', since " + now);
    assertThat(expired).doesNotExist();
    assertThat(live).exists();
    Files.delete(live);
    try (PipelineLease lease = take(dir.resolve("bronze_lease").toString(), local(), "bronze")) {
      assertThat(lease.claim().host()).isEqualTo(LeaseClaim.thisHost());
    }
  }

  @Test
  void theHeartbeatRenewsTheClaimAndNoticesATakeover() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));
    String location = dir.resolve("bronze_lease").toString();
    try (PipelineLease lease = PipelineLease.acquire(location, local(), "run", TTL, clock)) {
      clock.now = Instant.parse("2026-11-30T10:00:30Z");
      lease.heartbeat();
      LeaseClaim stored = readOnlyClaim();
      assertThat(stored.heartbeatAt()).isEqualTo("2026-11-30T10:00:30Z");
      assertThat(stored.since()).isEqualTo("2026-11-30T10:00:00Z");
      lease.checkHeld();

      Files.delete(dir.resolve("bronze_lease").resolve(stored.id() + ".json"));
      lease.heartbeat();
      assertThatThrownBy(lease::checkHeld)
          .hasMessageStartingWith("'run' lost the writer's lease " + location + ": its claim ");
    }
  }

  @Test
  void twoRacingWritersOnLocalDiskExactlyOneWinsEachTime() throws Exception {
    race(dir.resolve("bronze_lease").toString(), local());
  }

  @Test
  void twoRacingWritersOnTheEmbeddedEndpointExactlyOneWinsEachTime() throws Exception {
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of("lake"))) {
      Configuration conf = new Configuration();
      conf.set("fs.s3a.endpoint", server.endpoint().toString());
      conf.set("fs.s3a.endpoint.region", "us-east-1");
      conf.setBoolean("fs.s3a.path.style.access", true);
      conf.setBoolean("fs.s3a.connection.ssl.enabled", false);
      conf.set("fs.s3a.access.key", server.credentials().accessKeyId());
      conf.set("fs.s3a.secret.key", server.credentials().secretAccessKey());
      conf.set(
          "fs.s3a.aws.credentials.provider",
          "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
      race("s3a://lake/bronze/orders_lease", conf);
    }
  }

  /** 20 rounds: two threads acquire at the same instant; exactly one holds, the other is told. */
  private static void race(String location, Configuration conf) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 20; round++) {
        CyclicBarrier start = new CyclicBarrier(2);
        CyclicBarrier decided = new CyclicBarrier(2);
        List<Future<Boolean>> results = new ArrayList<>();
        for (String command : List.of("run", "quarantine release")) {
          results.add(
              pool.submit(
                  () -> {
                    start.await();
                    PipelineLease lease;
                    try {
                      lease = take(location, conf, command);
                    } catch (LeaseHeldException e) {
                      decided.await();
                      return false;
                    }
                    // Hold it until the rival has decided, so a win cannot follow a release.
                    decided.await();
                    lease.close();
                    return true;
                  }));
        }
        long winners = 0;
        for (Future<Boolean> r : results) {
          winners += r.get() ? 1 : 0;
        }
        assertThat(winners).as("writers holding the lease in round " + round).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private Path writeClaim(String id, String host, long pid, Instant heartbeat, String command)
      throws Exception {
    Path leaseDir = Files.createDirectories(dir.resolve("bronze_lease"));
    Path file = leaseDir.resolve(id + ".json");
    new ObjectMapper()
        .writeValue(
            file.toFile(),
            new LeaseClaim(
                id,
                host,
                pid,
                null,
                command,
                heartbeat.toString(),
                heartbeat.toString(),
                120,
                LeaseClaim.HELD));
    return file;
  }

  private LeaseClaim readOnlyClaim() throws Exception {
    try (var files = Files.list(dir.resolve("bronze_lease"))) {
      List<Path> all = files.toList();
      assertThat(all).hasSize(1);
      return new ObjectMapper().readValue(all.get(0).toFile(), LeaseClaim.class);
    }
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
