package io.replaysafe.common.lease;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * One writer per pipeline, fenced. Every command that writes a pipeline's tables holds its lease
 * while it runs: {@code PipelineLease.holding(pipeline, spark, "run", () -> ...)}, or {@code try
 * (PipelineLease lease = PipelineLease.acquire(...)) {...}} for a holder that runs for long and
 * calls {@link #checkStillHeld()} itself. A second writer fails at once with a {@link
 * LeaseHeldException} naming the holder.
 *
 * <p>The lease is the directory {@code <bronze.path>_lease} next to the tables, on the same store
 * (local disk or {@code s3a://}), holding small JSON objects, one per claim version ({@link
 * LeaseClaim}, stored by {@link LeaseDirectory}). Acquiring is claim-then-list: write my claim
 * under a unique name, list the directory, and keep the lease only when no other live claim is
 * there; otherwise withdraw mine. Of two writers racing, the later one's listing always shows the
 * earlier one's claim, so at most one keeps it. This needs only strongly consistent writes and
 * listings (local disks, AWS S3, S3Proxy), not conditional writes: the embedded endpoint (S3Proxy
 * 2.7) ignores {@code If-None-Match} on PUT. Where the store honours it, every claim object is also
 * created conditionally.
 *
 * <p><b>Renewal</b>, in the background every quarter of the time to live: write the claim's next
 * version as a new object, list, and confirm that the previous version is still there and no other
 * writer holds a claim; then delete the previous version. A writer taking over deletes the dead
 * claim before it writes its own and lists after, so either it sees the renewal (and gives up) or
 * the renewal sees its version gone (and the holder stops): a renewal never undoes a takeover.
 *
 * <p><b>Fencing</b>: the holder writes only within time to live − margin of the start of its last
 * confirmed renewal, measured on its own monotonic clock. Every Delta commit, checkpoint and state
 * write asks {@link LeaseFence#check} first, which throws {@link LeaseLostException} (exit 4) past
 * that deadline or once a renewal found the claim taken over.
 *
 * <p><b>Expiry</b> is judged by the other writer's own clock: a claim version it has seen unchanged
 * (same object, no newer version) for longer than the holder's time to live plus the margin is
 * dead. The timestamps in a claim are only a hint: a claim recent by them is reported as held at
 * once; one that looks old is watched before it is taken over. Timestamps of two hosts are never
 * compared to decide. A claim made by an ended process is dead at once only where this process sees
 * the same pids (same host, boot and pid namespace).
 *
 * <p>Time to live: default 120 s (system property {@value #TTL_PROPERTY}); margin: default a
 * quarter of it ({@value #MARGIN_PROPERTY}), at most half. The guarantee assumes that the two
 * processes' clocks run at the same rate within margin per time to live, and that a holder is not
 * paused for longer than the margin between its fencing check and the write that follows.
 */
public final class PipelineLease implements AutoCloseable {
  public static final String TTL_PROPERTY = "replaysafe.lease.ttlSeconds";
  public static final String MARGIN_PROPERTY = "replaysafe.lease.marginSeconds";
  static final long TTL_DEFAULT_SECONDS = 120;
  static final int MAX_ATTEMPTS = 8;

  private final LeaseDirectory claims;
  private final String location;
  private final Clock clock;
  private final LongSupplier nanos;
  private final Duration ttl;
  private final Duration margin;
  private final ScheduledExecutorService renewals;
  private final AtomicLong versions = new AtomicLong();
  private final List<Path> unconfirmed = new ArrayList<>();
  private volatile LeaseClaim claim;
  private volatile String lost;
  private volatile long confirmedAtNanos;

  private PipelineLease(
      LeaseDirectory claims,
      String location,
      LeaseClaim claim,
      Duration ttl,
      Duration margin,
      Clock clock,
      LongSupplier nanos) {
    this.claims = claims;
    this.location = location;
    this.claim = claim;
    this.ttl = ttl;
    this.margin = margin;
    this.clock = clock;
    this.nanos = nanos;
    this.renewals =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "replaysafe-lease-renewal");
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
   * {@link LeaseHeldException} naming the live holder. It renews itself in the background until
   * {@link #close}.
   */
  public static PipelineLease acquire(PipelineConfig pipeline, SparkSession spark, String command) {
    SparkSessions.applyStorage(spark, pipeline.storage());
    return acquire(pipeline, spark.sparkContext().hadoopConfiguration(), command);
  }

  public static PipelineLease acquire(
      PipelineConfig pipeline, Configuration hadoop, String command) {
    Duration ttl = configuredTtl();
    return acquire(
        location(pipeline),
        hadoop,
        command,
        ttl,
        configuredMargin(ttl),
        Clock.systemUTC(),
        System::nanoTime);
  }

  /**
   * Runs {@code body} holding the pipeline's lease: the one call a writing command makes. Fails
   * before {@code body} starts when another writer holds it; every write inside is fenced; and it
   * fails after {@code body} when the lease was lost meanwhile.
   */
  public static <T> T holding(
      PipelineConfig pipeline, SparkSession spark, String command, Supplier<T> body) {
    try (PipelineLease lease = acquire(pipeline, spark, command)) {
      T result = body.get();
      lease.checkStillHeld();
      return result;
    }
  }

  static PipelineLease acquire(
      String location,
      Configuration hadoop,
      String command,
      Duration ttl,
      Duration margin,
      Clock clock,
      LongSupplier nanos) {
    if (margin.toSeconds() < 1 || margin.multipliedBy(2).compareTo(ttl) > 0) {
      throw LeaseErrors.badMargin(ttl, margin);
    }
    LeaseDirectory claims = LeaseDirectory.open(location, hadoop);
    LeaseClaim mine = LeaseClaim.claiming(command, clock.instant(), ttl, margin);
    PipelineLease lease = new PipelineLease(claims, location, mine, ttl, margin, clock, nanos);
    try {
      lease.take();
    } catch (RuntimeException e) {
      lease.deleteMine();
      throw e;
    }
    LeaseFence.register(lease);
    long every = Math.max(1, ttl.toMillis() / 4);
    lease.renewals.scheduleWithFixedDelay(lease::renew, every, every, TimeUnit.MILLISECONDS);
    return lease;
  }

  /** The time to live of a claim: system property {@value #TTL_PROPERTY}, else 120 s. */
  static Duration configuredTtl() {
    return Duration.ofSeconds(Long.getLong(TTL_PROPERTY, TTL_DEFAULT_SECONDS));
  }

  /** The margin: system property {@value #MARGIN_PROPERTY}, else a quarter of the time to live. */
  static Duration configuredMargin(Duration ttl) {
    return Duration.ofSeconds(Long.getLong(MARGIN_PROPERTY, Math.max(1, ttl.toSeconds() / 4)));
  }

  private void take() {
    ClaimWatch watch = new ClaimWatch(nanos);
    List<LeaseClaim> crowd = List.of();
    int attempt = 0;
    while (attempt < MAX_ATTEMPTS) {
      Rivals rivals = rivals(watch);
      if (!rivals.holding().isEmpty()) {
        throw LeaseErrors.held(claim.command(), location, rivals.holding().get(0));
      }
      if (!rivals.watched().isEmpty()) {
        LeaseDirectory.sleep(watch.pause(rivals.watched()));
        continue;
      }
      crowd = rivals.starting();
      if (crowd.isEmpty()) {
        claims.create(claim);
        List<LeaseClaim> others = others(claims.claims(claim));
        if (others.isEmpty() && confirm()) {
          return;
        }
        // Someone claimed at the same time: both withdraw, the first to come back wins.
        deleteMine();
        lost = null;
        crowd = others;
      }
      attempt++;
      pause(attempt);
    }
    throw LeaseErrors.crowded(claim.command(), location, MAX_ATTEMPTS, crowd);
  }

  /** What the claims of other writers say, dead ones deleted on the way (best effort). */
  private record Rivals(
      List<LeaseClaim> holding, List<LeaseClaim> starting, List<LeaseDirectory.Stored> watched) {}

  private Rivals rivals(ClaimWatch watch) {
    Instant now = clock.instant();
    List<LeaseClaim> holding = new ArrayList<>();
    List<LeaseClaim> starting = new ArrayList<>();
    List<LeaseDirectory.Stored> watched = new ArrayList<>();
    for (List<LeaseDirectory.Stored> versions : byWriter(claims.claims(claim)).values()) {
      LeaseDirectory.Stored newest = versions.get(versions.size() - 1);
      LeaseClaim c = newest.claim();
      Optional<String> dead = c.endedProcess();
      if (dead.isEmpty() && watch.unchangedLongerThan(newest.name(), c.unchangedLimit())) {
        dead = Optional.of("unchanged for longer than " + c.unchangedLimit().toSeconds() + " s");
      }
      if (dead.isPresent()) {
        System.err.println(
            "replaysafe: taking over the writer's lease "
                + location
                + " from "
                + c.describe()
                + ": "
                + dead.get());
        versions.forEach(v -> claims.delete(v.file()));
      } else if (c.looksFresh(now) || watch.changedSinceWatched(c.id(), newest.name())) {
        (c.held() ? holding : starting).add(c);
      } else {
        if (watch.firstSighting(c.id(), newest.name())) {
          System.err.println(
              "replaysafe: the writer's lease "
                  + location
                  + " has a claim that looks stale ("
                  + c.describe()
                  + "); watching it for up to "
                  + c.unchangedLimit().toSeconds()
                  + " s by this process's clock before taking it over");
        }
        watched.add(newest);
      }
    }
    return new Rivals(holding, starting, watched);
  }

  /** Other writers' claims, each writer's versions oldest first. */
  private Map<String, List<LeaseDirectory.Stored>> byWriter(List<LeaseDirectory.Stored> stored) {
    Map<String, List<LeaseDirectory.Stored>> byId = new LinkedHashMap<>();
    stored.stream()
        .filter(s -> !s.claim().id().equals(claim.id()))
        .sorted(java.util.Comparator.comparingLong(s -> s.claim().version()))
        .forEach(s -> byId.computeIfAbsent(s.claim().id(), k -> new ArrayList<>()).add(s));
    return byId;
  }

  private List<LeaseClaim> others(List<LeaseDirectory.Stored> stored) {
    return byWriter(stored).values().stream().map(v -> v.get(v.size() - 1).claim()).toList();
  }

  /**
   * Writes the claim's next version, held, and confirms it by listing: the version it replaces is
   * still there (no writer judged it dead and deleted it) and no other writer holds a claim. Only
   * then does the fencing deadline move, from the moment this renewal started. False, and the lease
   * lost, when the claim was taken over.
   */
  private boolean confirm() {
    long started = nanos.getAsLong();
    LeaseClaim next = claim.renewed(versions.incrementAndGet(), clock.instant());
    Path written = claims.fileOf(next);
    synchronized (unconfirmed) {
      unconfirmed.add(written);
    }
    claims.create(next);
    List<LeaseDirectory.Stored> listed = claims.claims(claim);
    String previous = claims.fileOf(claim).getName();
    boolean stillMine = listed.stream().anyMatch(s -> s.name().equals(previous));
    Optional<LeaseClaim> other = others(listed).stream().filter(LeaseClaim::held).findFirst();
    if (!stillMine || other.isPresent()) {
      lost =
          !stillMine
              ? "its claim "
                  + previous
                  + " was removed, presumably by a writer that found it unchanged for longer than"
                  + " its time to live: this process was paused or cut off from the store"
              : "another writer holds a claim: " + other.get().describe();
      claims.delete(written);
      return false;
    }
    Path replaced = claims.fileOf(claim);
    claim = next;
    confirmedAtNanos = started;
    synchronized (unconfirmed) {
      unconfirmed.remove(written);
    }
    claims.delete(replaced);
    return true;
  }

  /** One background renewal; a failure leaves the deadline where the last confirmed one put it. */
  synchronized void renew() {
    if (lost != null) {
      return;
    }
    try {
      confirm();
    } catch (RuntimeException e) {
      // Not confirmed: checkStillHeld fails once the deadline passes; the next renewal tries again.
    }
  }

  /**
   * Throws {@link LeaseLostException} (exit 4) when this holder may no longer hold the lease: call
   * it before each commit. Past the deadline a later confirmed renewal makes it pass again (the
   * claim was still ours), so a long-running holder survives a short outage of the store.
   */
  public void checkStillHeld() {
    checkStillHeld("its results");
  }

  /** The same, naming what is about to be written. */
  public void checkStillHeld(String what) {
    if (lost != null) {
      throw LeaseErrors.takenOver(claim.command(), location, lost);
    }
    Duration since = Duration.ofNanos(nanos.getAsLong() - confirmedAtNanos);
    if (since.compareTo(ttl.minus(margin)) > 0) {
      throw LeaseErrors.pastDeadline(claim.command(), location, what, since, ttl, margin);
    }
  }

  /** The claim as held: who, since when. */
  public LeaseClaim claim() {
    return claim;
  }

  /** Releases the lease: the claim is deleted, and the next writer can start at once. */
  @Override
  public void close() {
    LeaseFence.unregister(this);
    renewals.shutdownNow();
    try {
      renewals.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    deleteMine();
  }

  /** Deletes this writer's claim and any version of it a renewal wrote but did not confirm. */
  private void deleteMine() {
    synchronized (unconfirmed) {
      unconfirmed.forEach(claims::delete);
      unconfirmed.clear();
    }
    claims.delete(claims.fileOf(claim));
  }

  /**
   * The writers that hold the pipeline's lease now, as their claims say (host, pid, command,
   * since): what {@code status} shows, e.g. a continuous run. Read only; nothing is taken over.
   */
  public static List<LeaseClaim> holders(PipelineConfig pipeline, Configuration hadoop) {
    java.util.Map<String, LeaseClaim> byWriter = new java.util.LinkedHashMap<>();
    for (LeaseDirectory.Stored stored : LeaseDirectory.open(location(pipeline), hadoop).claims()) {
      if (LeaseClaim.HELD.equals(stored.claim().state())) {
        byWriter.put(stored.claim().id(), stored.claim());
      }
    }
    return List.copyOf(byWriter.values());
  }

  /** A random pause, growing with the attempt, so two writers that met do not meet again. */
  private static void pause(int attempt) {
    LeaseDirectory.sleep(ThreadLocalRandom.current().nextLong(20, 150L * attempt));
  }
}
