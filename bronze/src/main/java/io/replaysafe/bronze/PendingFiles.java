package io.replaysafe.bronze;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SourceConfig;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.sql.SparkSession;

/**
 * The files the next bronze run would ingest, worked out without running it and without writing
 * anything: the listing bronze's source makes of {@code source.path} (Spark's hidden-file rules,
 * {@code pathGlobFilter}), less the files the bronze checkpoint's {@link FileState} holds for
 * committed batches, less the files skipped as older than {@code maxFileAge} relative to the newest
 * file seen. Files of a batch that was planned but never committed (a crash) count as pending: the
 * next run replays that batch.
 *
 * @param files in the order the file source takes them (oldest first; newest first with {@code
 *     latestFirst})
 * @param alreadyIngested files the checkpoint records as committed
 * @param tooOld files present but skipped as older than {@code maxFileAge}
 */
public record PendingFiles(List<PendingFile> files, long alreadyIngested, long tooOld) {

  /** One file under the source path. */
  public record PendingFile(String path, long bytes, Instant modified) {}

  public PendingFiles {
    files = List.copyOf(files);
  }

  public long bytes() {
    return files.stream().mapToLong(PendingFile::bytes).sum();
  }

  public Optional<Instant> oldest() {
    return files.stream().map(PendingFile::modified).min(Comparator.naturalOrder());
  }

  public Optional<Instant> newest() {
    return files.stream().map(PendingFile::modified).max(Comparator.naturalOrder());
  }

  /**
   * Lists the pending files of the pipeline's source against its bronze checkpoint, as the next
   * run's listing would find them: the file state is asked about the listed files only. A
   * checkpoint written before the file state existed (not yet adopted by a run) is read from the
   * file source's log instead, without writing anything.
   */
  public static PendingFiles of(SparkSession spark, PipelineConfig config) {
    SourceConfig source = config.source();
    Map<String, String> options = source.options().sparkOptions();
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    long[] listed = {0};
    BatchLimits limits = BatchLimits.of(options);
    String checkpoint = config.bronze().checkpoint();
    FileState state = FileState.of(spark, checkpoint);
    // With the file state, the listing passes over the ranges a run recorded as held, as the next
    // run's does (ListedRanges); it reads that record and never writes it.
    ListingDiscovery listing = new ListingDiscovery(conf, source.path(), options, state);
    List<FileState.Discovered> fresh;
    OptionalLong newestSeen;
    try {
      // Files of a batch planned but never committed are pending: the next run replays it.
      long lastCommitted = FileSourceLog.lastCommittedBatch(conf, checkpoint).orElse(-1);
      if (state.exists()) {
        // The listing streams past the file state a chunk at a time, as a run's does.
        FileState.Version version = state.latest();
        fresh =
            version.notPlanned(
                each ->
                    listing.undecided(
                        version,
                        limits.byName(),
                        f -> {
                          listed[0]++;
                          each.accept(f);
                        }),
                lastCommitted,
                limits.byName());
        // What the listing passed over is listed too, and held.
        listed[0] += listing.lastListing().map(ListedRanges.Counts::passedOver).orElse(0L);
        newestSeen =
            limits.maxFileAgeMs() == null ? OptionalLong.empty() : state.newestModification();
      } else {
        List<FileSourceLog.Entry> log = FileSourceLog.allEntries(conf, checkpoint);
        Set<String> seen = new HashSet<>();
        log.stream()
            .filter(e -> e.batchId() <= lastCommitted)
            .forEach(e -> seen.add(identity(e.path(), limits.byName())));
        fresh = new ArrayList<>();
        List<FileState.Discovered> all = listing.discover();
        listed[0] = all.size();
        all.stream()
            .filter(f -> !seen.contains(identity(f.path(), limits.byName())))
            .forEach(fresh::add);
        newestSeen =
            log.isEmpty()
                ? OptionalLong.empty()
                : OptionalLong.of(
                    log.stream().mapToLong(FileSourceLog.Entry::timestamp).max().getAsLong());
      }
    } catch (IOException e) {
      throw BronzeErrors.unreadableFileLog(checkpoint, e);
    }
    int before = fresh.size();
    limits.dropTooOld(fresh, newestSeen);
    long tooOld = before - fresh.size();
    fresh.sort(limits.order());
    List<PendingFile> pending = new ArrayList<>();
    for (FileState.Discovered f : fresh) {
      pending.add(
          new PendingFile(
              new Path(URI.create(f.path())).toString(),
              f.size(),
              Instant.ofEpochMilli(f.modifiedMs())));
    }
    long alreadyIngested = listed[0] - pending.size() - tooOld;
    return new PendingFiles(pending, alreadyIngested, tooOld);
  }

  /** The first files in the file source's order, at most {@code maxFiles} and about maxBytes. */
  public List<PendingFile> sample(int maxFiles, long maxBytes) {
    List<PendingFile> chosen = new ArrayList<>();
    long bytes = 0;
    for (PendingFile file : files) {
      if (chosen.size() >= maxFiles || (!chosen.isEmpty() && bytes + file.bytes() > maxBytes)) {
        break;
      }
      chosen.add(file);
      bytes += file.bytes();
    }
    return chosen;
  }

  /**
   * Every data file Spark's file source would list under {@code path} with these source options
   * ({@code pathGlobFilter}, {@code recursiveFileLookup}), with size and time, in listing order.
   */
  public static List<PendingFile> list(
      SparkSession spark, String path, Map<String, String> options) {
    Path root = new Path(path);
    try {
      FileSystem fs = root.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(root)) {
        return List.of();
      }
      // Spark decides which files count (hidden and temporary names, pathGlobFilter, recursion);
      // the Hadoop listing supplies their sizes and times.
      var reader = spark.read().format("text");
      for (String option : List.of("pathGlobFilter", "recursiveFileLookup")) {
        if (options.containsKey(option)) {
          reader = reader.option(option, options.get(option));
        }
      }
      Set<String> sparkFiles = new HashSet<>();
      for (String file : reader.load(path).inputFiles()) {
        sparkFiles.add(normalize(file));
      }
      List<PendingFile> files = new ArrayList<>();
      RemoteIterator<LocatedFileStatus> it = fs.listFiles(root, true);
      while (it.hasNext()) {
        FileStatus status = it.next();
        String listedPath = status.getPath().toString();
        if (sparkFiles.contains(normalize(listedPath))) {
          files.add(
              new PendingFile(
                  listedPath, status.getLen(), Instant.ofEpochMilli(status.getModificationTime())));
        }
      }
      return files;
    } catch (IOException e) {
      throw BronzeErrors.cannotListSource(path, e);
    }
  }

  private static String identity(String path, boolean fileNameOnly) {
    String normalized = normalize(path);
    return fileNameOnly ? new Path(normalized).getName() : normalized;
  }

  /** Spark stores URI strings (URL-encoded); Hadoop lists paths: compare both as Hadoop paths. */
  private static String normalize(String path) {
    try {
      return new Path(new URI(path)).toString();
    } catch (java.net.URISyntaxException e) {
      return new Path(path).toString();
    }
  }
}
