package io.replaysafe.common.io;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;

/**
 * replaysafe's one JSON mapper: compact JSON of plain values (maps, lists, strings, numbers) for
 * the one-line summaries, and the reading of JSON replaysafe wrote itself.
 */
public final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  /** The shared mapper (thread-safe once configured; nobody configures it after this class). */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** {@code text} as a JSON tree, or empty when it is null or not JSON. */
  public static Optional<JsonNode> tryRead(String text) {
    if (text == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(MAPPER.readTree(text));
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
  }

  /** One line of JSON; a value Jackson cannot write is a bug in the caller, not an input error. */
  public static String compact(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write " + value.getClass() + " as JSON", e);
    }
  }
}
