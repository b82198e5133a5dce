package io.replaysafe.bronze;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code cleanSource} as Spark's file source does it, once a batch committed: {@code archive} (or
 * Auto Loader's {@code move}) moves each of its files under {@code sourceArchiveDir}, keeping its
 * path; {@code delete} deletes it. It keeps the landing prefix, and so every listing, small. A file
 * that cannot be moved is left where it is with a warning: it is ingested and stays so.
 *
 * <p>Spark tells a source that a batch committed only when it plans the next one, so the last batch
 * of an {@code availableNow} run would wait for the next run with new files; {@link BronzeIngest}
 * cleans it when the run ends.
 */
final class SourceCleaner {
  private static final Logger LOG = LoggerFactory.getLogger(SourceCleaner.class);

  /** What {@code cleanSource} does with an ingested file, and the word {@code files} shows. */
  enum Mode {
    OFF(null),
    ARCHIVE("archived"),
    DELETE("deleted");

    private final String done;

    Mode(String done) {
      this.done = done;
    }

    /** What became of an ingested file: {@code archived}, {@code deleted}; null when off. */
    String done() {
      return done;
    }

    /** The mode the source options ask for. */
    static Mode of(Map<String, String> options) {
      return switch (options.getOrDefault("cleanSource", "off").toLowerCase(Locale.ROOT)) {
        case "archive", "move" -> ARCHIVE;
        case "delete" -> DELETE;
        default -> OFF;
      };
    }
  }

  private final Configuration conf;
  private final Mode mode;
  private final Path archive;

  SourceCleaner(Configuration conf, Map<String, String> options) {
    this.conf = conf;
    this.mode = Mode.of(options);
    String dir = options.get("sourceArchiveDir");
    this.archive = dir == null ? null : new Path(dir);
  }

  /** The pipeline's cleaner: its source options, on {@code conf}. */
  static SourceCleaner of(io.replaysafe.common.config.PipelineConfig config, Configuration conf) {
    return new SourceCleaner(conf, config.source().options().sparkOptions());
  }

  boolean enabled() {
    return mode != Mode.OFF;
  }

  /**
   * Cleans the files of a committed batch, except those recorded as bad and not yet decided: moving
   * or deleting one would leave {@code bad-files retry} nothing to read. A retried file is cleaned
   * once it is ingested ({@link BadFileRecovery#reingestRetriedFiles}); a dismissed one stays where
   * it is, for whoever dismissed it.
   *
   * @param badFiles the pipeline's bad files, or null where the source records none
   */
  void cleanBatch(FileState state, BadFiles badFiles, long batch) {
    if (!enabled()) {
      return;
    }
    List<String> files = state.filesOf(batch - 1, batch);
    if (badFiles != null) {
      Set<String> unresolved = badFiles.unresolvedAmong(files);
      files = files.stream().filter(f -> !unresolved.contains(f)).toList();
    }
    clean(files);
  }

  /**
   * Cleans these files. One already gone (cleaned when Spark committed the batch, then again at the
   * end of the run that committed it) is passed over without a word.
   */
  void clean(List<String> files) {
    if (!enabled()) {
      return;
    }
    for (String file : files) {
      Path from = new Path(java.net.URI.create(file));
      try {
        FileSystem fs = from.getFileSystem(conf);
        if (mode == Mode.DELETE) {
          fs.delete(from, false);
        } else {
          Path to = new Path(archive.toString().replaceAll("/+$", "") + from.toUri().getPath());
          fs.mkdirs(to.getParent());
          if (!fs.rename(from, to) && fs.exists(from)) {
            LOG.warn("Could not archive {} to {}; it stays in the source path", from, to);
          }
        }
      } catch (java.io.FileNotFoundException gone) {
        // cleaned before
      } catch (IOException | RuntimeException e) {
        LOG.warn("Could not clean {} ({}): {}", from, mode, e.toString());
      }
    }
  }
}
