package io.replaysafe.bronze;

import io.replaysafe.common.Interruptions;
import io.replaysafe.common.StorageErrors;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.GlobFilter;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.util.HadoopFSUtils;

/**
 * Lists {@code source.path} whole, every run, as Spark's file source did: recursively (one flat
 * LIST per 1,000 keys on S3), skipping the names Spark skips (hidden, temporary, {@code _SUCCESS})
 * at any depth, keeping the file names {@code pathGlobFilter} matches. Hands each file on as it is
 * listed ({@link #discoverEach}) and holds none: the file state is asked about them a chunk at a
 * time, never loaded, so a run's heap does not grow with the prefix (issue 26: holding the listing
 * cost an idle run about 0.5 KB per listed file, 1.76x the heap at 100,000 files of that at 1,000).
 * A run's listing passes over the ranges of files a committed run recorded as held ({@link
 * ListedRanges}), so the file state is asked only about the ranges that changed.
 */
final class ListingDiscovery implements FileDiscovery {
  private static final String S3A = "org.apache.hadoop.fs.s3a.S3AFileSystem";

  private final Configuration conf;
  private final Path root;
  private final GlobFilter glob;

  /** The ranges of a run's listings ({@link ListedRanges}); empty where nothing is recorded. */
  private final Optional<ListedRanges> ranges;

  private final Optional<FileState> state;

  /** A listing that records nothing: every candidate is decided by the file state. */
  ListingDiscovery(Configuration conf, String path, Map<String, String> options) {
    this(conf, path, options, null);
  }

  /**
   * A run's listing, which passes over the ranges it recorded as held in {@code state}'s checkpoint
   * ({@link ListedRanges}) and records them at the run's end.
   */
  ListingDiscovery(Configuration conf, String path, Map<String, String> options, FileState state) {
    this.conf = conf;
    this.root = new Path(path);
    this.state = Optional.ofNullable(state);
    this.ranges = state == null ? Optional.empty() : ListedRanges.of(conf, state.checkpoint());
    try {
      String pattern = options.get("pathGlobFilter");
      this.glob = pattern == null ? null : new GlobFilter(pattern);
    } catch (IOException e) {
      throw BronzeErrors.badPathGlobFilter(e);
    }
  }

  @Override
  public List<FileState.Discovered> discover() {
    return list(conf, root, glob);
  }

  @Override
  public void discoverEach(Consumer<FileState.Discovered> each) {
    list(conf, root, glob, each);
  }

  @Override
  public void undecided(
      FileState.Version version, boolean byName, Consumer<FileState.Discovered> each) {
    if (ranges.isEmpty()) {
      discoverEach(each);
    } else {
      ranges.get().undecided(this::discoverEach, version, byName, each);
    }
  }

  @Override
  public void notHeld(List<FileState.Discovered> fresh) {
    ranges.ifPresent(r -> r.notHeld(fresh));
  }

  @Override
  public void planned(long batch, List<String> plannedPaths, List<String> pendingPaths) {
    ranges.ifPresent(r -> r.planned(batch, plannedPaths));
  }

  @Override
  public void release(long batch) {
    ranges.ifPresent(r -> r.release(batch));
  }

  @Override
  public void committed(long lastCommitted) {
    ranges.ifPresent(r -> r.committed(lastCommitted, state.get().tableIdKnownHere()));
  }

  /** What the run's latest listing passed over and handed on; empty without ranges. */
  Optional<ListedRanges.Counts> lastListing() {
    return ranges.flatMap(ListedRanges::lastListing);
  }

  @Override
  public String kind(FileState.Discovered file) {
    return FileState.BY_LISTING;
  }

  /** The data files under {@code root} that Spark's file source would read, held in a list. */
  static List<FileState.Discovered> list(Configuration conf, Path root, GlobFilter glob) {
    List<FileState.Discovered> files = new ArrayList<>();
    list(conf, root, glob, files::add);
    return files;
  }

