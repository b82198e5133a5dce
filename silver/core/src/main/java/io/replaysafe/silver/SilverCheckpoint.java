package io.replaysafe.silver;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaysafe.common.io.Json;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * What silver's streaming checkpoint says it has processed of bronze, read from its files without
 * starting a query. A scheduled run with nothing new then skips the stream (its start, the Delta
 * source's log reads, its planning) instead of finding out the slow way.
 *
 * <p>Only a fully committed checkpoint counts (the newest {@code offsets/N} has its {@code
 * commits/N}), and only an offset that marks the start of a bronze version (index -1): everything
 * before that version was processed. Anything else, or any file it cannot read, answers "unknown",
 * and the stream runs as usual.
 *
 * <p>One listing of the whole checkpoint answers it, with the in-flight batch record ({@link
 * InFlightBatch#FILE}) beside: on S3 one LIST, where a probe and a listing per directory and a
 * probe for the record took seven requests. The offset file is then read with the length the
 * listing gave ({@link WholeFileRead}).
 */
public final class SilverCheckpoint {
  /** The Delta source's index of an offset at the start of a version (nothing of it read). */
  static final long BASE_INDEX = -1;

  /** The Delta source's index of an offset at the end of a version (all of it read). */
  static final long END_INDEX = Long.MAX_VALUE - 100;

  private static final Pattern BATCH = Pattern.compile("\\d+");

  private final Path root;
  private final Configuration hadoop;

  public SilverCheckpoint(String location, Configuration hadoop) {
    this.root = new Path(location);
    this.hadoop = hadoop;
  }

  /**
   * What the checkpoint says.
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
   * @param inFlightRecord whether the checkpoint holds {@link InFlightBatch#FILE}, the record of a
   *     batch another command may have left part-way; a listing that fails answers true
   * @param started whether the stream has planned a batch (an {@code offsets} file); a listing that
   *     fails answers true
   */
  public record Reading(
      OptionalLong processedThrough,
      boolean batchPending,
      OptionalLong committedThrough,
      boolean inFlightRecord,
      boolean started) {}

  public Reading read() {
    FileSystem fs;
    Listing listing;
    try {
      fs = root.getFileSystem(hadoop);
      listing = list(fs);
    } catch (IOException | RuntimeException e) {
      return new Reading(OptionalLong.empty(), true, OptionalLong.empty(), true, true);
    }
    OptionalLong offset = newest(listing.offsets());
    OptionalLong commit = newest(listing.commits());
    boolean pending =
        offset.isPresent() && (commit.isEmpty() || commit.getAsLong() < offset.getAsLong());
    OptionalLong committed = processedThrough(fs, listing, commit, commit);
    // Nothing pending: the newest offsets file is the newest commit's, read once for both.
    OptionalLong processed = pending ? OptionalLong.empty() : committed;
    return new Reading(processed, pending, committed, listing.inFlightRecord(), offset.isPresent());
  }

  /** The checkpoint's batch files by number, and whether the in-flight record is there. */
  private record Listing(
      Map<Long, FileStatus> offsets, Map<Long, FileStatus> commits, boolean inFlightRecord) {}

  private Listing list(FileSystem fs) throws IOException {
    Map<Long, FileStatus> offsets = new HashMap<>();
    Map<Long, FileStatus> commits = new HashMap<>();
    boolean inFlight = false;
    RemoteIterator<LocatedFileStatus> files;
    try {
      files = fs.listFiles(root, true);
    } catch (FileNotFoundException noCheckpointYet) {
      return new Listing(offsets, commits, false);
    }
    String prefix = fs.makeQualified(root).toUri().getPath();
    String base = prefix.endsWith("/") ? prefix : prefix + "/";
    while (files.hasNext()) {
      LocatedFileStatus f = files.next();
      String path = f.getPath().toUri().getPath();
      if (!path.startsWith(base)) {
        continue;
      }
      String relative = path.substring(base.length());
      if (relative.equals(InFlightBatch.FILE)) {
        inFlight = true;
      } else if (relative.startsWith("offsets/")) {
        batch(relative.substring("offsets/".length()), f, offsets);
      } else if (relative.startsWith("commits/")) {
        batch(relative.substring("commits/".length()), f, commits);
      }
    }
    return new Listing(offsets, commits, inFlight);
  }

  private static void batch(String name, FileStatus f, Map<Long, FileStatus> into) {
    if (BATCH.matcher(name).matches()) {
      into.put(Long.parseLong(name), f);
    }
  }

  private static OptionalLong newest(Map<Long, FileStatus> batches) {
    return batches.keySet().stream().mapToLong(Long::longValue).max();
  }

  private OptionalLong processedThrough(
      FileSystem fs, Listing listing, OptionalLong offset, OptionalLong commit) {
    if (offset.isEmpty() || commit.isEmpty() || offset.getAsLong() != commit.getAsLong()) {
      return OptionalLong.empty();
    }
    try {
      String source = sourceOffsetLine(fs, listing.offsets().get(offset.getAsLong()));
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

  /**
   * An offset file is a version line, the batch's metadata and one line per source; silver reads
   * one source, so exactly three lines are expected.
   */
  private static String sourceOffsetLine(FileSystem fs, FileStatus file) throws IOException {
    byte[] bytes = WholeFileRead.read(fs, file);
    List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
    return lines.size() == 3 ? lines.get(2) : null;
  }
}
