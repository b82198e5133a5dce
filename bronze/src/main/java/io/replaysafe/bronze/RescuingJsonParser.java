package io.replaysafe.bronze;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import io.replaysafe.common.config.SchemaEvolutionMode;
import java.io.IOException;
import java.io.Serializable;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.catalyst.util.RebaseDateTime;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VariantType;
import org.apache.spark.types.variant.Variant;
import org.apache.spark.types.variant.VariantBuilder;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.unsafe.types.VariantVal;
import scala.Option;

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
 */
public final class RescuingJsonParser implements Serializable {
  private static final long serialVersionUID = 2L;

  /** The same limits as Spark's JSON reader defaults (JSONOptions). */
  static final int MAX_NESTING_DEPTH = 1000;

  static final int MAX_NUMBER_LENGTH = 1000;

  private final StructType schema;
  private final SchemaEvolutionMode mode;
  private final String sessionTimeZone;
  private transient JsonFactory factory;
  private transient Map<StructType, FieldIndex> indexes;
  private transient ZoneId zone;

  // The line being parsed: rescued values are copied from its bytes.
  private transient byte[] line;
  private transient int lineStart;
  private transient int lineEnd;
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
          Base64.getEncoder()
              .encodeToString(java.util.Arrays.copyOfRange(bytes, offset, offset + length)));
    }
    JsonFactory json = factory();
    line = bytes;
    lineStart = offset;
    lineEnd = offset + length;
    currentFile = filePath;
    try (JsonParser parser = json.createParser(bytes, offset, length)) {
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
      return new Parsed(values, rescued.toJson(json, filePath), null, null);
    } catch (NewColumnException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      // Malformed JSON, or a limit of the reader (nesting depth, number length): the line is kept
      // whole as a corrupt record. Conversions of single values never get here; they rescue.
      return corrupt(bytes, offset, length);
    } finally {
      line = null;
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
    FieldIndex index = index(type);
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
          throw new NewColumnException(path + name, currentFile);
        }
        rescued.put(name, rawValue(parser));
        continue;
      }
      if (starts == null) {
        starts = new long[type.size()];
        java.util.Arrays.fill(starts, -1L);
      }
      if (starts[position] >= 0) {
        // Repeated: the earlier value (if it was typed) moves to the rescued object, whole.
        if (typed != null && typed[position]) {
          String earlier = rawAt(starts[position]);
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
      starts[position] = tokenStart(parser);
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
        value = convert(parser, fieldType);
      }
      if (value == MISMATCH) {
        JsonToken last = parser.currentToken();
        boolean scalar = last != JsonToken.END_OBJECT && last != JsonToken.END_ARRAY;
        rescued.put(name, scalar ? copy(parser) : rawAt(starts[position]));
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

  private static final Object MISMATCH = new Object();

  /**
   * Converts the current value, consuming all of it. Returns MISMATCH when it does not fit; the
   * caller then rescues the input text. Never throws for a value that does not fit.
   */
  private Object convert(JsonParser parser, DataType type) throws IOException {
    JsonToken token = parser.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    if (type instanceof VariantType) {
      return variant(parser);
    }
    if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
      if (type instanceof ArrayType array && token == JsonToken.START_ARRAY) {
        return array(parser, array);
      }
      if (type instanceof MapType map && token == JsonToken.START_OBJECT) {
        return map(parser, map);
      }
      if (type instanceof StructType struct && token == JsonToken.START_OBJECT) {
        return wholeStruct(parser, struct);
      }
      if (type instanceof StringType) {
        return UTF8String.fromString(copy(parser)); // nested JSON kept as text, as Spark does
      }
      parser.skipChildren();
      return MISMATCH;
    }
    try {
      return scalar(parser, token, type);
    } catch (RuntimeException e) {
      // NumberFormatException (NaN as a decimal), ArithmeticException, a date outside the
      // calendar: one value that does not fit is rescued, never a failed run.
      return MISMATCH;
    }
  }

  /** An array must fit whole: one element that does not fit rescues the whole array. */
  private Object array(JsonParser parser, ArrayType type) throws IOException {
    List<Object> out = new ArrayList<>();
    boolean fits = true;
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      if (!fits) {
        parser.skipChildren();
        continue;
      }
      Object value = convert(parser, type.elementType());
      if (value == MISMATCH) {
        fits = false;
      } else {
        out.add(value);
      }
    }
    return fits ? new GenericArrayData(out.toArray()) : MISMATCH;
  }

  /** A map must fit whole, including no repeated key. */
  private Object map(JsonParser parser, MapType type) throws IOException {
    List<Object> keys = new ArrayList<>();
    List<Object> values = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    boolean fits = true;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String key = parser.currentName();
      parser.nextToken();
      if (!fits) {
        parser.skipChildren();
        continue;
      }
      if (!seen.add(key)) {
        fits = false;
        parser.skipChildren();
        continue;
      }
      Object value = convert(parser, type.valueType());
      if (value == MISMATCH) {
        fits = false;
      } else {
        keys.add(UTF8String.fromString(key));
        values.add(value);
      }
    }
    if (!fits) {
      return MISMATCH;
    }
    return new ArrayBasedMapData(
        new GenericArrayData(keys.toArray()), new GenericArrayData(values.toArray()));
  }

  /**
   * A struct inside an array or map must fit whole: a partial element cannot be rescued apart, so
   * an unknown, case-mismatched or repeated field rescues the enclosing value whole.
   */
  private Object wholeStruct(JsonParser parser, StructType type) throws IOException {
    FieldIndex index = index(type);
    Object[] values = new Object[type.size()];
    boolean[] seen = new boolean[type.size()];
    boolean fits = true;
    int expected = 0;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      parser.nextToken();
      if (!fits) {
        parser.skipChildren();
        continue;
      }
      int position = index.position(name, expected);
      if (position < 0 || seen[position]) {
        fits = false;
        parser.skipChildren();
        continue;
      }
      seen[position] = true;
      expected = position + 1;
      Object value = convert(parser, type.fields()[position].dataType());
      if (value == MISMATCH) {
        fits = false;
      } else {
        values[position] = value;
      }
    }
    return fits ? new GenericInternalRow(values) : MISMATCH;
  }

  /** The value's text, then Spark's variant builder on it; a value it refuses is rescued. */
  private Object variant(JsonParser parser) throws IOException {
    long start = tokenStart(parser);
    parser.skipChildren();
    try (JsonParser sub =
        factory().createParser(line, absolute(start), lineEnd - absolute(start))) {
      sub.nextToken();
      Variant v = VariantBuilder.parseJson(sub, false);
      return new VariantVal(v.getValue(), v.getMetadata());
    } catch (IOException | RuntimeException e) {
      return MISMATCH;
    }
  }

  private Object scalar(JsonParser parser, JsonToken token, DataType type) throws IOException {
    if (type instanceof StringType) {
      return UTF8String.fromString(parser.getText()); // a number keeps its text; true, false
    }
    if (type instanceof LongType
        || type instanceof IntegerType
        || type instanceof ShortType
        || type instanceof ByteType) {
      if (token != JsonToken.VALUE_NUMBER_INT) {
        return MISMATCH;
      }
      // Jackson reports INT or LONG exactly when the number fits in a long.
      if (parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
        return MISMATCH;
      }
      return integral(parser.getLongValue(), type);
    }
    if (type instanceof DoubleType || type instanceof FloatType) {
      return floating(parser, token, type instanceof FloatType);
    }
    if (type instanceof DecimalType decimal) {
      if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
        if (parser.isNaN()) {
          return MISMATCH;
        }
        return decimal(parser.getDecimalValue(), decimal);
      }
      if (token == JsonToken.VALUE_STRING) {
        // Spark reads a decimal in a string too. Its reader drops thousands separators; here a
        // string with one is rescued, since "1,2" would silently become 12.
        String text = parser.getText();
        if (text.isEmpty() || text.length() > MAX_NUMBER_LENGTH || text.indexOf(',') >= 0) {
          return MISMATCH;
        }
        return decimal(new BigDecimal(text), decimal);
      }
      return MISMATCH;
    }
    if (type instanceof BooleanType) {
      if (token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE) {
        return token == JsonToken.VALUE_TRUE;
      }
      return MISMATCH;
    }
    if (type instanceof TimestampType && token == JsonToken.VALUE_NUMBER_INT) {
      // Epoch seconds, as Spark reads them; Spark's reader wraps around on overflow.
      if (parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
        return MISMATCH;
      }
      return Math.multiplyExact(parser.getLongValue(), 1_000_000L);
    }
    if (token != JsonToken.VALUE_STRING || parser.getTextLength() < 1) {
      return MISMATCH;
    }
    return temporalOrBinary(parser.getText(), type);
  }

  private static Object floating(JsonParser parser, JsonToken token, boolean isFloat)
      throws IOException {
    if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
      if (parser.isNaN()) { // NaN, Infinity, -Infinity written as bare tokens
        double special = parser.getDoubleValue();
        return isFloat ? (Object) (float) special : (Object) special;
      }
      if (isFloat) {
        float f = parser.getFloatValue();
        return fitsInFloating(f, parser.getText()) ? (Object) f : MISMATCH;
      }
      double d = parser.getDoubleValue();
      return fitsInFloating(d, parser.getText()) ? (Object) d : MISMATCH;
    }
    if (token == JsonToken.VALUE_STRING) {
      Double special = NON_NUMERIC.get(parser.getText());
      if (special == null) {
        return MISMATCH;
      }
      return isFloat ? (Object) special.floatValue() : (Object) special;
    }
    return MISMATCH;
  }

  /** Overflow to infinity and underflow of a non-zero number to zero lose the value: rescued. */
  private static boolean fitsInFloating(double value, String text) {
    if (Double.isInfinite(value)) {
      return false;
    }
    if (value == 0.0) {
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == 'e' || c == 'E') {
          break;
        }
        if (c >= '1' && c <= '9') {
          return false;
        }
      }
    }
    return true;
  }

  private static Object integral(long v, DataType type) {
    long min;
    long max;
    if (type instanceof LongType) {
      return v;
    } else if (type instanceof IntegerType) {
      min = Integer.MIN_VALUE;
      max = Integer.MAX_VALUE;
    } else if (type instanceof ShortType) {
      min = Short.MIN_VALUE;
      max = Short.MAX_VALUE;
    } else {
      min = Byte.MIN_VALUE;
      max = Byte.MAX_VALUE;
    }
    if (v < min || v > max) {
      return MISMATCH;
    }
    if (type instanceof IntegerType) {
      return (int) v;
    }
    return type instanceof ShortType ? (Object) (short) v : (Object) (byte) v;
  }

  /**
   * A decimal that would lose digits (rounding) or does not fit the precision is a mismatch. The
   * digit counts are checked before {@code setScale}, so {@code 1e300000000} costs no more than
   * {@code 1e3}: the work per value is bounded by the type's precision.
   */
  static Object decimal(BigDecimal value, DecimalType type) {
    if (value.signum() == 0) {
      return Decimal.apply(BigDecimal.ZERO.setScale(type.scale()), type.precision(), type.scale());
    }
    BigDecimal v = value;
    if (v.scale() > type.scale()) {
      v = v.stripTrailingZeros(); // 1.50 fits DECIMAL(3,1): only zeros are dropped
      if (v.scale() > type.scale()) {
        return MISMATCH;
      }
    }
    long integerDigits = (long) v.precision() - v.scale();
    if (integerDigits > type.precision() - type.scale()) {
      return MISMATCH;
    }
    return Decimal.apply(v.setScale(type.scale()), type.precision(), type.scale());
  }

  private Object temporalOrBinary(String text, DataType type) {
    if (type instanceof DateType) {
      Option<Object> days =
          DateTimeUtils.stringToDate(
              DateTimeUtils.cleanLegacyTimestampStr(UTF8String.fromString(text)));
      if (days.isDefined()) {
        return days.get();
      }
      // Spark 1.5 stored dates as a day count in a string; Spark's reader still accepts that.
      return RebaseDateTime.rebaseJulianToGregorianDays(Integer.parseInt(text));
    }
    if (type instanceof TimestampType) {
      UTF8String s = UTF8String.fromString(text);
      Option<Object> micros = DateTimeUtils.stringToTimestamp(s, zone());
      if (micros.isEmpty()) {
        micros = DateTimeUtils.stringToTimestamp(DateTimeUtils.cleanLegacyTimestampStr(s), zone());
      }
      return micros.isDefined() ? micros.get() : MISMATCH;
    }
    if (type instanceof TimestampNTZType) {
      Option<Object> micros =
          DateTimeUtils.stringToTimestampWithoutTimeZone(UTF8String.fromString(text), false);
      return micros.isDefined() ? micros.get() : MISMATCH;
    }
    if (type instanceof BinaryType) {
      return Base64Variants.getDefaultVariant().decode(text); // what Jackson's getBinaryValue reads
    }
    return MISMATCH;
  }

  private ZoneId zone() {
    if (zone == null) {
      zone = ZoneId.of(sessionTimeZone);
    }
    return zone;
  }

  // ---- raw text of rescued values ----

  private static long tokenStart(JsonParser parser) {
    return parser.currentTokenLocation().getByteOffset();
  }

  private int absolute(long tokenOffset) {
    return lineStart + (int) tokenOffset;
  }

  /** The value starting at {@code tokenOffset} of the line, re-read and copied exactly. */
  private String rawAt(long tokenOffset) throws IOException {
    int from = absolute(tokenOffset);
    if (line[from] == '{' || line[from] == '[') {
      try (JsonParser sub = factory().createParser(line, from, lineEnd - from)) {
        sub.nextToken();
        return copy(sub);
      }
    }
    // A scalar at the root must be followed by white space; inside an array it may be followed by
    // the comma or brace that follows it in the line. Only a repeated field's value comes here.
    byte[] wrapped = new byte[lineEnd - from + 1];
    wrapped[0] = '[';
    System.arraycopy(line, from, wrapped, 1, lineEnd - from);
    try (JsonParser sub = factory().createParser(wrapped)) {
      sub.nextToken();
      sub.nextToken();
      return copy(sub);
    }
  }

  /** The current value, copied (consuming it). */
  private String rawValue(JsonParser parser) throws IOException {
    return copy(parser);
  }

  /**
   * Copies the current value as JSON text: strings re-escaped (same content), numbers with their
   * input text (digits, sign, exponent; {@code NaN} and {@code Infinity} as written), structure and
   * key order as in the input.
   */
  private String copy(JsonParser parser) throws IOException {
    StringWriter out = new StringWriter();
    try (JsonGenerator generator = factory().createGenerator(out)) {
      copy(parser, generator);
    }
    return out.toString();
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

  private static final Map<String, Double> NON_NUMERIC =
      Map.of(
          "NaN", Double.NaN,
          "Infinity", Double.POSITIVE_INFINITY,
          "+Infinity", Double.POSITIVE_INFINITY,
          "+INF", Double.POSITIVE_INFINITY,
          "-Infinity", Double.NEGATIVE_INFINITY,
          "-INF", Double.NEGATIVE_INFINITY);

  private JsonFactory factory() {
    if (factory == null) {
      factory =
          JsonFactory.builder()
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
      // By identity: every struct looked up is the schema or a part of it, and hashing a
      // StructType (once per line for the top level) would hash all of its fields.
      indexes = new IdentityHashMap<>();
    }
    return factory;
  }

  private FieldIndex index(StructType type) {
    factory();
    return indexes.computeIfAbsent(type, FieldIndex::new);
  }

  /** The schema's top-level field names, lower-cased, for messages. */
  static String describe(StructType type) {
    return type.simpleString().toLowerCase(Locale.ROOT);
  }
}
