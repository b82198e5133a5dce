package io.replaysafe.bronze;

import static io.replaysafe.bronze.ValueConversion.MISMATCH;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.replaysafe.common.config.SchemaEvolutionMode;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Parses one JSON line against an explicit schema the way Auto Loader's rescued-data column does: a
 * field the schema does not declare, a value that cannot be converted to its declared type (the
 * typed value is then null), and a field whose name matches a declared one only when case is
 * ignored all go into one JSON object, nested as in the input, with {@code "_file_path"}. A line
 * that is not one JSON object, or not valid UTF-8, is returned as corrupt with its raw text (and
 * its raw bytes in base64 when they are not UTF-8). Nothing is dropped.
 *
 * <p>Values are produced in Spark's internal representation ({@link UTF8String}, {@link Decimal},
 * days and microseconds, {@link GenericInternalRow}, {@link GenericArrayData}, {@link
 * ArrayBasedMapData}), so no external-row conversion runs on the way to the Delta writer. The
 * conversions follow Spark's JSON reader ({@code JacksonParser}) with its default options; where
 * that reader would round, wrap, overflow or drop, the value is rescued instead, with its input
 * text (numbers keep their digits, sign and exponent).
 *
 * <p>This class walks the line's object and the structs nested in it, where each field can be
 * rescued on its own; {@link ValueConversion} turns each field's value into its declared type (or a
 * mismatch), and {@link JsonLine} copies the text of what is rescued.
 */
public final class RescuingJsonParser implements Serializable {
  private static final long serialVersionUID = 2L;

  private final StructType schema;
  private final SchemaEvolutionMode mode;
  private final String sessionTimeZone;
  // Built on first use: a parser is serialised to the executors, and these hold Jackson state.
  private transient JsonLine json;
  private transient ValueConversion conversion;
  private transient String currentFile;

  public RescuingJsonParser(StructType schema, SchemaEvolutionMode mode) {
    this(schema, mode, "UTC");
  }

  /**
   * @param sessionTimeZone the zone a timestamp without offset is read in (Spark's session zone)
   */
  public RescuingJsonParser(StructType schema, SchemaEvolutionMode mode, String sessionTimeZone) {
    this.schema = schema;
    this.mode = mode;
    this.sessionTimeZone = sessionTimeZone;
  }

  /**
   * What one line became.
   *
   * @param values the schema's values in Spark's internal representation (null where nothing fit)
   * @param rescued JSON object of what did not fit, or null
   * @param corrupt the line's text when it is not one JSON object (or not UTF-8), else null
   * @param corruptBase64 the line's bytes in base64 when they are not valid UTF-8, else null
   */
  public record Parsed(Object[] values, String rescued, String corrupt, String corruptBase64) {}

  /** Convenience for tests and callers holding text: parses the line's UTF-8 bytes. */
  public Parsed parse(String text, String filePath) {
    if (text == null) {
      return null;
    }
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return parse(bytes, 0, bytes.length, filePath);
  }

