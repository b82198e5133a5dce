package io.replaysafe.silver;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaysafe.common.io.DirectPut;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.lease.LeaseFence;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BulkDelete;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-ahead record of the silver batch being written, a run's or an operation's: its commit
 * tag and the tables it writes, in one small file of silver's checkpoint directory ({@value
 * #FILE}), written before the batch's first write and deleted after its run-log row.
 *
 * <p>Why: a batch writes several tables (quarantine, silver, tombstones or events, truncates, the
 * run log), one Delta commit each. {@link BatchCommits} rolls back an interrupted attempt when the
 * same batch is replayed, but only while its commits are the newest; a different command coming
 * first (a scheduled {@code run} after a killed {@code repair}) wrote on top of them, and the
 * replay then restored only the tables the other command had not touched. With this record,
 * whichever writing command comes next undoes the batch across all of its tables before it writes
 * anything ({@link #recover}); the interrupted command's rerun, or the stream's replay of its
 * batch, then starts from the state before it.
 */
public final class InFlightBatch {
  private static final Logger LOG = LoggerFactory.getLogger(InFlightBatch.class);
  public static final String FILE = "in_flight.json";

  private final SparkSession spark;
  private final Path file;

  private InFlightBatch(SparkSession spark, Path file) {
    this.spark = spark;
    this.file = file;
  }

  /** The record of the pipeline whose silver checkpoint is {@code checkpoint}. */
  public static InFlightBatch of(SparkSession spark, String checkpoint) {
    return new InFlightBatch(spark, new Path(checkpoint, FILE));
  }

  /** Records that the batch tagged {@code tag} starts writing {@code tables} and its run log. */
  void begin(String tag, List<String> tables, String runsPath) {
    Map<String, Object> record = new LinkedHashMap<>();
    record.put("tag", tag);
    record.put("tables", tables);
    record.put("runs", runsPath);
    record.put("started_at", java.time.Instant.now().toString());
    byte[] bytes = Json.compact(record).getBytes(StandardCharsets.UTF_8);
    LeaseFence.check("silver's in-flight batch record " + file);
    // Overwritten whole, whatever is there: S3A need not ask first whether a directory has the
    // name (a LIST before the PUT). The PUT completes before close returns, before the batch's
    // first write.
    try (FSDataOutputStream out = DirectPut.create(fs(), file)) {
      out.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }

  /** The batch wrote its run-log row: nothing of it is left to undo. */
  void end() {
    LeaseFence.check("silver's in-flight batch record " + file);
    try {
      FileSystem fs = fs();
      // Through the file system's bulk delete, which deletes the object and nothing else: on S3A
      // one DELETE, where delete(file, false) first asks what the path is (a HEAD). The record is
      // always a file, and a missing one is no error either way.
      try (BulkDelete bulk = fs.createBulkDelete(file.getParent())) {
        if (bulk.bulkDelete(List.of(file)).isEmpty()) {
          return;
        }
      } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
        // Not in bulk: the plain delete below.
      }
      fs.delete(file, false);
    } catch (IOException e) {
      // Harmless if it stays: recover() finds the batch in the run log and only deletes it.
      LOG.warn("Could not delete {}: {}", file, e.toString());
    }
  }

  /**
   * Undoes the batch an interrupted command left part-way, across every table it wrote, unless its
   * run-log row shows it finished; then forgets the record. Every writing command calls this after
   * it takes the lease and before its first write. Returns what was restored (empty when nothing
   * was in flight).
   */
  public List<String> recover() {
    Optional<JsonNode> record = read();
    if (record.isEmpty()) {
      return List.of();
    }
    JsonNode r = record.get();
    String tag = r.path("tag").asText();
    List<String> tables = new ArrayList<>();
    r.path("tables").forEach(t -> tables.add(t.asText()));
    List<String> restored =
        BatchCommits.ofTag(spark, tag).rollBackInterrupted(r.path("runs").asText(), tables);
    if (!restored.isEmpty()) {
      LOG.warn(
          "Undid '{}', which an earlier command left part-way (started {}), before writing: {}",
          tag,
          r.path("started_at").asText(),
          restored);
    }
    end();
    return restored;
  }

  private Optional<JsonNode> read() {
    try (FSDataInputStream in = fs().open(file)) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      Optional<JsonNode> record = Json.tryRead(text);
      if (record.isEmpty() || !record.get().hasNonNull("tag")) {
        // A record cut short: written before the batch's first write, so nothing was written.
        LOG.warn("Ignoring an incomplete in-flight batch record {}", file);
        end();
        return Optional.empty();
      }
      return record;
    } catch (FileNotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }

  private FileSystem fs() throws IOException {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    return file.getFileSystem(conf);
  }
}
