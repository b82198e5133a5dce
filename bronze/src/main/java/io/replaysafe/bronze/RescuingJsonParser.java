package io.replaysafe.bronze;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.RecyclerPool;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.replaysafe.common.Columns;
import io.replaysafe.common.config.SchemaEvolutionMode;
import java.io.IOException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
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

/**
 * Parses one JSON line against an explicit schema the way Auto Loader's rescued-data column does: a
 * field the schema does not declare, a value that cannot be converted to its declared type (the
 * typed value is then null), and a field whose name matches a declared one only when case is
 * ignored all go into one JSON object, nested as in the input, with {@code "_file_path"}. A line
 * that is not a JSON object is returned as corrupt, with its raw text. Nothing is dropped.
 *
 * <p>One streaming pass over the line: Jackson tokens are converted straight to Spark values; only
 * rescued values and arrays/maps are materialised as trees.
 */
public final class RescuingJsonParser implements Serializable {
  private static final long serialVersionUID = 1L;

  private final StructType schema;
  private final SchemaEvolutionMode mode;
  private transient ObjectMapper mapper;
  private transient Map<StructType, FieldIndex> indexes;
  private transient String currentFile;

  public RescuingJsonParser(StructType schema, SchemaEvolutionMode mode) {
    this.schema = schema;
    this.mode = mode;
  }

  /** What one line became: typed values for the schema, rescued JSON, or the corrupt text. */
  public record Parsed(Object[] values, String rescued, String corrupt) {}

