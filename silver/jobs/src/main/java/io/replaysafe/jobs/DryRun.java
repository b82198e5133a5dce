package io.replaysafe.jobs;

import io.replaysafe.bronze.PendingFiles;
import io.replaysafe.bronze.SampleParse;
import io.replaysafe.bronze.SourceSample;
import io.replaysafe.common.ErrorMessages;
import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.SampleCheck;
import io.replaysafe.silver.SilverContract;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * A dry run of the next {@code replaysafe run}: which files bronze would ingest, what the bronze
 * parser makes of a sample of them, and what the silver contract's batch checks find in that
 * sample. It reads the source and the bronze checkpoint and writes nothing anywhere: no table, no
 * checkpoint, no directory.
 */
public final class DryRun {
  public static final int SAMPLE_FILES_DEFAULT = 10;
  public static final long SAMPLE_BYTES_DEFAULT = 64L << 20;

  private DryRun() {}

  /**
   * What the plan found.
   *
   * @param sampled the files parsed (the first pending ones, in the order bronze takes them)
   * @param parse null when nothing is pending
   * @param check null when nothing is pending or the pipeline has no silver section
   */
  public record Result(
      PipelineConfig pipeline,
      PendingFiles pending,
      List<String> sampled,
      SampleParse parse,
      SampleCheck check) {
    public Result {
      sampled = List.copyOf(sampled);
    }

    /** True when the sample would be ingested and applied without rescue, quarantine or reject. */
    public boolean clean() {
      return (parse == null || parse.clean()) && (check == null || check.clean());
    }
  }

  /** Plans the next run; reads only. */
  public static Result of(
      SparkSession spark, PipelineConfig pipeline, int sampleFiles, long sampleBytes) {
    SparkSessions.applyStorage(spark, pipeline.storage());
    try (SourceSample.Next next = SourceSample.next(spark, pipeline, sampleFiles, sampleBytes)) {
      if (next.rows() == null) {
        return new Result(pipeline, next.pending(), next.sampled(), null, null);
      }
      SampleCheck check =
          pipeline.silver().isPresent()
              ? SampleCheck.of(spark, next.rows(), new SilverContract(pipeline))
              : null;
      return new Result(pipeline, next.pending(), next.sampled(), next.parse(), check);
    } catch (Exception e) { // SparkException is checked, but thrown from Scala unchecked
      // A sample file with a line over source.maxLineBytes: say so, not Spark's "cannot read".
      ReplaysafeException known = ErrorMessages.raisedOnPurpose(e);
      if (known != null) {
        throw known;
      }
      throw e;
    }
  }
}
