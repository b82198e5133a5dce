package io.replaysafe.bronze;

import io.replaysafe.common.config.SourceOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.apache.spark.network.util.JavaUtils;

/**
 * How a bronze batch takes the new files, from the source options Spark's file source had: oldest
 * first ({@code latestFirst} reverses it), at most {@code maxFilesPerTrigger} files or about {@code
 * maxBytesPerTrigger} bytes (at least one file), and, only when {@code maxFileAge} is set below its
 * default of 100 years, not files older than the newest seen less that age (ignored, as Spark does,
 * with {@code latestFirst} and a limit).
 *
 * @param maxFiles null for no limit
 * @param maxBytes null for no limit
 * @param maxFileAgeMs null for no age limit
 * @param byName {@code fileNameOnly}: a file is known by its name, whatever its directory
 */
record BatchLimits(
    Integer maxFiles, Long maxBytes, boolean latestFirst, Long maxFileAgeMs, boolean byName) {

  static BatchLimits of(Map<String, String> options) {
    Integer files =
        options.containsKey("maxFilesPerTrigger")
            ? Integer.valueOf(options.get("maxFilesPerTrigger"))
            : null;
    Long bytes =
        options.containsKey("maxBytesPerTrigger")
            ? JavaUtils.byteStringAsBytes(options.get("maxBytesPerTrigger"))
            : null;
    boolean latestFirst = Boolean.parseBoolean(options.getOrDefault("latestFirst", "false"));
    String age = options.getOrDefault("maxFileAge", SourceOptions.MAX_FILE_AGE_DEFAULT);
    Long ageMs =
        SourceOptions.MAX_FILE_AGE_DEFAULT.equals(age)
                || (latestFirst && (files != null || bytes != null))
            ? null
            : JavaUtils.timeStringAsMs(age);
    return new BatchLimits(
        files,
        bytes,
        latestFirst,
        ageMs,
        Boolean.parseBoolean(options.getOrDefault("fileNameOnly", "false")));
  }

  /** The order files are taken in: by modification time, then path. */
  Comparator<FileState.Discovered> order() {
    Comparator<FileState.Discovered> oldestFirst =
        Comparator.comparingLong(FileState.Discovered::modifiedMs)
            .thenComparing(FileState.Discovered::path);
    return latestFirst ? oldestFirst.reversed() : oldestFirst;
  }

  /**
   * Drops the files older than the newest file seen (in the file state, or among these) less {@code
   * maxFileAge}, when an age limit applies.
   */
  void dropTooOld(List<FileState.Discovered> fresh, java.util.OptionalLong newestSeen) {
    if (maxFileAgeMs == null || fresh.isEmpty()) {
      return;
    }
    long newest =
        Math.max(
            newestSeen.orElse(Long.MIN_VALUE),
            fresh.stream().mapToLong(FileState.Discovered::modifiedMs).max().getAsLong());
    fresh.removeIf(f -> f.modifiedMs() < newest - maxFileAgeMs);
  }

  /** Takes the next batch's files from the head of {@code remaining}. */
  List<FileState.Discovered> take(Deque<FileState.Discovered> remaining) {
    List<FileState.Discovered> batch = new ArrayList<>();
    long total = 0;
    while (!remaining.isEmpty()) {
      FileState.Discovered next = remaining.peekFirst();
      if (maxFiles != null && batch.size() >= maxFiles) {
        break;
      }
      if (maxBytes != null && !batch.isEmpty() && total + next.size() > maxBytes) {
        break;
      }
      batch.add(remaining.pollFirst());
      total += next.size();
    }
    return batch;
  }
}
