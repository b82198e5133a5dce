package io.replaysafe.bronze;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.io.Json;
import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Reads what Spark's file stream source wrote in the bronze checkpoint: the batch it planned last
 * ({@code offsets/N}) and the files of a batch ({@code sources/0/N}, or the compacted {@code
 * N.compact}: a version line, then one JSON object per file with path, timestamp and batchId).
 * Spark's file source no longer runs bronze ({@link FileState} replaced its log): the log is read
 * whole once, when a checkpoint written before is adopted, and by {@code plan} on a checkpoint not
 * yet adopted.
 */
final class FileSourceLog {
  private static final ObjectMapper JSON = Json.mapper();

  private FileSourceLog() {}

  /** One file of the log: the URI string Spark stored, its modification time, its batch. */
  record Entry(String path, long timestamp, long batchId) {}

  /**
   * Every file the log holds (batch files, "7", and compactions, "9.compact", which hold every
   * earlier entry), once each, in no particular order; empty when the checkpoint has no log.
   */
  static List<Entry> allEntries(Configuration conf, String checkpoint) throws IOException {
    Path sources = new Path(checkpoint, "sources/0");
    FileSystem fs = sources.getFileSystem(conf);
    Map<String, Entry> byPath = new HashMap<>();
    if (fs.exists(sources)) {
      for (FileStatus status : fs.listStatus(sources)) {
        if (status.getPath().getName().matches("\\d+(\\.compact)?")) {
          readInto(fs, status.getPath(), byPath);
        }
      }
    }
    return List.copyOf(byPath.values());
  }

  private static void readInto(FileSystem fs, Path file, Map<String, Entry> byPath)
      throws IOException {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(fs.open(file), StandardCharsets.UTF_8))) {
      String line = in.readLine(); // the log's version header, "v1"
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode entry = JSON.readTree(line);
        String path = entry.path("path").asText();
        byPath.putIfAbsent(
            path,
            new Entry(path, entry.path("timestamp").asLong(), entry.path("batchId").asLong(-1)));
      }
    }
  }

  /** The highest batch id with a planned offset, if any. */
  static OptionalLong lastPlannedBatch(Configuration conf, String checkpoint) throws IOException {
    return lastBatchIn(conf, new Path(checkpoint, "offsets"));
  }

  /** The highest batch id the query committed, if any. */
  static OptionalLong lastCommittedBatch(Configuration conf, String checkpoint) throws IOException {
    return lastBatchIn(conf, new Path(checkpoint, "commits"));
  }

  /**
   * The highest numbered file in {@code dir}. Listed without asking first whether it exists: on S3A
   * that question is a HEAD and a LIST of its own, and a listing of a missing directory fails
   * anyway, with the same answer.
   */
  private static OptionalLong lastBatchIn(Configuration conf, Path dir) throws IOException {
    FileSystem fs = dir.getFileSystem(conf);
    FileStatus[] listed;
    try {
      listed = fs.listStatus(dir);
    } catch (FileNotFoundException missing) {
      return OptionalLong.empty();
    }
    long max = -1;
    for (FileStatus s : listed) {
      String name = s.getPath().getName();
      if (name.matches("\\d+")) {
        max = Math.max(max, Long.parseLong(name));
      }
    }
    return max < 0 ? OptionalLong.empty() : OptionalLong.of(max);
  }
}
