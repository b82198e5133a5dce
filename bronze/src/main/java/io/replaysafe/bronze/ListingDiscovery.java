package io.replaysafe.bronze;

import io.replaysafe.common.StorageErrors;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.GlobFilter;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.util.HadoopFSUtils;

/**
 * Lists {@code source.path} whole, every run, as Spark's file source did: recursively (one flat
 * LIST per 1,000 keys on S3), skipping the names Spark skips (hidden, temporary, {@code _SUCCESS})
 * at any depth, keeping the file names {@code pathGlobFilter} matches. Holds only this listing: the
 * file state is asked about the listed files, never loaded.
 */
final class ListingDiscovery implements FileDiscovery {
  private final Configuration conf;
  private final Path root;
  private final GlobFilter glob;

  ListingDiscovery(Configuration conf, String path, Map<String, String> options) {
    this.conf = conf;
    this.root = new Path(path);
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
  public String kind(FileState.Discovered file) {
    return FileState.BY_LISTING;
  }

  /** The data files under {@code root} that Spark's file source would read. */
  static List<FileState.Discovered> list(Configuration conf, Path root, GlobFilter glob) {
    List<FileState.Discovered> files = new ArrayList<>();
    try {
      FileSystem fs = root.getFileSystem(conf);
      Path base = fs.makeQualified(root);
      if ("s3a".equals(base.toUri().getScheme())) {
        // One flat listing of the prefix: a LIST per 1,000 keys, not one per directory. Listed
        // without asking first whether the root exists (a HEAD and a LIST of their own): the
        // listing of a missing root fails, which is the same answer, no file.
        int depth = base.depth();
        RemoteIterator<LocatedFileStatus> it;
        try {
          it = fs.listFiles(base, true);
        } catch (FileNotFoundException missing) {
          return files;
        }
        while (it.hasNext()) {
          LocatedFileStatus status = it.next();
          if (counts(status.getPath(), depth) && matches(glob, status.getPath())) {
            files.add(discovered(status));
          }
        }
      } else if (fs.exists(base)) {
        walk(fs, base, glob, files);
      }
      return files;
    } catch (IOException e) {
      throw StorageErrors.cannotList("source.path", root.toString(), e);
    }
  }

  /** Directory by directory, as Spark's file index lists a file system that is not S3. */
  private static void walk(
      FileSystem fs, Path dir, GlobFilter glob, List<FileState.Discovered> files)
      throws IOException {
    for (FileStatus status : fs.listStatus(dir)) {
      if (HadoopFSUtils.shouldFilterOutPathName(status.getPath().getName())) {
        continue;
      }
      if (status.isDirectory()) {
        walk(fs, status.getPath(), glob, files);
      } else if (matches(glob, status.getPath())) {
        files.add(discovered(status));
      }
    }
  }

  static FileState.Discovered discovered(FileStatus status) {
    return new FileState.Discovered(
        status.getPath().toUri().toString(),
        status.getLen(),
        status.getModificationTime(),
        status instanceof EtagSource etag ? etag.getEtag() : null);
  }

  /** False when the file or a directory between it and the root has a name Spark skips. */
  static boolean counts(Path file, int rootDepth) {
    for (Path p = file; p != null && p.depth() > rootDepth; p = p.getParent()) {
      if (HadoopFSUtils.shouldFilterOutPathName(p.getName())) {
        return false;
      }
    }
    return true;
  }

  static boolean matches(GlobFilter glob, Path file) {
    return glob == null || glob.accept(file);
  }
}
