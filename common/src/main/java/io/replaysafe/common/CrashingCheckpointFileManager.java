package io.replaysafe.common;

import io.replaysafe.common.lease.FencedCheckpointFileManager;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The streaming checkpoint's file manager while a checkpoint-commit {@link CrashPoints crash point}
 * is armed: it halts the process just before the commit file of a micro-batch is written (the
 * batch's output is then committed, its checkpoint commit is not). Which query is meant is read
 * from the name Spark gives the query's thread, which carries the query name replaysafe sets
 * ({@code replaysafe_bronze_<pipeline>} or {@code replaysafe_silver_<pipeline>}). Its writes are
 * fenced by the lease like every checkpoint's.
 */
public final class CrashingCheckpointFileManager extends FencedCheckpointFileManager {
  public CrashingCheckpointFileManager(Path path, Configuration hadoopConf) {
    super(path, hadoopConf);
  }

  @Override
  public CancellableFSDataOutputStream createAtomic(Path path, boolean overwriteIfPossible) {
    if (path.getParent() != null && "commits".equals(path.getParent().getName())) {
      String thread = Thread.currentThread().getName();
      if (thread.contains("replaysafe_bronze_")) {
        CrashPoints.maybeCrash(CrashPoints.BRONZE_BEFORE_CHECKPOINT_COMMIT);
      } else if (thread.contains("replaysafe_silver_")) {
        CrashPoints.maybeCrash(CrashPoints.SILVER_BEFORE_CHECKPOINT_COMMIT);
      }
    }
    return super.createAtomic(path, overwriteIfPossible);
  }
}
