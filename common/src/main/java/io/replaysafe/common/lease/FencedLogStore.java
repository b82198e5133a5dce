package io.replaysafe.common.lease;

import io.delta.storage.CloseableIterator;
import io.delta.storage.HDFSLogStore;
import io.delta.storage.LogStore;
import io.delta.storage.S3SingleDriverLogStore;
import io.replaysafe.common.io.DeltaLogNames;
import io.replaysafe.common.io.DirectPut;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Delta's log store for {@code file:} and {@code s3a:} tables, as Delta would choose it ({@link
 * HDFSLogStore}, {@link S3SingleDriverLogStore}), with the lease's fence in front of every write: a
 * holder that may have lost the pipeline's lease stops before it writes a commit of any table
 * (bronze, silver, the side tables, the run log), because Delta writes each through here. Each
 * commit's {@code commitInfo} also names the writer ({@code replaysafeWriter}: lease claim,
 * command, host, pid), which the Delta protocol allows ("arbitrary fields") and which shows after
 * the fact who wrote what. Installed by {@code SparkSessions} as {@code
 * spark.delta.logStore.<scheme>.impl} unless the deployment chose a log store of its own.
 */
public final class FencedLogStore extends LogStore {
  /** The schemes whose log store this replaces; S3's as Delta's defaults name them. */
  public static final Set<String> SCHEMES = Set.of("file", "s3", "s3a", "s3n");

  private static final Set<String> S3 = Set.of("s3", "s3a", "s3n");
  private static final String COMMIT_INFO = "{\"commitInfo\":{";

  private final LogStore hdfs;
  private final LogStore s3;

  public FencedLogStore(Configuration conf) {
    super(conf);
    this.hdfs = new HDFSLogStore(conf);
    this.s3 = new S3SingleDriverLogStore(conf);
  }

  private LogStore delegate(Path path) {
    String scheme = path.toUri().getScheme();
    return scheme != null && S3.contains(scheme) ? s3 : hdfs;
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
      throws IOException {
    LeaseFence.check(path.toString());
    Iterator<String> written = actions;
    Optional<String> writer = LeaseFence.writer();
    if (writer.isPresent() && DeltaLogNames.isCommit(path.getName())) {
      written = withWriter(actions, writer.get());
    }
    FrozenListings.written(path, conf);
    if (isS3(path)) {
      writeS3(path, written, overwrite, conf);
    } else {
      delegate(path).write(path, written, overwrite, conf);
    }
  }

  /**
   * Lists the Delta log of the table at {@code tablePath} once until the returned scope closes (see
   * {@link FrozenListings}): for a reader that knows nobody writes that table meanwhile, as
   * silver's scheduled query knows of bronze under the pipeline's lease. Without effect where the
   * deployment chose a log store of its own.
   */
  public static FrozenListings.Scope freezeListing(String tablePath, Configuration conf) {
    Path log = new Path(tablePath, "_delta_log");
    try {
      return FrozenListings.freeze(FrozenListings.logDir(new Path(log, "x"), conf));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("Cannot resolve " + log, e);
    }
  }

  private static boolean isS3(Path path) {
    String scheme = path.toUri().getScheme();
    return scheme != null && S3.contains(scheme);
  }

  // In-JVM mutual exclusion per file, as S3SingleDriverLogStore's lock: two writers of one commit
  // in this JVM are told apart by the probe below. Striped: a lock per path would keep one object
  // for every commit ever written.
  private static final Object[] LOCKS = new Object[64];

  static {
    for (int i = 0; i < LOCKS.length; i++) {
      LOCKS[i] = new Object();
    }
  }

  /**
   * A commit file written as {@link S3SingleDriverLogStore} writes it (a probe, then the file in
   * one PUT, in-JVM exclusion per path), with one probe instead of four requests: that store asks
   * whether the file exists (on S3A a HEAD and a LIST for a directory of that name), then S3A's
   * {@code create} asks the same again before it writes. Here a HEAD alone asks for the file (Delta
   * never makes a directory named like a log file), and the create makes no probe of its own
   * ({@code fs.s3a.create.performance}). Across processes, the pipeline's lease keeps writers
   * apart, as before: neither probe was atomic with the PUT.
   */
  private static void writeS3(
      Path path, Iterator<String> actions, boolean overwrite, Configuration conf)
      throws IOException {
    FileSystem fs = path.getFileSystem(conf);
    Path resolved = fs.makeQualified(path);
    synchronized (LOCKS[Math.floorMod(resolved.hashCode(), LOCKS.length)]) {
      if (!overwrite && fileExists(fs, resolved)) {
        throw new java.nio.file.FileAlreadyExistsException(resolved.toUri().toString());
      }
      try (FSDataOutputStream out = DirectPut.create(fs, resolved)) {
        while (actions.hasNext()) {
          out.write((actions.next() + "\n").getBytes(StandardCharsets.UTF_8));
        }
      }
    }
  }

  @SuppressWarnings("deprecation")
  private static boolean fileExists(FileSystem fs, Path path) throws IOException {
    // S3A's isFile asks for an object only: one HEAD.
    return fs.isFile(path);
  }

  /** The commit's actions with {@code "replaysafeWriter":{...}} first in its commitInfo. */
  static Iterator<String> withWriter(Iterator<String> actions, String writer) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return actions.hasNext();
      }

      @Override
      public String next() {
        String action = actions.next();
        return action.startsWith(COMMIT_INFO)
            ? COMMIT_INFO
                + "\"replaysafeWriter\":"
                + writer
                + ","
                + action.substring(COMMIT_INFO.length())
            : action;
      }
    };
  }

  /** One per JVM: the log stores Delta makes per table and session all share what was listed. */
  private static final ListedLogReads LISTED = new ListedLogReads();

  @Override
  public CloseableIterator<String> read(Path path, Configuration conf) throws IOException {
    if (isS3(path)) {
      CloseableIterator<String> listed = LISTED.read(path, conf);
      if (listed != null) {
        return listed;
      }
    }
    return delegate(path).read(path, conf);
  }

  @Override
  public Iterator<FileStatus> listFrom(Path path, Configuration conf) throws IOException {
    Iterator<FileStatus> listing =
        FrozenListings.listFrom(path, conf, from -> delegate(from).listFrom(from, conf));
    return isS3(path) ? LISTED.remember(listing) : listing;
  }

  @Override
  public Path resolvePathOnPhysicalStorage(Path path, Configuration conf) throws IOException {
    return delegate(path).resolvePathOnPhysicalStorage(path, conf);
  }

  @Override
  public Boolean isPartialWriteVisible(Path path, Configuration conf) throws IOException {
    return delegate(path).isPartialWriteVisible(path, conf);
  }
}
