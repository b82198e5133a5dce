package io.replaysafe.common.lease;

import io.replaysafe.common.io.DirectPut;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
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
 *
 * <p>A query's offset and commit logs ({@code offsets/}, {@code commits/}) are listed once per
 * manager. Spark makes one manager per log when the query starts and writes the log only through
 * it; before the first batch it lists each log two or three times (on S3A each listing a probe for
 * the directory and the LIST), and it asks for each batch file before it reads or writes one
 * (measured on a scheduled silver run over S3A: 30 requests for the two logs). The first listing is
 * kept, with this manager's own writes and deletes applied to it ({@link KnownLog}); later
 * listings, existence probes and opens of the log's files are answered from it. What else could
 * change the log is another writer, which the pipeline's lease fences out, as it did for the
 * one-request probes before (neither was atomic with the write that followed).
 */
public class FencedCheckpointFileManager extends FileSystemBasedCheckpointFileManager {
  private static final Logger LOG = LoggerFactory.getLogger(FencedCheckpointFileManager.class);

  // Null where streams cannot be aborted: the rename-based write of the superclass then.
  private final FileSystem abortable;
  // The directory this manager was made for (a metadata log's: offsets, commits, sources/0).
  private final Path root;
  // Null unless root is a query's offset or commit log on an abortable store: see KnownLog.
  private final KnownLog known;
  // The status of the file exists() last found outside the log's listing, for the open that
  // follows it: Spark asks whether the query's metadata file is there, then reads it.
  private volatile FileStatus lastFound;

  public FencedCheckpointFileManager(Path path, Configuration hadoopConf) {
    super(path, hadoopConf);
    this.abortable = abortableFileSystem(path, hadoopConf);
    this.root = path;
    this.known =
        abortable != null && KnownLog.LOGS.contains(path.getName()) ? new KnownLog() : null;
  }

  /**
   * The files of the log at {@code root} as this manager listed them, with its own writes and
   * deletes since. Unknown until the first listing of the log: until then everything is asked of
   * the store, as before.
   */
  private static final class KnownLog {
    /** The directory names of the logs Spark writes only through their own manager. */
    static final java.util.Set<String> LOGS = java.util.Set.of("offsets", "commits");

    // By name.
    private volatile Map<String, FileStatus> files;
    // The names of the files this manager wrote since the listing: their statuses are made up.
    private final java.util.Set<String> written = ConcurrentHashMap.newKeySet();

    boolean listed() {
      return files != null;
    }

    void listed(FileStatus[] statuses) {
      Map<String, FileStatus> byName = new ConcurrentHashMap<>();
      for (FileStatus status : statuses) {
        byName.put(status.getPath().getName(), status);
      }
      files = byName;
    }

    boolean contains(Path file) {
      return files.containsKey(file.getName());
    }

    /** The listed status of {@code file}, for an open without a probe; empty for one written. */
    Optional<FileStatus> listedStatus(Path file) {
      Map<String, FileStatus> current = files;
      FileStatus status = current == null ? null : current.get(file.getName());
      return status == null || written.contains(file.getName())
          ? Optional.empty()
          : Optional.of(status);
    }

    void written(Path file) {
      Map<String, FileStatus> current = files;
      if (current != null) {
        // Spark reads only the names (and isFile) of a log's listing; the length is not known.
        written.add(file.getName());
        current.put(file.getName(), new FileStatus(0, false, 1, 0, 0, file));
      }
    }

    void deleted(Path file) {
      Map<String, FileStatus> current = files;
      if (current != null) {
        current.remove(file.getName());
        written.remove(file.getName());
      }
    }

