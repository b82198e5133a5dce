package io.replaysafe.silver;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaysafe.common.CommitTags;
import io.replaysafe.common.io.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.spark.sql.delta.Snapshot;

/**
 * Bronze's commit files after the version silver's checkpoint processed, as the snapshot of bronze
 * the run read lists them (the commits after Delta's last checkpoint of the log, with their sizes):
 * what silver asks of those commits is answered from them without another listing of bronze's log,
 * a search for its root or a probe of each file. Empty when the snapshot does not list every one of
 * them (a log checkpoint written since, or Delta internals that differ): the caller then asks Delta
 * as before.
 */
final class BronzeCommits {
  // By version, each a commit file of the snapshot's log segment.
  private final TreeMap<Long, FileStatus> commits;
  private final Configuration hadoop;
  private final java.util.Map<String, String[]> read = new java.util.HashMap<>();

  private BronzeCommits(TreeMap<Long, FileStatus> commits, Configuration hadoop) {
    this.commits = commits;
    this.hadoop = hadoop;
  }

  /** The commits after {@code processed} up to the snapshot's version, when it lists them all. */
  static Optional<BronzeCommits> after(Snapshot bronze, long processed, Configuration hadoop) {
    TreeMap<Long, FileStatus> commits = new TreeMap<>();
    try {
      for (FileStatus f :
          scala.jdk.javaapi.CollectionConverters.asJava(bronze.logSegment().deltas())) {
        String name = f.getPath().getName();
        if (name.matches("\\d{20}\\.json")) {
          long version = Long.parseLong(name.substring(0, 20));
          if (version > processed && version <= bronze.version()) {
            commits.put(version, f);
          }
        }
      }
    } catch (LinkageError otherDelta) {
      // Another build of Delta may lack these internals: then nothing is known.
      return Optional.empty();
    }
    long wanted = bronze.version() - processed;
    return commits.size() == wanted
        ? Optional.of(new BronzeCommits(commits, hadoop))
        : Optional.empty();
  }

  /**
   * The rows these commits added to bronze, from each added file's statistics ({@code numRecords});
   * empty when a file has none. A file added without a data change (an OPTIMIZE's rewrite, from
   * {@code maintain} or {@code maintenance:}) adds no row silver reads, so it is not counted: the
   * run after a compaction of bronze is as small as its new events. One GET per commit.
   */
  Optional<Long> rowsAdded() {
    long rows = 0;
    for (FileStatus commit : commits.values()) {
      for (String line : lines(commit)) {
        Optional<JsonNode> action = Json.tryRead(line);
        if (action.isEmpty()
            || !action.get().has("add")
            || !action.get().get("add").path("dataChange").asBoolean(true)) {
          continue;
        }
        Optional<JsonNode> stats = Json.tryRead(action.get().get("add").path("stats").asText(null));
        JsonNode records = stats.map(s -> s.get("numRecords")).orElse(null);
        if (records == null || !records.canConvertToLong()) {
          return Optional.empty();
        }
        rows += records.asLong();
      }
    }
    return Optional.of(rows);
  }

  /** Whether the snapshot lists the commit of {@code version}. */
  boolean holds(long version) {
    return commits.containsKey(version);
  }

  /**
   * The versions among these commits that {@code bronze --promote-rescued} or an erase wrote
   * (tagged in their commit info, {@link CommitTags#isNotAnEvent}): one GET per commit.
   */
  List<Long> notEventVersions() {
    List<Long> versions = new ArrayList<>();
    for (var commit : commits.entrySet()) {
      if (CommitTags.isNotAnEvent(userMetadata(commit.getValue()))) {
        versions.add(commit.getKey());
      }
    }
    return versions;
  }

  /** The commit's lines, read once: both questions above read the same commits. */
  private String[] lines(FileStatus commit) {
    return read.computeIfAbsent(
        commit.getPath().toString(),
        path -> {
          try {
            byte[] bytes = WholeFileRead.read(commit.getPath().getFileSystem(hadoop), commit);
            return new String(bytes, StandardCharsets.UTF_8).split("\n");
          } catch (IOException e) {
            throw new UncheckedIOException("Cannot read bronze's commit " + commit.getPath(), e);
          }
        });
  }

  /** The commit's {@code commitInfo.userMetadata}, or null. */
  private String userMetadata(FileStatus commit) {
    for (String line : lines(commit)) {
      Optional<JsonNode> action = Json.tryRead(line);
      if (action.isPresent() && action.get().has("commitInfo")) {
        JsonNode metadata = action.get().get("commitInfo").get("userMetadata");
        return metadata == null || metadata.isNull() ? null : metadata.asText();
      }
    }
    return null;
  }
}
