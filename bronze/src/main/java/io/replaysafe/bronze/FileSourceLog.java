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
 * read after a batch failed, to check each of its files.
 */
final class FileSourceLog {
  private static final ObjectMapper JSON = new ObjectMapper();

  private FileSourceLog() {}

  /** The highest batch id with a planned offset, if any. */
  static OptionalLong lastPlannedBatch(Configuration conf, String checkpoint) throws IOException {
    Path offsets = new Path(checkpoint, "offsets");
    FileSystem fs = offsets.getFileSystem(conf);
    if (!fs.exists(offsets)) {
      return OptionalLong.empty();
    }
    long max = -1;
    for (FileStatus s : fs.listStatus(offsets)) {
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
    Path dir = new Path(checkpoint, "sources/0");
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
