package io.replaysafe.bronze;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.VariantType;
import org.apache.spark.types.variant.Variant;
import org.apache.spark.types.variant.VariantBuilder;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.unsafe.types.VariantVal;

/**
 * One JSON value to the Spark internal value of its declared type ({@link GenericArrayData}, {@link
 * ArrayBasedMapData}, {@link GenericInternalRow}, {@link VariantVal}; scalars in {@link
 * ScalarConversion}), or {@link #MISMATCH} when it does not fit. A value inside an array or map
 * must fit whole: a part of an element cannot be rescued on its own, so the whole enclosing value
 * is rescued instead.
 */
final class ValueConversion {
  /**
   * What a conversion returns for a value that does not fit its type; the caller rescues the input
   * text. A sentinel rather than an exception or a wrapper: most values fit, and this path runs
   * once per value, so it allocates nothing.
   */
  static final Object MISMATCH = new Object();

  private final JsonLine line;
  private final ScalarConversion scalars;

  // By identity: every struct looked up is the schema or a part of it, and hashing a StructType
  // (once per line for the top level) would hash all of its fields.
  private final Map<StructType, FieldIndex> indexes = new IdentityHashMap<>();

  ValueConversion(JsonLine line, String sessionTimeZone) {
    this.line = line;
    this.scalars = new ScalarConversion(sessionTimeZone);
  }

  /** The struct's field positions by name, built once per struct type. */
  FieldIndex index(StructType type) {
    return indexes.computeIfAbsent(type, FieldIndex::new);
  }

  /**
   * Converts the current value, consuming all of it. Returns MISMATCH when it does not fit; the
   * caller then rescues the input text. Never throws for a value that does not fit.
   */
  Object convert(JsonParser parser, DataType type) throws IOException {
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
        return UTF8String.fromString(line.copy(parser)); // nested JSON kept as text, as Spark does
      }
      parser.skipChildren();
      return MISMATCH;
    }
    try {
      return scalars.convert(parser, token, type);
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
    long start = JsonLine.tokenStart(parser);
    parser.skipChildren();
    try (JsonParser sub = line.parserAt(start)) {
      sub.nextToken();
      Variant v = VariantBuilder.parseJson(sub, false);
      return new VariantVal(v.getValue(), v.getMetadata());
    } catch (IOException | RuntimeException e) {
      return MISMATCH;
    }
  }
}
