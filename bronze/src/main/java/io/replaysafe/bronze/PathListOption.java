package io.replaysafe.bronze;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.io.Json;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Collection;
import java.util.Set;

/**
 * A list of files passed to a bronze reader or source as one string option (Spark's options are
 * strings): {@link BoundedTextFormat#SKIP_FILES} and {@link CheckedFileStreamSource#RECORDED_BAD},
 * written and read here only.
 */
final class PathListOption {
  private static final ObjectMapper JSON = Json.mapper();

  private PathListOption() {}

  /** The files as the option's value: a JSON list. */
  static String encode(Collection<String> files) {
    try {
      return JSON.writeValueAsString(files);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The files of option {@code name}'s value, each once. */
  static Set<String> decode(String name, String value) {
    try {
      return Set.copyOf(Arrays.asList(JSON.readValue(value, String[].class)));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("option " + name + " is not a JSON list", e);
    }
  }
}