  /** Returns null for a blank line (no record), as Spark's JSON reader does. */
  public Parsed parse(String line, String filePath) {
    if (line == null || line.isBlank()) {
      return null;
    }
    ObjectMapper json = mapper();
    currentFile = filePath;
    try (JsonParser parser = json.getFactory().createParser(line)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return corrupt(line);
      }
      ObjectNode rescued = json.createObjectNode();
      Object[] values = readStruct(parser, schema, rescued, "");
      if (parser.nextToken() != null) {
        return corrupt(line); // trailing content after the object
      }
      if (rescued.isEmpty()) {
        return new Parsed(values, null, null);
      }
      rescued.put(Columns.RESCUED_FILE_PATH, filePath);
      return new Parsed(values, json.writeValueAsString(rescued), null);
    } catch (JsonProcessingException e) {
      return corrupt(line);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read a line of " + filePath + ": " + e, e);
    }
  }

  private Parsed corrupt(String line) {
    return new Parsed(new Object[schema.size()], null, line);
  }

  private Object[] readStruct(JsonParser parser, StructType type, ObjectNode rescued, String path)
      throws IOException {
    FieldIndex index = index(type);
    Object[] values = new Object[type.size()];
    boolean[] seen = new boolean[type.size()];
    int expected = 0; // where the next field is when the input follows the schema's order
    JsonToken token;
    while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      parser.nextToken();
      int position = index.position(name, expected);
      if (position < 0 || seen[position]) {
        // Unknown, case mismatch, or a repeated field: keep the original value.
        if (position < 0 && mode == SchemaEvolutionMode.FAIL_ON_NEW_COLUMNS) {
          throw new NewColumnException(path + name, currentFile);
        }
        rescued.set(name, parser.readValueAsTree());
        continue;
      }
      seen[position] = true;
      expected = position + 1;
      StructField field = type.fields()[position];
      DataType fieldType = field.dataType();
      if (fieldType instanceof StructType nested
          && parser.currentToken() == JsonToken.START_OBJECT) {
        ObjectNode nestedRescued = mapper().createObjectNode();
        values[position] =
            RowFactory.create(readStruct(parser, nested, nestedRescued, path + name + "."));
        if (!nestedRescued.isEmpty()) {
          rescued.set(name, nestedRescued);
        }
        continue;
      }
      Object value = convert(parser, fieldType);
      if (value == MISMATCH) {
        rescued.set(name, mismatchedValue);
        mismatchedValue = null;
      } else {
        values[position] = value;
      }
    }
    if (token != JsonToken.END_OBJECT) {
      throw new JsonProcessingException("unterminated object", parser.currentLocation()) {};
    }
    return values;
  }

  private static final Object MISMATCH = new Object();
  private transient JsonNode mismatchedValue;

  /** Converts the current value; on a mismatch returns MISMATCH and keeps the original value. */
  private Object convert(JsonParser parser, DataType type) throws IOException {
    JsonToken token = parser.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
      JsonNode tree = parser.readValueAsTree();
      if (type instanceof StringType) {
        return mapper().writeValueAsString(tree); // Spark keeps nested JSON in a string column
      }
      Object value = fromTree(tree, type);
      if (value == MISMATCH) {
        mismatchedValue = tree;
      }
      return value;
    }
    Object value = scalar(parser, token, type);
    if (value == MISMATCH) {
      mismatchedValue = parser.readValueAsTree();
    }
    return value;
  }

  private Object scalar(JsonParser parser, JsonToken token, DataType type) throws IOException {
    if (type instanceof StringType) {
      return parser.getText();
    }
    if (type instanceof LongType
        || type instanceof IntegerType
        || type instanceof ShortType
        || type instanceof ByteType) {
      if (token != JsonToken.VALUE_NUMBER_INT) {
        return MISMATCH;
      }
      // Jackson reports INT or LONG exactly when the number fits in a long; reading it as a long
      // then skips a BigInteger per value. Only a wider number takes the BigInteger path.
      if (parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
        return integral(parser.getBigIntegerValue(), type);
      }
      return integral(parser.getLongValue(), type);
    }
    if (type instanceof DoubleType || type instanceof FloatType) {
      double d;
      if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
        d = parser.getDoubleValue();
      } else if (token == JsonToken.VALUE_STRING && NON_NUMERIC.containsKey(parser.getText())) {
        d = NON_NUMERIC.get(parser.getText());
      } else {
        return MISMATCH;
      }
      return type instanceof DoubleType ? (Object) d : (Object) (float) d;
    }
    if (type instanceof DecimalType decimal) {
      if (token != JsonToken.VALUE_NUMBER_INT && token != JsonToken.VALUE_NUMBER_FLOAT) {
        return MISMATCH;
      }
      return decimal(parser.getDecimalValue(), decimal);
    }
    if (type instanceof BooleanType) {
      if (token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE) {
        return token == JsonToken.VALUE_TRUE;
      }
      return MISMATCH;
    }
    if (token != JsonToken.VALUE_STRING) {
      if (type instanceof TimestampType && token == JsonToken.VALUE_NUMBER_INT) {
        return new Timestamp(parser.getLongValue() * 1000L); // epoch seconds, as Spark reads them
      }
      return MISMATCH;
    }
    return temporalOrBinary(parser.getText(), type);
  }

  private static Object integral(BigInteger value, DataType type) {
    if (value.bitLength() > 63) {
      return MISMATCH;
    }
    return integral(value.longValue(), type);
  }

  private static Object integral(long v, DataType type) {
    long min;
    long max;
    if (type instanceof LongType) {
      min = Long.MIN_VALUE;
      max = Long.MAX_VALUE;
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
    if (type instanceof LongType) {
      return v;
    }
    if (type instanceof IntegerType) {
      return (int) v;
    }
    return type instanceof ShortType ? (Object) (short) v : (Object) (byte) v;
  }

  /** A decimal that would lose digits is a mismatch: rounding silently would lose data. */
  private static Object decimal(BigDecimal value, DecimalType type) {
    BigDecimal scaled;
    try {
      scaled = value.setScale(type.scale());
    } catch (ArithmeticException e) {
      return MISMATCH;
    }
    return scaled.precision() > type.precision() ? MISMATCH : scaled;
  }

  private static Object temporalOrBinary(String text, DataType type) {
    try {
      if (type instanceof DateType) {
        return Date.valueOf(LocalDate.parse(text));
      }
      if (type instanceof TimestampType) {
        return Timestamp.from(instant(text));
      }
      if (type instanceof TimestampNTZType) {
        return LocalDateTime.parse(text.replace(' ', 'T'));
      }
      if (type instanceof BinaryType) {
        return Base64.getDecoder().decode(text);
      }
    } catch (DateTimeParseException | IllegalArgumentException e) {
      return MISMATCH;
    }
    return MISMATCH;
  }

  /** ISO-8601 with an offset or Z; without one the time is taken as UTC (the session zone). */
  private static Instant instant(String text) {
    String iso = text.length() > 10 && text.charAt(10) == ' ' ? text.replaceFirst(" ", "T") : text;
    try {
      return OffsetDateTime.parse(iso).toInstant();
    } catch (DateTimeParseException e) {
      if (iso.length() == 10) {
        return LocalDate.parse(iso).atStartOfDay().toInstant(ZoneOffset.UTC);
      }
      return LocalDateTime.parse(iso).toInstant(ZoneOffset.UTC);
    }
  }

  private Object fromTree(JsonNode node, DataType type) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (type instanceof ArrayType array) {
      if (!node.isArray()) {
        return MISMATCH;
      }
      List<Object> out = new ArrayList<>(node.size());
      for (JsonNode element : node) {
        Object value = fromTree(element, array.elementType());
        if (value == MISMATCH) {
          return MISMATCH;
        }
        out.add(value);
      }
      return out;
    }
    if (type instanceof MapType map) {
      if (!node.isObject()) {
        return MISMATCH;
      }
      Map<String, Object> out = new LinkedHashMap<>();
      for (var it = node.fields(); it.hasNext(); ) {
        var entry = it.next();
        Object value = fromTree(entry.getValue(), map.valueType());
        if (value == MISMATCH) {
          return MISMATCH;
        }
        out.put(entry.getKey(), value);
      }
      return out;
    }
    if (type instanceof StructType struct) {
      // Inside an array or map a struct must fit whole: a partial element cannot be rescued apart.
      if (!node.isObject()) {
        return MISMATCH;
      }
      FieldIndex index = index(struct);
      Object[] values = new Object[struct.size()];
      for (var it = node.fields(); it.hasNext(); ) {
        var entry = it.next();
        Integer position = index.exact.get(entry.getKey());
        if (position == null) {
          return MISMATCH;
        }
        Object value = fromTree(entry.getValue(), struct.fields()[position].dataType());
        if (value == MISMATCH) {
          return MISMATCH;
        }
        values[position] = value;
      }
      return RowFactory.create(values);
    }
    if (type instanceof StringType) {
      return node.isValueNode() ? node.asText() : node.toString();
    }
    try (JsonParser p = node.traverse(mapper())) {
      JsonToken token = p.nextToken();
      return scalar(p, token, type);
    } catch (IOException e) {
      return MISMATCH;
    }
  }

  private static final Map<String, Double> NON_NUMERIC =
      Map.of(
          "NaN", Double.NaN,
          "Infinity", Double.POSITIVE_INFINITY,
          "+Infinity", Double.POSITIVE_INFINITY,
          "-Infinity", Double.NEGATIVE_INFINITY);

  private ObjectMapper mapper() {
    if (mapper == null) {
      mapper =
          new ObjectMapper(
              JsonFactory.builder()
                  .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                  .recyclerPool(new OneRecyclerPool())
                  .build());
      // By identity: every struct looked up is the schema or a part of it, and hashing a
      // StructType (once per line for the top level) would hash all of its fields.
      indexes = new IdentityHashMap<>();
    }
    return mapper;
  }

  private FieldIndex index(StructType type) {
    mapper();
    return indexes.computeIfAbsent(type, FieldIndex::new);
  }

  /**
   * Hands out one {@link BufferRecycler} for all parsers and generators of this instance. Jackson's
   * default pool looks the recycler up in a ThreadLocal for every parser, that is once per line,
   * and profiling showed that lookup as up to a sixth of the parse time. Sharing one recycler is
   * safe: it is thread-safe, and hands each buffer to one user at a time.
   */
  private static final class OneRecyclerPool implements RecyclerPool<BufferRecycler> {
    private static final long serialVersionUID = 1L;
    private transient BufferRecycler recycler;

    @Override
    public BufferRecycler acquirePooled() {
      if (recycler == null) {
        recycler = new BufferRecycler();
      }
      return recycler;
    }

    @Override
    public BufferRecycler acquireAndLinkPooled() {
      return acquirePooled(); // not linked: nothing is ever given back to this pool
    }

    @Override
    public void releasePooled(BufferRecycler pooled) {}
  }

  /** Field name to position, exact match only: a case mismatch is rescued, not matched. */
  private static final class FieldIndex {
    final Map<String, Integer> exact = new HashMap<>();

    /**
     * The names interned, by position. Jackson interns the field names it reads, so when a line
     * lists its fields in the schema's order one reference comparison finds each field, instead of
     * a hash lookup that compares the characters. Null where the map holds another position (a name
     * the schema repeats), so both ways always agree.
     */
    final String[] interned;

    FieldIndex(StructType type) {
      StructField[] fields = type.fields();
      for (int i = 0; i < fields.length; i++) {
        exact.put(fields[i].name(), i);
      }
      interned = new String[fields.length];
      for (int i = 0; i < fields.length; i++) {
        if (exact.get(fields[i].name()) == i) {
          interned[i] = fields[i].name().intern();
        }
      }
    }

    /** The field's position, or -1; {@code expected} is only a hint for the fast path. */
    int position(String name, int expected) {
      if (expected < interned.length && interned[expected] == name) {
        return expected;
      }
      Integer position = exact.get(name);
      return position == null ? -1 : position;
    }
  }

  /** The schema's top-level field names, lower-cased, for messages. */
  static String describe(StructType type) {
    return type.simpleString().toLowerCase(Locale.ROOT);
  }
}
