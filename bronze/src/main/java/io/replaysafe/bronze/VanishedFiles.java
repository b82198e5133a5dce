package io.replaysafe.bronze;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Files a bronze batch planned but never read. Spark's file source lists the files, records them in
 * its log, and only then looks each one up to plan the read; a file deleted in between is dropped
 * there with nothing but a warning in Spark's log, and the checkpoint moves past it. Bronze
 * compares what each batch planned with what it read: when fewer files gave rows than were planned,
 * the planned files that no longer exist are returned to be recorded as bad files, so none goes
 * missing silently. (A planned file that still exists and gave no rows was empty or blank.)
 */
final class VanishedFiles {
  private VanishedFiles() {}

  /**
   * @param filesRead per batch id, how many files gave at least one row
   * @param recorded files already recorded as bad in this run: not checked again
   * @return per batch id, the planned files that are gone
   */
  static Map<Long, List<BadFiles.BadFile>> find(
      Configuration conf,
      String checkpoint,
      long maxLineBytes,
      Map<Long, Long> filesRead,
      Collection<String> recorded)
      throws IOException {
    Map<Long, List<BadFiles.BadFile>> gone = new java.util.TreeMap<>();
    for (Map.Entry<Long, Long> batch : filesRead.entrySet()) {
      List<String> planned =
          new ArrayList<>(FileSourceLog.filesOf(conf, checkpoint, batch.getKey()));
      planned.removeAll(recorded);
      if (planned.size() <= batch.getValue()) {
        continue; // every planned file gave rows: the usual case costs no lookup
      }
      List<BadFiles.BadFile> missing = new ArrayList<>();
      for (String file : planned) {
        Path path = new Path(URI.create(file));
        if (!path.getFileSystem(conf).exists(path)) {
          // The lookup's own error names the file (FileNotFoundException).
          BadFiles.check(conf, file, maxLineBytes).ifPresent(missing::add);
        }
      }
      if (!missing.isEmpty()) {
        gone.put(batch.getKey(), missing);
      }
    }
    return gone;
  }
}
