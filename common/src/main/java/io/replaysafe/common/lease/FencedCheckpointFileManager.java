package io.replaysafe.common.lease;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager;

/**
 * The streaming checkpoint's file manager with the lease's fence in front of every file it writes:
 * a micro-batch's offsets and commit, a file source's log of the files it read, the query's
 * metadata. A holder that may have lost the pipeline's lease stops before it records progress
 * another writer may already have made. Installed by {@code SparkSessions} as {@code
 * spark.sql.streaming.checkpointFileManagerClass} unless the deployment chose one.
 */
public class FencedCheckpointFileManager extends FileSystemBasedCheckpointFileManager {
  public FencedCheckpointFileManager(Path path, Configuration hadoopConf) {
    super(path, hadoopConf);
  }

  @Override
  public CancellableFSDataOutputStream createAtomic(Path path, boolean overwriteIfPossible) {
    LeaseFence.check(path.toString());
    return super.createAtomic(path, overwriteIfPossible);
  }
}
