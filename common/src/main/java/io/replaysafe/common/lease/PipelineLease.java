package io.replaysafe.common.lease;

import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * One writer per pipeline. Every command that writes a pipeline's tables holds its lease while it
 * runs: {@code try (PipelineLease lease = PipelineLease.acquire(pipeline, spark, "run")) {...}}. A
 * second writer fails at once with a {@link LeaseHeldException} naming the holder.
 *
 * <p>The lease is the directory {@code <bronze.path>_lease} next to the tables, on the same store
 * (local disk or {@code s3a://}), holding one small JSON object per claim ({@link LeaseClaim},
 * stored by {@link LeaseDirectory}). Acquiring is claim-then-list: write my claim under a unique
 * name, list the directory, and keep the lease only when no other live claim is there; otherwise
 * withdraw mine. Of two writers racing, the later one's listing always shows the earlier one's
 * claim, so at most one keeps it; when both see each other both withdraw and retry after a random
 * pause, so one of them wins. This needs only strongly consistent writes and listings (local disks,
 * AWS S3, S3Proxy, LocalStack), not conditional writes: the embedded endpoint (S3Proxy 2.7) ignores
 * {@code If-None-Match} on PUT. Where the store honours it (AWS S3 through hadoop-aws 3.5, local
 * disk), the claim is also written with a conditional create.
 *
 * <p>The holder renews its claim every quarter of its time to live (default 120 s, system property
 * {@value #TTL_PROPERTY}). A claim whose heartbeat is older than that, or one made on this host by
 * a process that has ended (a {@code kill -9}), is dead: the next writer deletes it and proceeds.
 */
public final class PipelineLease implements AutoCloseable {
  public static final String TTL_PROPERTY = "replaysafe.lease.ttlSeconds";
  static final long TTL_DEFAULT_SECONDS = 120;
  static final int MAX_ATTEMPTS = 8;

  private final LeaseDirectory claims;
  private final Path file;
  private final Clock clock;
  private final ScheduledExecutorService heartbeats;
  private volatile LeaseClaim claim;
  private volatile String lost;
  private volatile Instant lastRenewed;

  private PipelineLease(LeaseDirectory claims, LeaseClaim claim, Clock clock) {
    this.claims = claims;
    this.claim = claim;
    this.file = claims.fileOf(claim);
    this.clock = clock;
    this.lastRenewed = clock.instant();
    this.heartbeats =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "replaysafe-lease-heartbeat");
              t.setDaemon(true);
              return t;
            });
  }

  /** The lease directory of a pipeline: {@code <bronze.path>_lease}. */
  public static String location(PipelineConfig pipeline) {
    String bronze = pipeline.bronze().path();
    while (bronze.endsWith("/")) {
      bronze = bronze.substring(0, bronze.length() - 1);
    }
    return bronze + "_lease";
  }

  /**
   * Takes the pipeline's lease for {@code command} with the session's storage settings, or throws
   * {@link LeaseHeldException} naming the live holder.
   */
  public static PipelineLease acquire(PipelineConfig pipeline, SparkSession spark, String command) {
    SparkSessions.applyStorage(spark, pipeline.storage());
    return acquire(pipeline, spark.sparkContext().hadoopConfiguration(), command);
  }

  /**
   * Runs {@code body} holding the pipeline's lease: the one call every writing command makes. Fails
   * before {@code body} starts when another writer holds it, and after {@code body} when the lease
   * was lost meanwhile (this process stalled past its time to live).
   */
  public static <T> T holding(
      PipelineConfig pipeline, SparkSession spark, String command, Supplier<T> body) {
    try (PipelineLease lease = acquire(pipeline, spark, command)) {
      T result = body.get();
      lease.checkHeld();
      return result;
    }
  }

  public static PipelineLease acquire(
      PipelineConfig pipeline, Configuration hadoop, String command) {
    return acquire(location(pipeline), hadoop, command, configuredTtl(), Clock.systemUTC());
  }

  static PipelineLease acquire(
      String location, Configuration hadoop, String command, Duration ttl, Clock clock) {
    LeaseDirectory claims = LeaseDirectory.open(location, hadoop);
    LeaseClaim mine = LeaseClaim.claiming(command, clock.instant(), ttl);
    PipelineLease lease = new PipelineLease(claims, mine, clock);
    lease.claim(location);
    lease.startHeartbeat(ttl);
    return lease;
  }

  /** The time to live of a claim: system property {@value #TTL_PROPERTY}, else 120 s. */
  static Duration configuredTtl() {
    return Duration.ofSeconds(Long.getLong(TTL_PROPERTY, TTL_DEFAULT_SECONDS));
  }

  private void claim(String location) {
    List<LeaseClaim> rivals = List.of();
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      rivals = rivals();
      failIfHeld(location, rivals);
      if (rivals.isEmpty()) {
        claims.write(file, claim, true);
        rivals = rivals();
        if (rivals.isEmpty()) {
          claim = claim.withState(LeaseClaim.HELD, clock.instant());
          claims.write(file, claim, false);
          return;
        }
        // Someone claimed at the same time: both withdraw, the first to come back wins.
        claims.delete(file);
        failIfHeld(location, rivals);
      }
      pause(attempt);
    }
    throw new LeaseHeldException(
        "Cannot take the writer's lease "
            + location
            + " for '"
            + claim.command()
            + "': "
            + MAX_ATTEMPTS
            + " attempts met other writers starting at the same moment ("
            + rivals.stream().map(LeaseClaim::describe).toList()
            + "). Run it again once they have finished.");
  }

  private void failIfHeld(String location, List<LeaseClaim> rivals) {
    Optional<LeaseClaim> holder = rivals.stream().filter(LeaseClaim::held).findFirst();
    if (holder.isPresent()) {
      throw new LeaseHeldException(
          "Cannot start '"
              + claim.command()
              + "': another writer holds this pipeline's lease "
              + location
              + ": "
              + holder.get().describe()
              + ". One writer at a time keeps the tables consistent. Run it again when that one"
              + " has finished; if that process is dead, its lease is taken over once it expires,"
              + " or at once from the same host.");
    }
  }

  /** Live claims of other writers; dead ones are deleted on the way (best effort). */
  private List<LeaseClaim> rivals() {
    Instant now = clock.instant();
    List<LeaseClaim> live = new ArrayList<>();
    for (LeaseDirectory.Stored stored : claims.claims()) {
      LeaseClaim c = stored.claim();
      if (c.id().equals(claim.id())) {
        continue;
      }
      if (c.deadBecause(now, LeaseClaim.thisHost()).isPresent()) {
        claims.delete(stored.file());
        continue;
      }
      live.add(c);
    }
    return live;
  }

  private void startHeartbeat(Duration ttl) {
    long every = Math.max(1, ttl.toMillis() / 4);
    heartbeats.scheduleWithFixedDelay(this::heartbeat, every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * Renews the claim. A claim that has vanished (a writer took it over as dead) or that could not
   * be renewed for longer than its time to live marks the lease lost: {@link #checkHeld} fails.
   */
  void heartbeat() {
    if (lost != null) {
      return;
    }
    try {
      if (!claims.exists(file)) {
        lost =
            "its claim "
                + file
                + " was removed, presumably by a writer that found it expired; this process"
                + " was paused longer than the lease's time to live";
        return;
      }
      Instant now = clock.instant();
      claim = claim.withState(LeaseClaim.HELD, now);
      claims.write(file, claim, false);
      lastRenewed = now;
    } catch (IOException | RuntimeException e) {
      if (Duration.between(lastRenewed, clock.instant()).toSeconds() > claim.ttlSeconds()) {
        lost = "it could not be renewed for " + claim.ttlSeconds() + " s: " + e.getMessage();
      }
    }
  }

  /** Throws when the lease was lost while held, so a writer stops before it commits more. */
  public void checkHeld() {
    if (lost != null) {
      throw new ReplaysafeException(
          "'"
              + claim.command()
              + "' lost the writer's lease "
              + claims.path()
              + ": "
              + lost
              + ". Another writer may be running; rerun when it has finished (every step is"
              + " idempotent).");
    }
  }

  /** The claim as held: who, since when. */
  public LeaseClaim claim() {
    return claim;
  }

  /** Releases the lease: the claim is deleted, and the next writer can start at once. */
  @Override
  public void close() {
    heartbeats.shutdownNow();
    try {
      heartbeats.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    claims.delete(file);
  }

  /** A random pause, growing with the attempt, so two writers that met do not meet again. */
  private static void pause(int attempt) {
    LeaseDirectory.sleep(ThreadLocalRandom.current().nextLong(20, 150L * attempt));
  }
}
