package io.replaysafe.common.lease;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.RetryableException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * One writer per pipeline. Every command that writes a pipeline's tables holds its lease while it
 * runs: {@code try (PipelineLease lease = PipelineLease.acquire(pipeline, spark, "run")) {...}}. A
 * second writer fails at once with a {@link LeaseHeldException} naming the holder.
 *
 * <p>The lease is the directory {@code <bronze.path>_lease} next to the tables, on the same store
 * (local disk or {@code s3a://}), holding one small JSON object per claim ({@link LeaseClaim}).
 * Acquiring is claim-then-list: write my claim under a unique name, list the directory, and keep
 * the lease only when no other live claim is there; otherwise withdraw mine. Of two writers racing,
 * the later one's listing always shows the earlier one's claim, so at most one keeps it; when both
 * see each other both withdraw and retry after a random pause, so one of them wins. This needs only
 * strongly consistent writes and listings (local disks, AWS S3, S3Proxy, LocalStack), not
 * conditional writes: the embedded endpoint (S3Proxy 2.7) ignores {@code If-None-Match} on PUT.
 * Where the store honours it (AWS S3 through hadoop-aws 3.5, local disk), the claim is also written
 * with a conditional create.
 *
 * <p>The holder renews its claim every quarter of its time to live (default 120 s, system property
 * {@value #TTL_PROPERTY}). A claim whose heartbeat is older than that, or one made on this host by
 * a process that has ended (a {@code kill -9}), is dead: the next writer deletes it and proceeds.
 */
public final class PipelineLease implements AutoCloseable {
  public static final String TTL_PROPERTY = "replaysafe.lease.ttlSeconds";
  static final long TTL_DEFAULT_SECONDS = 120;
  static final int MAX_ATTEMPTS = 8;
  static final String SUFFIX = ".json";

  /** hadoop-aws 3.5's createFile option for {@code If-None-Match: *}; other stores ignore it. */
  static final String CONDITIONAL_CREATE = "fs.option.create.conditional.overwrite";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static volatile String thisHost;

  private final FileSystem fs;
  private final Path dir;
  private final Path file;
  private final Clock clock;
  private final ScheduledExecutorService heartbeats;
  private volatile LeaseClaim claim;
  private volatile String lost;
  private volatile Instant lastRenewed;

  private PipelineLease(FileSystem fs, Path dir, LeaseClaim claim, Clock clock) {
    this.fs = fs;
    this.dir = dir;
    this.claim = claim;
    this.file = new Path(dir, claim.id() + SUFFIX);
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
      PipelineConfig pipeline,
      SparkSession spark,
      String command,
      java.util.function.Supplier<T> body) {
    try (PipelineLease lease = acquire(pipeline, spark, command)) {
      T result = body.get();
      lease.checkHeld();
      return result;
    }
  }

  public static PipelineLease acquire(
      PipelineConfig pipeline, Configuration hadoop, String command) {
    long ttl = Long.getLong(TTL_PROPERTY, TTL_DEFAULT_SECONDS);
    return acquire(location(pipeline), hadoop, command, Duration.ofSeconds(ttl), Clock.systemUTC());
  }

  static PipelineLease acquire(
      String location, Configuration hadoop, String command, Duration ttl, Clock clock) {
    Path dir = new Path(location);
    FileSystem fs;
    try {
      fs = dir.getFileSystem(hadoop);
    } catch (IOException e) {
      throw new RetryableException(
          "Cannot take the writer's lease " + location + ": " + e.getMessage(), e);
    }
    if (fs instanceof LocalFileSystem local) {
      fs = local.getRaw(); // no .crc side files next to the claims
    }
    Instant now = clock.instant();
    ProcessHandle self = ProcessHandle.current();
    LeaseClaim mine =
        new LeaseClaim(
            now.toEpochMilli() + "-" + UUID.randomUUID(),
            host(),
            self.pid(),
            self.info().startInstant().map(Instant::toString).orElse(null),
            command,
            now.toString(),
            now.toString(),
            ttl.toSeconds(),
            LeaseClaim.CLAIMING);
    PipelineLease lease = new PipelineLease(fs, dir, mine, clock);
    lease.claim(location);
    lease.startHeartbeat(ttl);
    return lease;
  }

  private void claim(String location) {
    List<LeaseClaim> rivals = List.of();
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      rivals = rivals();
      failIfHeld(location, rivals);
      if (rivals.isEmpty()) {
        write(claim, true);
        rivals = rivals();
        if (rivals.isEmpty()) {
          claim = claim.withState(LeaseClaim.HELD, clock.instant());
          write(claim, false);
          return;
        }
        // Someone claimed at the same time: both withdraw, the first to come back wins.
        delete(file);
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
    FileStatus[] statuses;
    try {
      statuses = fs.listStatus(dir);
    } catch (FileNotFoundException e) {
      return List.of();
    } catch (IOException e) {
      throw new RetryableException(
          "Cannot list the writer's lease " + dir + ": " + e.getMessage(), e);
    }
    Instant now = clock.instant();
    List<LeaseClaim> live = new ArrayList<>();
    for (FileStatus status : statuses) {
      String name = status.getPath().getName();
      if (!status.isFile() || !name.endsWith(SUFFIX)) {
        continue;
      }
      Optional<LeaseClaim> read = read(status);
      if (read.isEmpty()) {
        continue; // withdrawn between the listing and the read
      }
      LeaseClaim c = read.get();
      if (c.id().equals(claim.id())) {
        continue;
      }
      if (c.deadBecause(now, host()).isPresent()) {
        delete(status.getPath());
        continue;
      }
      live.add(c);
    }
    return live;
  }

  /**
   * A claim as stored. One being overwritten may read as empty or cut on a local disk for a moment:
   * it is read again, and if still unreadable counts as a live claim by an unknown holder, with the
   * file's modification time as its heartbeat.
   */
  private Optional<LeaseClaim> read(FileStatus status) {
    for (int attempt = 0; attempt < 3; attempt++) {
      // The listing's status saves a request, but names the version listed: a claim rewritten
      // since (claiming -> held, a heartbeat) then fails S3A's version check. Retries re-open.
      try (InputStream in = attempt == 0 ? open(status) : fs.open(status.getPath())) {
        return Optional.of(JSON.readValue(in.readAllBytes(), LeaseClaim.class));
      } catch (FileNotFoundException e) {
        return Optional.empty();
      } catch (IOException e) {
        sleep(50);
      }
    }
    String name = status.getPath().getName();
    String modified = Instant.ofEpochMilli(status.getModificationTime()).toString();
    return Optional.of(
        new LeaseClaim(
            name.substring(0, name.length() - SUFFIX.length()),
            "unknown",
            -1,
            null,
            "unknown (unreadable claim " + status.getPath() + ")",
            modified,
            modified,
            Long.getLong(TTL_PROPERTY, TTL_DEFAULT_SECONDS),
            LeaseClaim.HELD));
  }

  private InputStream open(FileStatus status) throws IOException {
    try {
      return fs.openFile(status.getPath())
          .withFileStatus(status)
          .opt("fs.option.openfile.read.policy", "whole-file")
          .build()
          .get();
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted reading " + status.getPath());
    }
  }

  private void write(LeaseClaim c, boolean create) {
    try {
      byte[] bytes = JSON.writeValueAsBytes(c);
      OutputStream out;
      if (create) {
        FSDataOutputStreamBuilder<?, ?> builder = fs.createFile(file);
        builder.overwrite(false).recursive();
        builder.opt(CONDITIONAL_CREATE, true);
        // The name is unique: S3A's probes for an existing file or directory there are waste.
        builder.opt("fs.s3a.create.performance", true);
        out = builder.build();
      } else {
        out = fs.create(file, true);
      }
      try (out) {
        out.write(bytes);
      }
    } catch (IOException e) {
      throw new RetryableException(
          "Cannot write the writer's lease claim " + file + ": " + e.getMessage(), e);
    }
  }

  private void delete(Path path) {
    try {
      fs.delete(path, false);
    } catch (IOException e) {
      // A dead claim left behind is deleted by the next writer; a withdrawn one of ours expires.
    }
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
      if (!fs.exists(file)) {
        lost =
            "its claim "
                + file
                + " was removed, presumably by a writer that found it expired; this process"
                + " was paused longer than the lease's time to live";
        return;
      }
      Instant now = clock.instant();
      claim = claim.withState(LeaseClaim.HELD, now);
      write(claim, false);
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
              + dir
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
    delete(file);
  }

  private static void pause(int attempt) {
    sleep(ThreadLocalRandom.current().nextLong(20, 150L * attempt));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReplaysafeException("Interrupted while taking the writer's lease", e);
    }
  }

  static String host() {
    String h = thisHost;
    if (h == null) {
      // The kernel's name first: a reverse DNS lookup can take seconds where DNS is missing.
      java.nio.file.Path kernel = java.nio.file.Path.of("/proc/sys/kernel/hostname");
      try {
        h = java.nio.file.Files.readString(kernel).trim();
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
      thisHost = h;
    }
    return h;
  }
}
