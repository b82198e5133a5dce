package io.replaysafe.silver;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaysafe.common.io.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What silver's streaming checkpoint says it has processed of bronze, read from its files without
 * starting a query. A scheduled run with nothing new then skips the stream (its start, the Delta
 * source's log reads, its planning) instead of finding out the slow way.
 *
 * <p>Only a fully committed checkpoint counts (the newest {@code offsets/N} has its {@code
 * commits/N}), and only an offset that marks the start of a bronze version (index -1): everything
 * before that version was processed. Anything else, or any file it cannot read, answers "unknown",
 * and the stream runs as usual.
 */
public final class SilverCheckpoint {
  /** The Delta source's index of an offset at the start of a version (nothing of it read). */
  static final long BASE_INDEX = -1;

  /** The Delta source's index of an offset at the end of a version (all of it read). */
  static final long END_INDEX = Long.MAX_VALUE - 100;

  private final Path root;
  private final Configuration hadoop;

  public SilverCheckpoint(String location, Configuration hadoop) {
    this.root = new Path(location);
    this.hadoop = hadoop;
  }

  /**
   * What the checkpoint says, from one listing of its {@code offsets} and {@code commits}.
   *
   * @param processedThrough the newest bronze version the checkpoint has fully processed, or empty
   *     when that is unknown (no checkpoint yet, a batch planned but not committed, an offset in
   *     the middle of a version)
   * @param batchPending whether the checkpoint holds a batch that was planned but never committed:
   *     the newest {@code offsets/N} without its {@code commits/N}. Only then can the query's first
   *     batch be the replay of an attempt that died part-way (a batch's offsets are written before
   *     any of its writes). A listing that fails answers true, so the caller checks rather than
   *     assumes.
   * @param committedThrough the newest bronze version of the newest committed batch, whether or not
   *     a later batch is pending: what {@code status} reports as processed
   */
  public record Reading(
      OptionalLong processedThrough, boolean batchPending, OptionalLong committedThrough) {}

  public Reading read() {
    FileSystem fs;
    OptionalLong offset;
    OptionalLong commit;
    try {
      fs = root.getFileSystem(hadoop);
      offset = newestBatch(fs, new Path(root, "offsets"));
      commit = newestBatch(fs, new Path(root, "commits"));
    } catch (IOException | RuntimeException e) {
      return new Reading(OptionalLong.empty(), true, OptionalLong.empty());
    }
    boolean pending =
        offset.isPresent() && (commit.isEmpty() || commit.getAsLong() < offset.getAsLong());
    return new Reading(
        processedThrough(fs, offset, commit), pending, processedThrough(fs, commit, commit));
  }

  private OptionalLong processedThrough(FileSystem fs, OptionalLong offset, OptionalLong commit) {
    if (offset.isEmpty() || commit.isEmpty() || offset.getAsLong() != commit.getAsLong()) {
      return OptionalLong.empty();
    }
    try {
      String source = sourceOffsetLine(fs, new Path(root, "offsets/" + offset.getAsLong()));
      if (source == null) {
        return OptionalLong.empty();
      }
      JsonNode json = Json.mapper().readTree(source);
      if (!json.path("reservoirVersion").canConvertToLong()
          || !json.path("index").canConvertToLong()
          || json.path("isStartingVersion").asBoolean(true)) {
        return OptionalLong.empty();
      }
      long version = json.get("reservoirVersion").asLong();
      long index = json.get("index").asLong();
      if (index == BASE_INDEX) {
        return OptionalLong.of(version - 1);
      }
      if (index == END_INDEX) {
        return OptionalLong.of(version);
      }
      return OptionalLong.empty();
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  private static OptionalLong newestBatch(FileSystem fs, Path dir) throws IOException {
    if (!fs.exists(dir)) {
      return OptionalLong.empty();
    }
    long newest = -1;
    for (FileStatus f : fs.listStatus(dir)) {
      String name = f.getPath().getName();
      if (f.isFile() && name.matches("\\d+")) {
        newest = Math.max(newest, Long.parseLong(name));
      }
    }
    return newest < 0 ? OptionalLong.empty() : OptionalLong.of(newest);
  }

  /**
   * An offset file is a version line, the batch's metadata and one line per source; silver reads
   * one source, so exactly three lines are expected.
   */
  private static String sourceOffsetLine(FileSystem fs, Path file) throws IOException {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(fs.open(file), StandardCharsets.UTF_8))) {
      String version = in.readLine();
      String metadata = in.readLine();
      String source = in.readLine();
      String extra = in.readLine();
      if (version == null || metadata == null || source == null || extra != null) {
        return null;
      }
      return source;
    }
  }
}
