package io.replaysafe.bronze;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import java.io.IOException;
import java.io.StringWriter;

/**
 * The line being parsed, the Jackson factory that reads it, and the JSON text of its values as they
 * go into the rescued column. A rescued value keeps what the input said (digits, sign and exponent
 * of a number, key order), so it is copied token by token rather than re-serialised from a
 * converted value; a value that has already been consumed (the earlier one of a repeated field) is
 * re-read from the line's bytes.
 *
 * <p>One per parser, set to each line in turn: nothing here is allocated per line.
 */
final class JsonLine {
  /** The same limits as Spark's JSON reader defaults (JSONOptions). */
  static final int MAX_NESTING_DEPTH = 1000;

  static final int MAX_NUMBER_LENGTH = 1000;

  private final JsonFactory factory = newFactory();

  private byte[] line;
  private int lineStart;
  private int lineEnd;

  JsonFactory factory() {
    return factory;
  }

  void startLine(byte[] bytes, int offset, int length) {
    line = bytes;
    lineStart = offset;
    lineEnd = offset + length;
  }

  /** Drops the reference to the line, so a parser kept between batches holds no input. */
  void endLine() {
    line = null;
  }

  /** Where the current token starts, relative to the line: what {@link #rawAt} takes. */
  static long tokenStart(JsonParser parser) {
    return parser.currentTokenLocation().getByteOffset();
  }

  /** A parser over the line from {@code tokenOffset} to its end. */
  JsonParser parserAt(long tokenOffset) throws IOException {
    int from = absolute(tokenOffset);
    return factory.createParser(line, from, lineEnd - from);
  }

  /** The value starting at {@code tokenOffset} of the line, re-read and copied exactly. */
  String rawAt(long tokenOffset) throws IOException {
    int from = absolute(tokenOffset);
    if (line[from] == '{' || line[from] == '[') {
      try (JsonParser sub = parserAt(tokenOffset)) {
        sub.nextToken();
        return copy(sub);
      }
    }
    // A scalar at the root must be followed by white space; inside an array it may be followed by
    // the comma or brace that follows it in the line. Only a repeated field's value comes here.
    byte[] wrapped = new byte[lineEnd - from + 1];
    wrapped[0] = '[';
    System.arraycopy(line, from, wrapped, 1, lineEnd - from);
    try (JsonParser sub = factory.createParser(wrapped)) {
      sub.nextToken();
      sub.nextToken();
      return copy(sub);
    }
  }

  /**
   * Copies the current value as JSON text (consuming it): strings re-escaped (same content),
   * numbers with their input text (digits, sign, exponent; {@code NaN} and {@code Infinity} as
   * written), structure and key order as in the input.
   */
  String copy(JsonParser parser) throws IOException {
    StringWriter out = new StringWriter();
    try (JsonGenerator generator = factory.createGenerator(out)) {
      copy(parser, generator);
    }
    return out.toString();
  }

  private int absolute(long tokenOffset) {
    return lineStart + (int) tokenOffset;
  }

  private static void copy(JsonParser parser, JsonGenerator generator) throws IOException {
    JsonToken token = parser.currentToken();
    switch (token) {
      case START_OBJECT -> {
        generator.writeStartObject();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          generator.writeFieldName(parser.currentName());
          parser.nextToken();
          copy(parser, generator);
        }
        generator.writeEndObject();
      }
      case START_ARRAY -> {
        generator.writeStartArray();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          copy(parser, generator);
        }
        generator.writeEndArray();
      }
      case VALUE_STRING -> generator.writeString(parser.getText());
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> generator.writeNumber(parser.getText());
      case VALUE_TRUE -> generator.writeBoolean(true);
      case VALUE_FALSE -> generator.writeBoolean(false);
      case VALUE_NULL -> generator.writeNull();
      default ->
          throw new JsonProcessingException("unexpected " + token, parser.currentLocation()) {};
    }
  }

  private static JsonFactory newFactory() {
    return JsonFactory.builder()
        // Spark's JSON reader defaults: NaN/Infinity tokens and single quotes allowed.
        .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
        .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
        .streamReadConstraints(
            StreamReadConstraints.builder()
                .maxNestingDepth(MAX_NESTING_DEPTH)
                .maxNumberLength(MAX_NUMBER_LENGTH)
                .maxStringLength(Integer.MAX_VALUE)
                .build())
        .recyclerPool(new OneRecyclerPool())
        .build();
  }
}
