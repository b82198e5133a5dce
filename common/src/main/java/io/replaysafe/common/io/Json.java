package io.replaysafe.common.io;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Compact JSON of plain values (maps, lists, strings, numbers): the one-line summaries. */
public final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  /** One line of JSON; a value Jackson cannot write is a bug in the caller, not an input error. */
  public static String compact(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write " + value.getClass() + " as JSON", e);
    }
  }
}
