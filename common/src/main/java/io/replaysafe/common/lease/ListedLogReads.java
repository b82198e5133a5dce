package io.replaysafe.common.lease;

import io.delta.storage.CloseableIterator;
import io.replaysafe.common.io.DeltaLogNames;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * Reads of a Delta log's commit and checksum files on S3 that a listing of the log has just named,
 * without the requests a plain open repeats: S3A's {@code open} first asks for the object's length
 * (a HEAD), and Delta reads the same commit again and again within one run. A fresh {@code
 * replaysafe run} with 10 new events made 20 GETs of 12 distinct log files, each after its HEAD:
 * silver's streaming source reads bronze's newest commit four times, and bronze's first commits are
 * read once by bronze's query and again by silver's.
 *
 * <p>Why it is safe: a file named {@code <20 digits>.json} or {@code .crc} is written once and
 * never changed (Delta writes it only if absent, and the lease keeps other writers out). A read is
 * served from memory only when the latest listing of its log named the file with the identity the
 * cached content was read under (ETag, length, modification time): a table deleted and created
 * again at the same path lists its files anew, with other identities, so its old content is never
 * returned. A file no listing named (a {@code _last_checkpoint}, say) is read as before. The open
 * passes the listed length, which S3A takes instead of asking.
 *
 * <p>Bounded: the statuses of the last {@value #MAX_LISTED} listed log files, and up to {@value
 * #MAX_CACHED_CHARS} characters of content, of files up to {@value #MAX_FILE_CHARS} characters
 * each; least recently used first out.
 */
final class ListedLogReads {
  static final int MAX_LISTED = 8_192;
  static final long MAX_CACHED_CHARS = 8L * 1024 * 1024;
  static final int MAX_FILE_CHARS = 256 * 1024;

  private record Content(String identity, List<String> lines, long chars) {}

  private final Map<String, FileStatus> listed =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, FileStatus> eldest) {
          return size() > MAX_LISTED;
        }
      };
  private final LinkedHashMap<String, Content> contents = new LinkedHashMap<>(64, 0.75f, true);
  private long cachedChars;

  /** A log's listing, each commit or checksum file it names remembered as it goes by. */
  Iterator<FileStatus> remember(Iterator<FileStatus> listing) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return listing.hasNext();
      }

      @Override
      public FileStatus next() {
        FileStatus status = listing.next();
        if (status.isFile() && DeltaLogNames.isCommitOrChecksum(status.getPath().getName())) {
          synchronized (ListedLogReads.this) {
            listed.put(status.getPath().toString(), status);
          }
        }
        return status;
      }
    };
  }

  /**
   * The file's lines (each trimmed, as Delta's own reader gives them), from memory or read once
   * with its listed length; null when no listing named it, for the caller's plain read.
   */
  CloseableIterator<String> read(Path path, Configuration conf) throws IOException {
    if (!DeltaLogNames.isCommitOrChecksum(path.getName())) {
      return null;
    }
    FileSystem fs = path.getFileSystem(conf);
    String key = fs.makeQualified(path).toString();
    FileStatus status;
    Content cached;
    synchronized (this) {
      status = listed.get(key);
      cached = contents.get(key);
    }
    if (status == null) {
      return null;
    }
    String identity = identity(status);
    if (cached != null && cached.identity().equals(identity)) {
      return iterator(cached.lines());
    }
    List<String> lines = new ArrayList<>();
    long chars = 0;
    try (FSDataInputStream in =
            FutureIO.awaitFuture(
                fs.openFile(status.getPath())
                    .withFileStatus(status)
                    .opt("fs.option.openfile.read.policy", "whole-file")
                    .build());
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        lines.add(line.trim());
        chars += line.length();
      }
    }
    if (chars <= MAX_FILE_CHARS) {
      keep(key, new Content(identity, List.copyOf(lines), chars));
    }
    return iterator(lines);
  }

  private synchronized void keep(String key, Content content) {
    Content previous = contents.put(key, content);
    cachedChars += content.chars() - (previous == null ? 0 : previous.chars());
    Iterator<Content> eldestFirst = contents.values().iterator();
    while (cachedChars > MAX_CACHED_CHARS && eldestFirst.hasNext()) {
      cachedChars -= eldestFirst.next().chars();
      eldestFirst.remove();
    }
  }

  private static String identity(FileStatus status) {
    String etag = status instanceof EtagSource e ? e.getEtag() : null;
    return etag + "/" + status.getLen() + "/" + status.getModificationTime();
  }

  private static CloseableIterator<String> iterator(List<String> lines) {
    Iterator<String> it = lines.iterator();
    return new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public String next() {
        return it.next();
      }

      @Override
      public void close() {}
    };
  }
}
