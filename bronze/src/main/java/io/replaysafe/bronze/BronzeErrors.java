package io.replaysafe.bronze;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.ErrorMessages;
import io.replaysafe.common.config.PipelineConfig;

/**
 * Every error the bronze job raises on purpose, each saying what failed, why, and how to fix it. (A
 * new field under {@code failOnNewColumns} is {@link NewColumnException}: it is raised inside a
 * Spark task and recognised by its class.)
 */
public final class BronzeErrors {
  private BronzeErrors() {}

  /** A run failed for a reason replaysafe did not raise itself (S3, Spark, the Delta log). */
  public static RuntimeException runFailed(PipelineConfig config, Exception e) {
    return ErrorMessages.runFailed(
        "Bronze run of pipeline '" + config.name() + "'",
        // Every error names the file when Spark says which one it could not read.
        BronzeIngest.unreadableFile(e).map(f -> "file " + f + " of ").orElse("")
            + config.source().path(),
        config.bronze().path(),
        ErrorMessages.rootMessage(e),
        "The checkpoint " + config.bronze().checkpoint(),
        e);
  }

  /** The checkpoint remembers another source than the pipeline file names. */
  static ConfigException checkpointOfAnotherSource(
      String checkpoint, String property, Object was, String is) {
    return new ConfigException(
        "Cannot use bronze.checkpoint "
            + checkpoint
            + ": it belongs to a source with "
            + property
            + " '"
            + was
            + "', and this pipeline's source has "
            + property
            + " '"
            + is
            + "'. A checkpoint tracks the files of one source only. Give this source its own"
            + " bronze.checkpoint (or, to start over on purpose, delete the checkpoint:"
            + " every file under source.path is then ingested again).");
  }
}
