package io.replaysafe.common.lease;

import io.replaysafe.common.io.DirectPut;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming checkpoint's file manager with the lease's fence in front of every file it writes:
 * a micro-batch's offsets and commit, a file source's log of the files it read, the query's
 * metadata, and Delta's checksum files ({@code _delta_log/N.crc}, which Delta writes through the
 * same manager). A holder that may have lost the pipeline's lease stops before it records progress
 * another writer may already have made. Installed by {@code SparkSessions} as {@code
 * spark.sql.streaming.checkpointFileManagerClass} unless the deployment chose one.
 *
 * <p>On a store whose output streams can be aborted (S3A), a file is written in place, as Spark's
 * own {@code AbortableStreamBasedCheckpointFileManager} (spark-hadoop-cloud) writes it: an S3
 * object becomes visible only when its stream closes, whole, and {@link
 * CancellableFSDataOutputStream#cancel()} aborts the upload so that nothing becomes visible. That
 * is the atomicity the rename gives elsewhere, without the rename: on S3 a rename is a copy and a
 * delete, and the temporary file's existence probes made a checkpoint file cost 10 to 12 requests
 * instead of 2 (the probe that {@code overwriteIfPossible == false} asks for, one HEAD, and the
 * PUT). A file that exists already still fails the create when it may not be overwritten.
 */
public class FencedCheckpointFileManager extends FileSystemBasedCheckpointFileManager {
  private static final Logger LOG = LoggerFactory.getLogger(FencedCheckpointFileManager.class);

  // Null where streams cannot be aborted: the rename-based write of the superclass then.
  private final FileSystem abortable;
  // The directory this manager was made for (a metadata log's: offsets, commits, sources/0).
  private final Path root;

  public FencedCheckpointFileManager(Path path, Configuration hadoopConf) {
    super(path, hadoopConf);
    this.abortable = abortableFileSystem(path, hadoopConf);
    this.root = path;
  }

  /**
   * Whether {@code path} exists. Spark asks it of the directory a metadata log was made for each
   * time it opens the log (several times a run per log). On S3A a plain probe asks first for an
   * object of that name (HEAD), then for a directory (LIST): here, for that directory only, the
   * directory is asked for first, which answers an existing one with one request instead of two.
   * Anything else (a missing directory, a file by that name) gets the plain probe, so the answer is
   * the same.
   */
  @Override
  public boolean exists(Path path) {
    if (abortable != null && isBatchFile(path)) {
      try {
        // A metadata log's batch file (offsets/7, commits/7), which Spark asks for before it
        // writes one: a file or nothing, never a directory, so one HEAD answers.
        return isFile(path);
      } catch (IOException e) {
        // the plain probe below answers
      }
    }
    if (abortable != null && path.equals(root)) {
      try {
        // S3A's isDirectory probes for a directory only (one LIST), its isFile for an object only
        // (one HEAD): together the plain probe's two requests, in the order that stops after one
        // for an existing directory.
        @SuppressWarnings("deprecation")
        boolean found = abortable.isDirectory(path) || abortable.isFile(path);
        return found;
      } catch (IOException e) {
        // the plain probe below answers
      }
    }
    return super.exists(path);
  }

  private boolean isBatchFile(Path path) {
    return root.equals(path.getParent()) && BATCH_FILE.matcher(path.getName()).matches();
  }

  private static final java.util.regex.Pattern BATCH_FILE = java.util.regex.Pattern.compile("\\d+");

  @SuppressWarnings("deprecation")
  private boolean isFile(Path path) throws IOException {
    // S3A's isFile asks for an object only: one HEAD.
    return abortable.isFile(path);
  }

  private static FileSystem abortableFileSystem(Path path, Configuration hadoopConf) {
    try {
      FileSystem fs = path.getFileSystem(hadoopConf);
      return fs.hasPathCapability(path, CommonPathCapabilities.ABORTABLE_STREAM) ? fs : null;
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public CancellableFSDataOutputStream createAtomic(Path path, boolean overwriteIfPossible) {
    LeaseFence.check(path.toString());
    if (abortable == null) {
      return super.createAtomic(path, overwriteIfPossible);
    }
    try {
      // The probe that overwriteIfPossible == false asks for, as one HEAD: S3A's own create would
      // also ask for a directory of that name (a LIST), which no checkpoint or log file has.
      if (!overwriteIfPossible && isFile(path)) {
        throw new FileAlreadyExistsException(path + " already exists");
      }
      FSDataOutputStream out = DirectPut.create(abortable, path);
      return new AbortableOutputStream(out, path);
    } catch (IOException e) {
      // As Spark's own managers throw it, unwrapped: HDFSMetadataLog tells another query writing
      // the same batch by its FileAlreadyExistsException.
      throw sneaky(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <E extends Exception> RuntimeException sneaky(Exception e) throws E {
    throw (E) e;
  }

  /**
   * Written in place; visible only once closed. {@link #cancel()} aborts the upload, and closing
   * after that does nothing.
   */
  static final class AbortableOutputStream extends CancellableFSDataOutputStream {
    private final FSDataOutputStream out;
    private final Path path;
    private boolean terminated;

    AbortableOutputStream(FSDataOutputStream out, Path path) {
      super(out);
      this.out = out;
      this.path = path;
    }

    @Override
    public synchronized void cancel() {
      if (terminated) {
        return;
      }
      terminated = true;
      try {
        out.abort();
        out.close();
      } catch (IOException | RuntimeException e) {
        LOG.warn("Could not abort the write of {}: {}", path, e.toString());
      }
    }

    @Override
    public synchronized void close() throws IOException {
      if (terminated) {
        return;
      }
      terminated = true;
      out.close();
    }
  }
}
