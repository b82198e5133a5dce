package io.replaysafe.jobs;

import io.replaysafe.bronze.BronzeSideTables;
import io.replaysafe.common.config.MaintenanceConfig;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.silver.ops.Maintain;
import java.time.Duration;
import java.time.Instant;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pipeline's own housekeeping ({@code maintenance:} in the pipeline file): when {@code
 * optimizeEvery} has passed since the last round, OPTIMIZE of every Delta table of the pipeline
 * and, with {@code vacuumRetention}, a VACUUM under {@code replaysafe maintain}'s rules. The caller
 * holds the writer's lease and makes sure no batch runs meanwhile. The last round's time is read
 * from silver's table ({@link Maintain#LAST_OPTIMIZE}) once, then kept here.
 *
 * <p>A refused VACUUM is reported in the round's event the first time only (later rounds say it was
 * refused again) and ends nothing: the tables are compacted anyway. Any other failure of a round is
 * thrown, as a failed batch's is.
 */
public final class Housekeeping {
  private static final Logger LOG = LoggerFactory.getLogger(Housekeeping.class);

  private final PipelineConfig pipeline;
  private final SparkSession spark;
  private final MaintenanceConfig settings;
  private boolean lastRead;
  private Instant last;
  private boolean refusalReported;

  private Housekeeping(PipelineConfig pipeline, SparkSession spark) {
    this.pipeline = pipeline;
    this.spark = spark;
    this.settings = pipeline.maintenance();
  }

  public static Housekeeping of(PipelineConfig pipeline, SparkSession spark) {
    return new Housekeeping(pipeline, spark);
  }

  public boolean enabled() {
    return settings.enabled();
  }

  /** True when a round is due at {@code now}: none ran yet, or {@code optimizeEvery} passed. */
  public boolean due(Instant now) {
    if (!enabled()) {
      return false;
    }
    if (!lastRead) {
      last = new Maintain(pipeline, spark).lastOptimize().orElse(null);
      lastRead = true;
    }
    return last == null || !now.isBefore(last.plus(settings.optimizeEvery().orElseThrow()));
  }

  /** One round, now; what it did as one event. */
  public MaintenanceEvent run(Instant now) {
    long started = System.nanoTime();
    Duration retention = settings.vacuumRetention().orElse(null);
    // Set before the round: a round that fails is not retried before the next cadence either.
    last = now;
    Maintain.Round round =
        new Maintain(pipeline, spark).scheduled(BronzeSideTables.of(pipeline), retention, now);
    boolean repeated = false;
    if (round.vacuumRefused().isPresent()) {
      repeated = refusalReported;
      if (!refusalReported) {
        LOG.warn("Housekeeping of pipeline {}: {}", pipeline.name(), round.vacuumRefused().get());
      }
      refusalReported = true;
    } else {
      refusalReported = false;
    }
    return MaintenanceEvent.of(
        pipeline.name(), round, retention, repeated, (System.nanoTime() - started) / 1e9, now);
  }
}