  /** Hands on each data file under {@code root} that Spark's file source would read, as listed. */
  static void list(
      Configuration conf, Path root, GlobFilter glob, Consumer<FileState.Discovered> each) {
    try {
      FileSystem fs = root.getFileSystem(conf);
      Path base = fs.makeQualified(root);
      String scheme = base.toUri().getScheme();
      if ("s3a".equals(scheme)) {
        // One flat listing of the prefix: a LIST per 1,000 keys, not one per directory, each page
        // handed on as the next is asked for. Listed without asking first whether the root
        // exists (a HEAD and a LIST of their own): the listing of a missing root fails, which is
        // the same answer, no file. With S3A's own client where it can (no Path per plain key),
        // else through S3A's listing. By class name first: where s3a is another implementation,
        // Hadoop's S3A need not be on the class path at all.
        if (!S3A.equals(fs.getClass().getName()) || !S3PrefixListing.list(fs, base, glob, each)) {
          listFiles(fs, base, glob, each);
        }
      } else if (!fs.exists(base)) {
        return;
      } else if (fs.getClass() == LocalFileSystem.class
          || fs.getClass() == RawLocalFileSystem.class) {
        // Hadoop's own local file systems only: a subclass may list otherwise than it looks a
        // file up, and is listed through its own listing.
        walkLocal(fs, base, glob, each);
      } else {
        walk(fs, base, glob, each);
      }
    } catch (IOException e) {
      // A stopped query's thread is interrupted while it lists: a stop, not a failed listing.
      Interruptions.rethrowIfInterrupted("listing " + root, e);
      throw StorageErrors.cannotList("source.path", root.toString(), e);
    } catch (DirectoryIteratorException e) {
      Interruptions.rethrowIfInterrupted("listing " + root, e);
      throw StorageErrors.cannotList("source.path", root.toString(), e.getCause());
    }
  }

  /**
   * Through the file system's own recursive listing ({@link FileSystem#listFiles}), each file named
   * by it: on S3A, one flat listing of the prefix. A missing root lists no file.
   */
  static void listFiles(
      FileSystem fs, Path base, GlobFilter glob, Consumer<FileState.Discovered> each)
      throws IOException {
    int depth = base.depth();
    RemoteIterator<LocatedFileStatus> it;
    try {
      it = fs.listFiles(base, true);
    } catch (FileNotFoundException missing) {
      return;
    }
    while (it.hasNext()) {
      LocatedFileStatus status = it.next();
      if (counts(status.getPath().toUri().getPath(), depth) && matches(glob, status.getPath())) {
        each.accept(discovered(status));
      }
    }
  }

  /**
   * Directory by directory, as Spark's file index lists a file system that is not S3, each
   * directory as a stream of statuses (HDFS and the object stores hand them on a page at a time).
   */
  private static void walk(
      FileSystem fs, Path dir, GlobFilter glob, Consumer<FileState.Discovered> each)
      throws IOException {
    RemoteIterator<FileStatus> it = fs.listStatusIterator(dir);
    while (it.hasNext()) {
      FileStatus status = it.next();
      if (HadoopFSUtils.shouldFilterOutPathName(status.getPath().getName())) {
        continue;
      }
      if (status.isDirectory()) {
        walk(fs, status.getPath(), glob, each);
      } else if (matches(glob, status.getPath())) {
        each.accept(discovered(status));
      }
    }
  }

