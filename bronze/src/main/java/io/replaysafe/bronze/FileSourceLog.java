package io.replaysafe.bronze;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Reads what Spark's file stream source wrote in the bronze checkpoint: the batch it planned last
 * ({@code offsets/N}) and the files of a batch ({@code sources/0/N}, or the compacted {@code
 * N.compact}: a version line, then one JSON object per file with path, timestamp and batchId). Only
 * read after a batch failed (in its tasks or while it was planned), to check each of its files.
 */
final class FileSourceLog {
  private static final ObjectMapper JSON = new ObjectMapper();

  private FileSourceLog() {}

  /** The highest batch id with a planned offset, if any. */
  static OptionalLong lastPlannedBatch(Configuration conf, String checkpoint) throws IOException {
    return lastBatchIn(conf, new Path(checkpoint, "offsets"));
  }

  /** The highest batch id the query committed, if any. */
  static OptionalLong lastCommittedBatch(Configuration conf, String checkpoint) throws IOException {
    return lastBatchIn(conf, new Path(checkpoint, "commits"));
  }

  private static OptionalLong lastBatchIn(Configuration conf, Path dir) throws IOException {
    FileSystem fs = dir.getFileSystem(conf);
    if (!fs.exists(dir)) {
      return OptionalLong.empty();
    }
    long max = -1;
    for (FileStatus s : fs.listStatus(dir)) {
      String name = s.getPath().getName();
      if (name.matches("\\d+")) {
        max = Math.max(max, Long.parseLong(name));
      }
    }
    return max < 0 ? OptionalLong.empty() : OptionalLong.of(max);
  }

  /** The files the source assigned to the batch. */
  static List<String> filesOf(Configuration conf, String checkpoint, long batch)
      throws IOException {
    return filesIn(conf, new Path(checkpoint, "sources/0"), batch);
  }

  /** The files the source assigned to the batch, from the source's log directory. */
  static List<String> filesIn(Configuration conf, Path dir, long batch) throws IOException {
    FileSystem fs = dir.getFileSystem(conf);
    Path file = new Path(dir, Long.toString(batch));
    if (!fs.exists(file)) {
      file = new Path(dir, batch + ".compact");
    }
    List<String> files = new ArrayList<>();
    if (!fs.exists(file)) {
      return files;
    }
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(fs.open(file), StandardCharsets.UTF_8))) {
      in.readLine(); // version
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode entry = JSON.readTree(line);
        if (entry.path("batchId").asLong(-1) == batch) {
          files.add(entry.path("path").asText());
        }
      }
    }
    return files;
  }
}
