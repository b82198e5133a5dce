package io.replaysafe.jobs;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.silver.SilverJob;
import io.replaysafe.silver.SilverResult;
import java.util.Objects;
import org.apache.spark.sql.SparkSession;

/**
 * Bronze then silver, each availableNow, in one session: the one definition of "a pipeline run"
 * that the scheduled {@code run} command, the demo and the rehearsal share. Silver starts only when
 * bronze succeeded, so a failed bronze run never lets silver read a half-landed delivery.
 */
public final class PipelineRun {
  private final PipelineConfig pipeline;
  private final SparkSession spark;

  private PipelineRun(PipelineConfig pipeline, SparkSession spark) {
    this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
    this.spark = Objects.requireNonNull(spark, "spark");
  }

  /** A run of {@code pipeline}, which must have a silver section. */
  public static PipelineRun of(PipelineConfig pipeline, SparkSession spark) {
    // A pipeline without silver cannot be run end to end: say so before bronze moves.
    pipeline.requireSilver();
    return new PipelineRun(pipeline, spark);
  }

  /** Runs bronze then silver. Never throws for a job's failure: the outcome carries it. */
  public Outcome execute() {
    BronzeResult bronze;
    try {
      bronze = BronzeIngest.from(pipeline, spark).execute();
    } catch (RuntimeException e) {
      return new Outcome(null, null, Layer.BRONZE, e);
    }
    try {
      SilverJob silver = SilverJob.from(pipeline, spark);
      if (bronze.bronzeVersion() != null) {
        // Bronze has just read its table's newest version in this session: silver reads it from
        // there instead of listing bronze's log again.
        silver = silver.afterBronzeAt(bronze.bronzeVersion());
      }
      return new Outcome(bronze, silver.execute(), null, null);
    } catch (RuntimeException e) {
      return new Outcome(bronze, null, Layer.SILVER, e);
    }
  }

  /** The layer a run failed in. */
  public enum Layer {
    BRONZE,
    SILVER;

    /** "bronze" or "silver", as the CLI and the JSON report name it. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * How a run ended.
   *
   * @param bronze null when bronze failed
   * @param silver null when either job failed
   * @param failedLayer null on success
   * @param error null on success; the job's own exception, so its kind still decides the exit code
   */
  public record Outcome(
      BronzeResult bronze, SilverResult silver, Layer failedLayer, RuntimeException error) {
    public boolean succeeded() {
      return error == null;
    }

    /** This outcome when it succeeded; otherwise the job's own exception. */
    public Outcome orThrow() {
      if (error != null) {
        throw error;
      }
      return this;
    }
  }
}
