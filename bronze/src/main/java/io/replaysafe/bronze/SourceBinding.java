package io.replaysafe.bronze;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.StorageErrors;
import io.replaysafe.common.config.SchemaChange;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.lease.LeaseFence;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.types.StructType;

/**
 * Ties a bronze checkpoint to one source: path and format, and the history of its schema. A
 * checkpoint holds file-listing state for exactly one source; reused for another path or format, it
 * would silently skip or re-read files, so that is refused. The schema may evolve in place when
 * every change is compatible ({@link SchemaChange#compatible()}): the new version is appended to
 * the history, and the checkpoint goes on from the files it has seen.
 *
 * <p>The file ({@code _replaysafe_source.json}) keeps the current {@code schema} and {@code
 * rescuedDataColumn} at the top, as before the history existed, plus {@code history}: one entry per
 * schema version with the time it was first used. A file written before the history existed reads
 * as a history of one version.
 */
final class SourceBinding {
  static final String FILE_NAME = "_replaysafe_source.json";
  private static final ObjectMapper JSON = Json.mapper();

  /** One version of the source's schema, as recorded. {@code since} is null when unknown. */
  record Version(int version, String schema, String rescuedDataColumn, String since) {
    Map<String, Object> toMap() {
      Map<String, Object> map = new LinkedHashMap<>();
      map.put("version", version);
      map.put("schema", schema);
      map.put("rescuedDataColumn", rescuedDataColumn);
      map.put("since", since);
      return map;
    }
  }

  /**
   * What this run's source is to the checkpoint: the history recorded so far, and the changes from
   * its last version (empty when the schema is unchanged).
   */
  record Check(Path file, boolean exists, List<Version> history, List<SchemaChange> changes) {
    /** True when this run's source is a new version to record. */
    boolean newVersion(SourceConfig source) {
      if (!exists) {
        return true;
      }
      Version last = history.get(history.size() - 1);
      return !last.schema().equals(source.schema().toDDL())
          || !last.rescuedDataColumn().equals(source.rescuedDataColumn());
    }

    /** Every rescued-data column name the source has used, oldest first. */
    List<String> rescuedColumns(SourceConfig source) {
      List<String> names = new ArrayList<>();
      history.forEach(v -> names.add(v.rescuedDataColumn()));
      names.add(source.rescuedDataColumn());
      return names.stream().distinct().toList();
    }
  }

  private SourceBinding() {}

  /**
   * Reads the binding and refuses a source it cannot continue: another path or format, or a schema
   * change that is not compatible (the message names each change and the ways to migrate).
   */
  static Check check(Configuration conf, String checkpoint, SourceConfig source) {
    Path file = new Path(checkpoint, FILE_NAME);
    Optional<Map<?, ?>> read = readFile(conf, file);
    if (read.isEmpty()) {
      return new Check(file, false, List.of(), List.of());
    }
    Map<?, ?> stored = read.get();
    for (String field : List.of("path", "format")) {
      Object was = stored.get(field);
      String now = "path".equals(field) ? source.path() : source.format();
      if (!Objects.equals(was, now)) {
        throw BronzeErrors.checkpointOfAnotherSource(checkpoint, field, was, now);
      }
    }
    List<Version> history = history(stored);
    Version last = history.get(history.size() - 1);
    StructType before = StructType.fromDDL(last.schema());
    List<SchemaChange> changes = SchemaChange.between(before, source.schema());
    List<SchemaChange> refused = new ArrayList<>(SchemaChange.incompatible(changes));
    for (SchemaChange change : changes) {
      boolean formerRescued =
          history.stream().anyMatch(v -> v.rescuedDataColumn().equals(change.path()));
      if (change.kind() == SchemaChange.Kind.ADDED && formerRescued) {
        throw BronzeErrors.columnOfFormerRescuedName(change.path());
      }
    }
    if (!refused.isEmpty()) {
      throw BronzeErrors.incompatibleSchema(checkpoint, refused);
    }
    return new Check(file, true, history, changes);
  }

  /** Records this run's source as the newest version; call after the bronze table evolved. */
  static void record(Configuration conf, Check check, SourceConfig source, Instant now) {
    if (!check.newVersion(source)) {
      return;
    }
    List<Version> history = new ArrayList<>(check.history());
    history.add(
        new Version(
            history.size() + 1,
            source.schema().toDDL(),
            source.rescuedDataColumn(),
            now.toString()));
    Map<String, Object> binding = new LinkedHashMap<>();
    binding.put("path", source.path());
    binding.put("format", source.format());
    binding.put("schema", source.schema().toDDL());
    binding.put("rescuedDataColumn", source.rescuedDataColumn());
    binding.put("history", history.stream().map(Version::toMap).toList());
    try {
      FileSystem fs = check.file().getFileSystem(conf);
      fs.mkdirs(check.file().getParent());
      // One PUT on S3; on a local disk a torn write is caught by the parse on the next run.
      LeaseFence.check(check.file().toString());
      try (OutputStream out = fs.create(check.file(), true)) {
        out.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(binding));
      }
    } catch (IOException e) {
      throw StorageErrors.cannotAccess("the bronze checkpoint", check.file(), e);
    }
  }

  /** The recorded versions, oldest first. */
  static List<Version> read(Configuration conf, String checkpoint) {
    return readFile(conf, new Path(checkpoint, FILE_NAME))
        .map(SourceBinding::history)
        .orElse(List.of());
  }

  /**
   * The binding file's contents, or empty when there is none. Opened without asking first whether
   * it exists: on S3A that question is a HEAD of its own, and opening a missing file fails anyway.
   */
  private static Optional<Map<?, ?>> readFile(Configuration conf, Path file) {
    try {
      FileSystem fs = file.getFileSystem(conf);
      try (InputStream in = fs.open(file)) {
        return Optional.of(
            JSON.readValue(new String(in.readAllBytes(), StandardCharsets.UTF_8), Map.class));
      }
    } catch (FileNotFoundException missing) {
      return Optional.empty();
    } catch (IOException e) {
      throw StorageErrors.cannotAccess("the bronze checkpoint", file, e);
    }
  }

  private static List<Version> history(Map<?, ?> stored) {
    Object raw = stored.get("history");
    List<Version> history = new ArrayList<>();
    if (raw instanceof List<?> entries) {
      for (Object entry : entries) {
        Map<?, ?> v = (Map<?, ?>) entry;
        history.add(
            new Version(
                ((Number) v.get("version")).intValue(),
                String.valueOf(v.get("schema")),
                String.valueOf(v.get("rescuedDataColumn")),
                v.get("since") == null ? null : String.valueOf(v.get("since"))));
      }
    }
    if (history.isEmpty()) {
      history.add(
          new Version(
              1,
              String.valueOf(stored.get("schema")),
              String.valueOf(stored.get("rescuedDataColumn")),
              null));
    }
    return history;
  }
}