  /**
   * Directory by directory on local disk. Hadoop's local listing of a directory, even through its
   * iterator, builds every entry's status before it returns the first (about 470 bytes each, held
   * until the last is handed on): here the directory's names are read as a stream, and each entry
   * is looked up as Hadoop's listing looks it up, then let go. An entry gone between the two is
   * skipped, as Hadoop's listing skips it.
   *
   * <p>Hadoop names each entry through three {@link Path}s, each a {@link java.net.URI} parsed and
   * normalised by regular expression: about 10 microseconds a file, most of the listing's cost
   * (issue 26: 1.4 s of 100,000 files). A name of {@linkplain #plain plain characters} is named
   * here as its directory's first plain-named entry was named by Hadoop ({@link
   * FileSystem#getFileStatus} of the child path built as Hadoop's listing builds it), with that
   * name's directory part: a plain name is the same in a URI as on disk. Its size and modification
   * time are read from the same {@code stat} as Hadoop's (links followed, the time in
   * milliseconds). Any other name is named by Hadoop, so a file is named as Spark names it either
   * way ({@code ListingChunksTest}).
   */
  private static void walkLocal(
      FileSystem fs, Path dir, GlobFilter glob, Consumer<FileState.Discovered> each)
      throws IOException {
    java.nio.file.Path local =
        (fs instanceof LocalFileSystem checksummed
                ? checksummed.pathToFile(dir)
                : ((RawLocalFileSystem) fs).pathToFile(dir))
            .toPath();
    // What precedes a plain name in this directory's entries, as Hadoop names them; null until
    // Hadoop named one.
    String named = null;
    try (DirectoryStream<java.nio.file.Path> names = Files.newDirectoryStream(local)) {
      for (java.nio.file.Path entry : names) {
        String name = entry.getFileName().toString();
        if (HadoopFSUtils.shouldFilterOutPathName(name)) {
          continue;
        }
        boolean plain = plain(name);
        if (named != null && plain) {
          BasicFileAttributes attributes;
          try {
            attributes = Files.readAttributes(entry, BasicFileAttributes.class);
          } catch (NoSuchFileException gone) {
            continue;
          }
          if (attributes.isDirectory()) {
            walkLocal(fs, new Path(named + name), glob, each);
          } else if (glob == null || glob.accept(new Path(null, null, name))) {
            each.accept(
                new FileState.Discovered(
                    named + name,
                    attributes.size(),
                    attributes.lastModifiedTime().toMillis(),
                    null));
          }
          continue;
        }
        // The three-argument constructor, as Hadoop's listing: a name with a colon is no scheme.
        Path child = new Path(dir, new Path(null, null, name));
        FileStatus status;
        try {
          status = fs.getFileStatus(child);
        } catch (FileNotFoundException gone) {
          continue;
        }
        if (plain && !Path.WINDOWS) {
          String full = status.getPath().toUri().toString();
          if (full.endsWith("/" + name)) {
            named = full.substring(0, full.length() - name.length());
          }
        }
        if (status.isDirectory()) {
          walkLocal(fs, status.getPath(), glob, each);
        } else if (matches(glob, status.getPath())) {
          each.accept(discovered(status));
        }
      }
    }
  }

  /**
   * A name that a URI holds as it is and that Hadoop's {@link Path} leaves as it is: ASCII letters
   * and digits, {@code . _ - =} (as in {@code date=2026-12-06}). Any other is named by Hadoop.
   */
  static boolean plain(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      if (!plainChar(name.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** A character of a {@linkplain #plain plain} name. */
  static boolean plainChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '.'
        || c == '_'
        || c == '-'
        || c == '=';
  }

  static FileState.Discovered discovered(FileStatus status) {
    return new FileState.Discovered(
        status.getPath().toUri().toString(),
        status.getLen(),
        status.getModificationTime(),
        status instanceof EtagSource etag ? etag.getEtag() : null);
  }

  /**
   * False when the file or a directory between it and the root has a name Spark skips. Read from
   * the file's URI path ({@code /bucket-less/key/parts}), the names below the root's {@code
   * rootDepth} ({@link Path#depth}), without a {@link Path} per parent.
   */
  static boolean counts(String filePath, int rootDepth) {
    int depth = 0;
    int slash = filePath.indexOf('/');
    while (slash >= 0) {
      depth++;
      int next = filePath.indexOf('/', slash + 1);
      if (depth > rootDepth
          && HadoopFSUtils.shouldFilterOutPathName(
              filePath.substring(slash + 1, next < 0 ? filePath.length() : next))) {
        return false;
      }
      slash = next;
    }
    return true;
  }

  static boolean matches(GlobFilter glob, Path file) {
    return glob == null || glob.accept(file);
  }
}