    FileStatus[] list(PathFilter filter) {
      List<FileStatus> accepted = new ArrayList<>();
      for (FileStatus status : files.values()) {
        if (filter.accept(status.getPath())) {
          accepted.add(status);
        }
      }
      return accepted.toArray(FileStatus[]::new);
    }
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
    if (known != null && known.listed()) {
      // The log's listing, with this manager's own writes since, answers for it and its files.
      if (path.equals(root)) {
        return true;
      }
      if (root.equals(path.getParent())) {
        return known.contains(path);
      }
    }
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
    if (abortable != null && !path.equals(root)) {
      try {
        // The plain probe's requests (S3A asks for a file, then a directory), keeping the status
        // of a file found for the open that usually follows (the query's metadata file).
        FileStatus status = abortable.getFileStatus(path);
        lastFound = status.isFile() ? status : null;
        return true;
      } catch (java.io.FileNotFoundException e) {
        return false;
      } catch (IOException e) {
        // the plain probe below answers
      }
    }
    return super.exists(path);
  }

  /**
   * The log's files, listed once ({@link KnownLog}); any other directory, and every directory on
   * other stores, is listed each time, as before.
   */
  @Override
  public FileStatus[] list(Path path, PathFilter filter) {
    if (known == null || !path.equals(root)) {
      return super.list(path, filter);
    }
    synchronized (known) {
      if (!known.listed()) {
        known.listed(super.list(path, p -> true));
      }
      return known.list(filter);
    }
  }

  /**
   * A file of the log, opened with its listed status, and a file exists() has just found, with the
   * status it found: S3A then reads it with one GET, without the HEAD an open by name starts with.
   * Anything else, or when that fails, opened by name.
   */
  @Override
  public FSDataInputStream open(Path path) {
    Optional<FileStatus> listed =
        known != null && root.equals(path.getParent())
            ? known.listedStatus(path)
            : Optional.empty();
    FileStatus found = lastFound;
    if (listed.isEmpty()
        && found != null
        && found.getPath().equals(abortable.makeQualified(path))) {
      lastFound = null;
      listed = Optional.of(found);
    }
    if (listed.isPresent()) {
      try {
        return abortable.openFile(path).withFileStatus(listed.get()).build().get();
      } catch (IOException | ExecutionException | RuntimeException e) {
        // opened by name below
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw sneaky(new InterruptedIOException("interrupted opening " + path));
      }
    }
    return super.open(path);
  }

  @Override
  public void delete(Path path) {
    super.delete(path);
    if (known != null && root.equals(path.getParent())) {
      known.deleted(path);
    }
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
      // A file of a listed log is known without asking.
      boolean knownLog = known != null && known.listed() && root.equals(path.getParent());
      if (!overwriteIfPossible
          && !isDeltaChecksum(path)
          && (knownLog ? known.contains(path) : isFile(path))) {
        throw new FileAlreadyExistsException(path + " already exists");
      }
      FSDataOutputStream out = DirectPut.create(abortable, path);
      Runnable onClosed = known == null ? () -> {} : () -> known.written(path);
      return new AbortableOutputStream(out, path, onClosed);
    } catch (IOException e) {
      // As Spark's own managers throw it, unwrapped: HDFSMetadataLog tells another query writing
      // the same batch by its FileAlreadyExistsException.
      throw sneaky(e);
    }
  }

  /**
   * Delta's checksum of a version ({@code _delta_log/N.crc}), which Delta writes here after its
   * commit, asking not to overwrite. It needs no probe (one HEAD per commit on S3): only the writer
   * whose {@code N.json} won the put-if-absent writes {@code N.crc}, its content is a function of
   * the version, and Delta only warns when the write fails.
   */
  private static boolean isDeltaChecksum(Path path) {
    Path parent = path.getParent();
    return parent != null
        && "_delta_log".equals(parent.getName())
        && io.replaysafe.common.io.DeltaLogNames.isChecksum(path.getName());
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
    // Told once the file is visible (closed, not cancelled).
    private final Runnable onClosed;
    private boolean terminated;

    AbortableOutputStream(FSDataOutputStream out, Path path, Runnable onClosed) {
      super(out);
      this.out = out;
      this.path = path;
      this.onClosed = onClosed;
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
      onClosed.run();
    }
  }
}
