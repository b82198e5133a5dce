package io.replaysafe.jobs;

import io.replaysafe.bronze.BronzeBatch;
import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.common.RunErrors;
import io.replaysafe.common.RunTimeoutException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.ContinuousTrigger;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.spark.RunDeadline;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.jobs.PipelineRun.Layer;
import io.replaysafe.silver.SilverJob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A long-running pipeline: bronze, silver or both as streaming queries with processing-time
 * triggers in this process, silver reading bronze's commits as they land. It runs until a stop is
 * requested ({@link ContinuousTrigger#requestStop}: a signal), {@code maxBatches} batches of the
 * last layer ran, {@code until} passed, or a layer failed; it never keeps running with one query
 * dead.
 *
 * <p>A stop lets the batch in flight finish: each query is stopped only between two triggers, when
 * it is not running a batch. Past {@code stopTimeout} the queries are stopped where they are and
 * the run fails with a {@link RunTimeoutException} (exit 5) naming what was committed; what an
 * interrupted batch wrote is replayed from the checkpoints on the next start, as after a crash.
 */
public final class ContinuousPipeline {
  private static final Logger LOG = LoggerFactory.getLogger(ContinuousPipeline.class);

  /**
   * Progress reports each query keeps. A run summary of an availableNow run adds all of them up
   * (SparkSessions keeps 100,000); a query running for days would keep every one it ever made.
   */
  static final int PROGRESS_KEPT = 100;

  static final String PROGRESS_KEPT_KEY = "spark.sql.streaming.numRecentProgressUpdates";
  private static final long POLL_MILLIS = 100;

  /**
   * What to run and when to end.
   *
   * @param layers bronze, silver, or both (then silver waits for bronze's table to exist)
   * @param maxBatches stop after this many batches (that read rows) of the last layer; 0: no limit
   * @param until stop this long after the start; null: no limit
   * @param stopTimeout how long a stop may wait for the batches in flight
   */
  public record Settings(Set<Layer> layers, long maxBatches, Duration until, Duration stopTimeout) {
    public Settings {
      layers = Set.copyOf(layers);
      if (layers.isEmpty()) {
        throw new IllegalArgumentException("no layer to run");
      }
      Objects.requireNonNull(stopTimeout, "stopTimeout");
    }

    Layer last() {
      return layers.contains(Layer.SILVER) ? Layer.SILVER : Layer.BRONZE;
    }
  }

  /**
   * How a continuous run ended without failing.
   *
   * @param stopReason what asked it to stop ("SIGTERM", "--max-batches 3", "--until 10 minutes")
   * @param batches batches that read rows, per layer
   * @param rows rows read, per layer
   * @param versions each layer's table version at the end (null: no table)
   */
  public record Result(
      String pipeline,
      String stopReason,
      Map<Layer, Long> batches,
      Map<Layer, Long> rows,
      Map<Layer, Long> versions,
      double seconds) {

    /**
     * {@code run orders: stopped (SIGTERM) after 12.3 s | bronze: 4 batch(es), ... | silver...}.
     */
    public String summary(String command) {
      StringBuilder line =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "%s %s: stopped (%s) after %.1f s",
                  command,
                  pipeline,
                  stopReason,
                  seconds));
      for (Layer layer : batches.keySet()) {
        line.append(
            String.format(
                Locale.ROOT,
                " | %s: %d batch(es), %d row(s), table version %s",
                layer.label(),
                batches.get(layer),
                rows.get(layer),
                versions.get(layer) == null ? "none" : versions.get(layer)));
      }
      return line.toString();
    }

    public Map<String, Object> toMap() {
      Map<String, Object> map = new LinkedHashMap<>();
      map.put("event", "stopped");
      map.put("pipeline", pipeline);
      map.put("stopReason", stopReason);
      for (Layer layer : batches.keySet()) {
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("batches", batches.get(layer));
        totals.put("rows", rows.get(layer));
        totals.put("tableVersion", versions.get(layer));
        map.put(layer.label(), totals);
      }
      map.put("seconds", Math.round(seconds * 1000) / 1000.0);
      return map;
    }
  }

  private final PipelineConfig pipeline;
  private final SparkSession spark;
  private final Settings settings;
  private final ContinuousTrigger trigger;
  private final Consumer<BatchEvent> events;
  private final Consumer<MaintenanceEvent> maintenanceEvents;
  private final Housekeeping housekeeping;
  private final Map<Layer, AtomicLong> batches = new EnumMap<>(Layer.class);
  private final Map<Layer, AtomicLong> rows = new EnumMap<>(Layer.class);
  private final Map<Layer, AtomicReference<BatchEvent>> lastBatch = new EnumMap<>(Layer.class);

  private ContinuousPipeline(
      PipelineConfig pipeline,
      SparkSession spark,
      Settings settings,
      ContinuousTrigger trigger,
      Consumer<BatchEvent> events,
      Consumer<MaintenanceEvent> maintenanceEvents) {
    this.pipeline = pipeline;
    this.spark = spark;
    this.settings = settings;
    this.trigger = trigger;
    this.events = events;
    this.maintenanceEvents = maintenanceEvents;
    this.housekeeping = Housekeeping.of(pipeline, spark);
    for (Layer layer : Layer.values()) {
      if (settings.layers().contains(layer)) {
        batches.put(layer, new AtomicLong());
        rows.put(layer, new AtomicLong());
        lastBatch.put(layer, new AtomicReference<>());
      }
    }
  }

  /**
   * A continuous run of {@code pipeline}; {@code events} hears of every batch that read rows, from
   * the queries' threads.
   */
  public static ContinuousPipeline of(
      PipelineConfig pipeline,
      SparkSession spark,
      Settings settings,
      ContinuousTrigger trigger,
      Consumer<BatchEvent> events) {
    return of(pipeline, spark, settings, trigger, events, event -> LOG.info("{}", event.line()));
  }

  /**
   * The same, {@code maintenanceEvents} hearing of every housekeeping round ({@code maintenance:}
   * in the pipeline file), from the thread that watches the run.
   */
  public static ContinuousPipeline of(
      PipelineConfig pipeline,
      SparkSession spark,
      Settings settings,
      ContinuousTrigger trigger,
      Consumer<BatchEvent> events,
      Consumer<MaintenanceEvent> maintenanceEvents) {
    if (settings.layers().contains(Layer.SILVER)) {
      pipeline.requireSilver();
    }
    return new ContinuousPipeline(pipeline, spark, settings, trigger, events, maintenanceEvents);
  }

  /**
   * Runs until stopped. Throws the failed layer's own exception (its kind decides the exit code)
   * after stopping the other, or a {@link RunTimeoutException} when the stop took longer than
   * {@code stopTimeout}.
   */
  public Result run() {
    long started = System.nanoTime();
    SparkSessions.applyStorage(spark, pipeline.storage());
    String kept = spark.conf().get(PROGRESS_KEPT_KEY, null);
    spark.conf().set(PROGRESS_KEPT_KEY, String.valueOf(PROGRESS_KEPT));
    BronzeListener listener = new BronzeListener();
    spark.streams().addListener(listener);
    Map<Layer, LayerThread> threads = new EnumMap<>(Layer.class);
    try {
      if (settings.layers().contains(Layer.BRONZE)) {
        threads.put(Layer.BRONZE, LayerThread.start(Layer.BRONZE, this::runBronze));
        if (settings.layers().contains(Layer.SILVER) && !awaitBronzeTable(threads)) {
          return finish(threads, started);
        }
      }
      if (settings.layers().contains(Layer.SILVER)) {
        if (settings.layers().contains(Layer.BRONZE)) {
          // Silver reads bronze's commits as they land, not one interval after each.
          trigger.upstreamRunsHere();
        }
        threads.put(Layer.SILVER, LayerThread.start(Layer.SILVER, this::runSilver));
      }
      watch(threads, started);
      return finish(threads, started);
    } finally {
      trigger.requestStop("the run ended");
      stopAll(threads);
      try {
        spark.sparkContext().listenerBus().waitUntilEmpty(10_000L);
      } catch (Exception e) {
        // The last progress line is a courtesy: never fail or delay a stop for it.
      }
      spark.streams().removeListener(listener);
      if (kept == null) {
        spark.conf().unset(PROGRESS_KEPT_KEY);
      } else {
        spark.conf().set(PROGRESS_KEPT_KEY, kept);
      }
    }
  }

  private void runBronze() {
    BronzeIngest.from(pipeline, spark).continuous(trigger).execute();
  }

  private void runSilver() {
    SilverJob.from(pipeline, spark)
        .continuous(
            trigger,
            (report, landed) ->
                count(
                    Layer.SILVER,
                    BatchEvent.silver(pipeline.name(), report, landed, Instant.now())))
        .execute();
  }

  private void count(Layer layer, BatchEvent event) {
    batches.get(layer).incrementAndGet();
    rows.get(layer).addAndGet(event.rows());
    lastBatch.get(layer).set(event);
    events.accept(event);
  }

  /** Silver needs bronze's table; bronze creates it before its query starts. */
  private boolean awaitBronzeTable(Map<Layer, LayerThread> threads) {
    while (!DeltaTables.exists(spark, pipeline.bronze().path())) {
      if (!threads.get(Layer.BRONZE).isAlive() || trigger.stopRequested()) {
        return false;
      }
      sleep(POLL_MILLIS);
    }
    return true;
  }

  /** Returns when a stop is due; every check between batches happens here. */
  private void watch(Map<Layer, LayerThread> threads, long started) {
    while (true) {
      for (LayerThread thread : threads.values()) {
        if (!thread.isAlive()) {
          return;
        }
      }
      if (trigger.stopRequested()) {
        return;
      }
      if (settings.maxBatches() > 0
          && batches.get(settings.last()).get() >= settings.maxBatches()) {
        trigger.requestStop("--max-batches " + settings.maxBatches());
        return;
      }
      if (settings.until() != null && System.nanoTime() - started >= settings.until().toNanos()) {
        trigger.requestStop("--until " + RunDeadline.describe(settings.until()));
        return;
      }
      try {
        trigger.checkBeforeBatch();
      } catch (RuntimeException e) {
        // May no longer write (the lease is lost): stop now, not after the batch in flight.
        trigger.requestStop("the writer's lease was lost");
        stopAll(threads);
        throw e;
      }
      if (housekeeping.due(Instant.now()) && everyQueryRan(threads)) {
        try {
          houseKeep(threads);
        } catch (RuntimeException e) {
          trigger.requestStop("housekeeping failed");
          stopAll(threads);
          throw e;
        }
      }
      sleep(POLL_MILLIS);
    }
  }

  /**
   * Whether each layer's query has run a trigger: before that, a layer still sets itself up
   * (tables, bindings, retried files), which no turnstile holds.
   */
  private boolean everyQueryRan(Map<Layer, LayerThread> threads) {
    for (Layer layer : threads.keySet()) {
      List<StreamingQuery> running = queries(layer);
      if (running.isEmpty() || running.stream().anyMatch(q -> q.lastProgress() == null)) {
        return false;
      }
    }
    return true;
  }

  /**
   * A housekeeping round between batches: every layer is held before its next batch, the round
   * waits until none is inside one (each query between triggers or waiting at the turnstile),
   * checks the lease and runs; then the layers go on. A stop or a dead layer meanwhile skips it.
   */
  private void houseKeep(Map<Layer, LayerThread> threads) {
    trigger.holdBatches();
    try {
      while (!betweenBatches(threads)) {
        if (trigger.stopRequested() || threads.values().stream().anyMatch(t -> !t.isAlive())) {
          return;
        }
        sleep(POLL_MILLIS);
      }
      trigger.checkBeforeBatch();
      maintenanceEvents.accept(housekeeping.run(Instant.now()));
    } finally {
      trigger.releaseBatches();
    }
  }

  private boolean betweenBatches(Map<Layer, LayerThread> threads) {
    for (Layer layer : threads.keySet()) {
      List<StreamingQuery> running = queries(layer);
      if (running.isEmpty()) {
        return false; // between two queries of bronze's recovery: not known to be idle
      }
      for (StreamingQuery query : running) {
        if (query.status().isTriggerActive() && !trigger.waiting(layer.label())) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Stops the queries between batches, bronze first, within the stop timeout; then the first
   * layer's failure, if any, is thrown.
   */
  private Result finish(Map<Layer, LayerThread> threads, long started) {
    RuntimeException failure = null;
    for (LayerThread thread : threads.values()) {
      if (!thread.isAlive() && !trigger.stopRequested()) {
        failure = thread.failure();
        if (failure == null) {
          failure = JobErrors.queryEndedUnasked(thread.layer().label(), pipeline.name());
        }
        trigger.requestStop(thread.layer().label() + " failed");
        break;
      }
    }
    long deadline = System.nanoTime() + settings.stopTimeout().toNanos();
    for (LayerThread thread : threads.values()) {
      while (thread.isAlive() && System.nanoTime() < deadline) {
        stopWhenIdle(thread.layer());
        thread.join(POLL_MILLIS);
      }
    }
    boolean late = threads.values().stream().anyMatch(LayerThread::isAlive);
    if (late) {
      stopAll(threads);
      throw stopTimedOut();
    }
    if (failure == null) {
      failure =
          threads.values().stream()
              .map(LayerThread::failure)
              .filter(Objects::nonNull)
              .findFirst()
              .orElse(null);
    }
    if (failure != null) {
      throw failure;
    }
    Map<Layer, Long> versions = new EnumMap<>(Layer.class);
    for (Layer layer : batches.keySet()) {
      versions.put(layer, tableVersion(layer));
    }
    Result result =
        new Result(
            pipeline.name(),
            trigger.stopReason(),
            snapshot(batches),
            snapshot(rows),
            versions,
            (System.nanoTime() - started) / 1e9);
    LOG.info("{}", result.summary("continuous"));
    return result;
  }

  private RunTimeoutException stopTimedOut() {
    List<String> committed = new ArrayList<>();
    for (Layer layer : batches.keySet()) {
      BatchEvent last = lastBatch.get(layer).get();
      committed.add(
          layer.label()
              + " table version "
              + Objects.toString(tableVersion(layer), "none")
              + (last == null ? " (no batch this run)" : " (last batch " + last.batchId() + ")"));
    }
    return JobErrors.stopTimedOut(
        pipeline.name(),
        RunDeadline.describe(settings.stopTimeout()),
        trigger.stopReason(),
        committed);
  }

  private Long tableVersion(Layer layer) {
    String path =
        layer == Layer.BRONZE ? pipeline.bronze().path() : pipeline.requireSilver().path();
    return DeltaTables.exists(spark, path) ? DeltaTables.latestVersion(spark, path) : null;
  }

  /** Stops the layer's query if it is between two batches. */
  private void stopWhenIdle(Layer layer) {
    for (StreamingQuery query : queries(layer)) {
      if (!query.status().isTriggerActive()) {
        stop(query);
      }
    }
  }

  private void stopAll(Map<Layer, LayerThread> threads) {
    for (LayerThread thread : threads.values()) {
      while (thread.isAlive()) {
        queries(thread.layer()).forEach(ContinuousPipeline::stop);
        thread.join(POLL_MILLIS);
      }
    }
  }

  private List<StreamingQuery> queries(Layer layer) {
    String name = "replaysafe_" + layer.label() + "_" + pipeline.name();
    List<StreamingQuery> found = new ArrayList<>();
    for (StreamingQuery query : spark.streams().active()) {
      if (name.equals(query.name())) {
        found.add(query);
      }
    }
    return found;
  }

  private static void stop(StreamingQuery query) {
    try {
      query.stop();
    } catch (Exception e) { // TimeoutException, declared by Scala only
      LOG.warn("Could not stop query {}: {}", query.name(), e.toString());
    }
  }

  private static Map<Layer, Long> snapshot(Map<Layer, AtomicLong> counters) {
    Map<Layer, Long> values = new EnumMap<>(Layer.class);
    counters.forEach((layer, value) -> values.put(layer, value.get()));
    return values;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw RunErrors.interrupted("the continuous run was watched", e);
    }
  }

  /** Bronze's batches, from its query's progress (the observed metrics bronze already counts). */
  private final class BronzeListener extends StreamingQueryListener {
    private final String name = "replaysafe_bronze_" + pipeline.name();

    @Override
    public void onQueryProgress(QueryProgressEvent event) {
      if (name.equals(event.progress().name())) {
        BronzeBatch.of(event.progress())
            .ifPresent(batch -> count(Layer.BRONZE, BatchEvent.bronze(pipeline.name(), batch)));
      }
    }

    @Override
    public void onQueryStarted(QueryStartedEvent event) {}

    @Override
    public void onQueryTerminated(QueryTerminatedEvent event) {}
  }

  /** One layer's job in a thread of its own; how it ended. */
  private static final class LayerThread {
    private final Layer layer;
    private final Thread thread;
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

    private LayerThread(Layer layer, Runnable job) {
      this.layer = layer;
      this.thread =
          new Thread(
              () -> {
                try {
                  job.run();
                } catch (RuntimeException e) {
                  failure.set(e);
                }
              },
              "replaysafe-continuous-" + layer.label());
    }

    static LayerThread start(Layer layer, Runnable job) {
      LayerThread t = new LayerThread(layer, job);
      t.thread.start();
      return t;
    }

    Layer layer() {
      return layer;
    }

    boolean isAlive() {
      return thread.isAlive();
    }

    RuntimeException failure() {
      return failure.get();
    }

    void join(long millis) {
      try {
        thread.join(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw RunErrors.interrupted("stopping the continuous run", e);
      }
    }
  }
}