  /**
   * Parses {@code length} bytes of {@code bytes} from {@code offset}. Returns null for a blank line
   * (only JSON white space: space, tab, CR, LF), which holds no record, as in Spark's JSON reader.
   */
  public Parsed parse(byte[] bytes, int offset, int length, String filePath) {
    if (isBlank(bytes, offset, length)) {
      return null;
    }
    if (!Utf8.isValid(bytes, offset, length)) {
      return new Parsed(
          new Object[schema.size()],
          null,
          new String(bytes, offset, length, StandardCharsets.UTF_8),
          Base64.getEncoder().encodeToString(Arrays.copyOfRange(bytes, offset, offset + length)));
    }
    ensureHelpers();
    json.startLine(bytes, offset, length);
    currentFile = filePath;
    try (JsonParser parser = json.factory().createParser(bytes, offset, length)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return corrupt(bytes, offset, length);
      }
      RescuedObject rescued = new RescuedObject(null, null);
      Object[] values = readStruct(parser, schema, rescued, "");
      if (parser.nextToken() != null) {
        return corrupt(bytes, offset, length); // trailing content after the object
      }
      if (rescued.isEmpty()) {
        return new Parsed(values, null, null, null);
      }
      return new Parsed(values, rescued.toJson(json.factory(), filePath), null, null);
    } catch (NewColumnException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      // Malformed JSON, or a limit of the reader (nesting depth, number length): the line is kept
      // whole as a corrupt record. Conversions of single values never get here; they rescue.
      return corrupt(bytes, offset, length);
    } finally {
      json.endLine();
    }
  }

  static boolean isBlank(byte[] bytes, int offset, int length) {
    for (int i = offset; i < offset + length; i++) {
      byte b = bytes[i];
      if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
        return false;
      }
    }
    return true;
  }

  private Parsed corrupt(byte[] bytes, int offset, int length) {
    return new Parsed(
        new Object[schema.size()],
        null,
        new String(bytes, offset, length, StandardCharsets.UTF_8),
        null);
  }

  /**
   * Reads an object into the struct's values, rescuing what does not fit into {@code rescued}. A
   * repeated field: the last value is typed, as in Spark's reader; earlier ones are rescued.
   */
  private Object[] readStruct(
      JsonParser parser, StructType type, RescuedObject rescued, String path) throws IOException {
    FieldIndex index = conversion.index(type);
    Object[] values = new Object[type.size()];
    long[] starts = null; // where each field's value starts, only needed for a repeated field
    RescuedObject[] nestedRescues = null;
    boolean[] typed = null;
    int expected = 0; // where the next field is when the input follows the schema's order
    JsonToken token;
    while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      parser.nextToken();
      int position = index.position(name, expected);
      if (position < 0) {
        // Unknown or case mismatch: keep the original value.
        if (mode == SchemaEvolutionMode.FAIL_ON_NEW_COLUMNS) {
          throw BronzeErrors.newColumn(path + name, currentFile);
        }
        rescued.put(name, json.copy(parser));
        continue;
      }
      if (starts == null) {
        starts = new long[type.size()];
        Arrays.fill(starts, -1L);
      }
      if (starts[position] >= 0) {
        // Repeated: the earlier value (if it was typed) moves to the rescued object, whole.
        if (typed != null && typed[position]) {
          String earlier = json.rawAt(starts[position]);
          RescuedObject nested = nestedRescues == null ? null : nestedRescues[position];
          if (nested != null && nested.attachedAs != null) {
            rescued.replace(nested.attachedAs, earlier);
          } else {
            rescued.put(name, earlier);
          }
          typed[position] = false;
          if (nestedRescues != null) {
            nestedRescues[position] = null;
          }
        }
        values[position] = null;
      }
      starts[position] = JsonLine.tokenStart(parser);
      expected = position + 1;
      StructField field = type.fields()[position];
      DataType fieldType = field.dataType();
      Object value;
      if (fieldType instanceof StructType nested
          && parser.currentToken() == JsonToken.START_OBJECT) {
        RescuedObject nestedRescue = new RescuedObject(rescued, name);
        value = new GenericInternalRow(readStruct(parser, nested, nestedRescue, path + name + "."));
        if (nestedRescues == null) {
          nestedRescues = new RescuedObject[type.size()];
        }
        nestedRescues[position] = nestedRescue;
      } else {
        value = conversion.convert(parser, fieldType);
      }
      if (value == MISMATCH) {
        JsonToken last = parser.currentToken();
        boolean scalar = last != JsonToken.END_OBJECT && last != JsonToken.END_ARRAY;
        rescued.put(name, scalar ? json.copy(parser) : json.rawAt(starts[position]));
      } else {
        values[position] = value;
        if (typed == null) {
          typed = new boolean[type.size()];
        }
        typed[position] = true;
      }
    }
    if (token != JsonToken.END_OBJECT) {
      throw new JsonProcessingException("unterminated object", parser.currentLocation()) {};
    }
    return values;
  }

  /** The helpers hold no configuration of their own: built again after deserialisation. */
  private void ensureHelpers() {
    if (json == null) {
      json = new JsonLine();
      conversion = new ValueConversion(json, sessionTimeZone);
    }
  }
}
