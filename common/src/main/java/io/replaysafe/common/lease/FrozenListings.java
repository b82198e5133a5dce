package io.replaysafe.common.lease;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * Delta logs that nobody writes for a while, listed once for that while: the listing of a frozen
 * log is kept from its first {@code listFrom} and answers every later one that starts at or after
 * the same file. Silver's scheduled query is the case: bronze's log cannot change while the run
 * holds the pipeline's lease and bronze's own query has finished, yet Delta's streaming source
 * listed it 17 times in one fresh run (a LIST each on S3, 20-50 ms in-region).
 *
 * <p>A write to a frozen log through this JVM's log store drops its listing, and the next {@code
 * listFrom} lists again. A writer in another process is what the lease keeps out; one that took a
 * lost lease over is not seen until the scope ends, so the reader sees the log as it was when the
 * scope began, and anything this process would write is fenced anyway.
 */
public final class FrozenListings {
  /** A frozen log's kept listing: the files from {@code from} on; null until first listed. */
  private static final class Kept {
    private String from;
    private List<FileStatus> files;
  }

  private static final Map<String, Kept> FROZEN = new ConcurrentHashMap<>();

  private FrozenListings() {}

  /** A frozen log's scope; closing it thaws the log. */
  public interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  /** Freezes the log at {@code logDir} (qualified) until the returned scope closes. */
  static Scope freeze(String logDir) {
    Kept kept = new Kept();
    FROZEN.put(logDir, kept);
    return () -> FROZEN.remove(logDir, kept);
  }

  /** The log's qualified directory, as the scopes name it. */
  static String logDir(Path file, Configuration conf) throws IOException {
    Path parent = file.getParent();
    return parent.getFileSystem(conf).makeQualified(parent).toString();
  }

  /**
   * The listing from {@code path} on: the kept one while the log is frozen and was listed from a
   * file at or before {@code path}; otherwise {@code lister}'s, kept when the log is frozen.
   */
  static Iterator<FileStatus> listFrom(Path path, Configuration conf, Lister lister)
      throws IOException {
    Kept kept = FROZEN.isEmpty() ? null : FROZEN.get(logDir(path, conf));
    if (kept == null) {
      return lister.listFrom(path);
    }
    String name = path.getName();
    synchronized (kept) {
      if (kept.files == null || kept.from.compareTo(name) > 0) {
        List<FileStatus> files = new ArrayList<>();
        lister.listFrom(path).forEachRemaining(files::add);
        kept.from = name;
        kept.files = List.copyOf(files);
      }
      return kept.files.stream().filter(s -> s.getPath().getName().compareTo(name) >= 0).iterator();
    }
  }

  /** A file was written to the log at {@code file}'s directory: a frozen log is listed again. */
  static void written(Path file, Configuration conf) throws IOException {
    if (FROZEN.isEmpty()) {
      return;
    }
    Kept kept = FROZEN.get(logDir(file, conf));
    if (kept != null) {
      synchronized (kept) {
        kept.files = null;
      }
    }
  }

  /** The log store's own listing. */
  @FunctionalInterface
  interface Lister {
    Iterator<FileStatus> listFrom(Path path) throws IOException;
  }
}
