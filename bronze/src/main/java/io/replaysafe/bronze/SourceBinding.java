package io.replaysafe.bronze;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.StorageErrors;
import io.replaysafe.common.config.SourceConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Ties a bronze checkpoint to one source: path, format, schema and rescued column. A checkpoint
 * holds file-listing state for exactly one source; reused for another, it would silently skip or
 * re-read files, so reuse is refused.
 */
final class SourceBinding {
  static final String FILE_NAME = "_replaysafe_source.json";
  private static final ObjectMapper JSON = new ObjectMapper();

  private SourceBinding() {}

  static Map<String, String> describe(SourceConfig source) {
    Map<String, String> binding = new LinkedHashMap<>();
    binding.put("path", source.path());
    binding.put("format", source.format());
    binding.put("schema", source.schema().toDDL());
    binding.put("rescuedDataColumn", source.rescuedDataColumn());
    return binding;
  }

  /** Records the binding on first use; on later runs refuses a checkpoint bound elsewhere. */
  static void verifyOrCreate(Configuration conf, String checkpoint, SourceConfig source) {
    Path file = new Path(checkpoint, FILE_NAME);
    Map<String, String> expected = describe(source);
    try {
      FileSystem fs = file.getFileSystem(conf);
      if (!fs.exists(file)) {
        fs.mkdirs(file.getParent());
        try (OutputStream out = fs.create(file, false)) {
          out.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(expected));
        }
        return;
      }
      Map<?, ?> stored;
      try (InputStream in = fs.open(file)) {
        stored = JSON.readValue(new String(in.readAllBytes(), StandardCharsets.UTF_8), Map.class);
      }
      for (Map.Entry<String, String> entry : expected.entrySet()) {
        Object was = stored.get(entry.getKey());
        if (!Objects.equals(was, entry.getValue())) {
          throw BronzeErrors.checkpointOfAnotherSource(
              checkpoint, entry.getKey(), was, entry.getValue());
        }
      }
    } catch (IOException e) {
      throw StorageErrors.cannotAccess("the bronze checkpoint", file, e);
    }
  }
}
