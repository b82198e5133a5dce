package io.replaysafe.bronze;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
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
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VariantType;
import org.apache.spark.types.variant.Variant;
import org.apache.spark.unsafe.types.VariantVal;

/**
 * Writes a value read from a Parquet or Avro file (Spark's internal representation, typed by the
 * file's own schema) as the JSON text bronze's JSON path reads: the value then goes through the one
 * conversion bronze has ({@link RescuingJsonParser}, {@link ValueConversion}), and what does not
 * fit is rescued as this text. This converts nothing to the declared type; it only says what the
 * file holds, in the form the JSON reader takes for each type: numbers as numbers (a decimal in
 * plain notation, NaN and infinities as the strings Spark's JSON reader accepts), BINARY in base64,
 * DATE as {@code yyyy-MM-dd}, TIMESTAMP as an ISO instant in UTC, TIMESTAMP_NTZ as an ISO local
 * date-time, maps as objects.
 */
final class InternalRowJson {
  private InternalRowJson() {}

  /** Writes the value of {@code type} at {@code ordinal} of {@code row} (which is not null). */
  static void write(JsonGenerator out, InternalRow row, int ordinal, DataType type)
      throws IOException {
    if (type instanceof StructType struct) {
      writeStruct(out, row.getStruct(ordinal, struct.size()), struct);
    } else if (type instanceof ArrayType array) {
      writeArray(out, row.getArray(ordinal), array.elementType());
    } else if (type instanceof MapType map) {
      writeMap(out, row.getMap(ordinal), map);
    } else {
      writeScalar(out, row.get(ordinal, type), type);
    }
  }

  static void writeStruct(JsonGenerator out, InternalRow row, StructType type) throws IOException {
    out.writeStartObject();
    for (int i = 0; i < type.size(); i++) {
      // A null field holds nothing to rescue, as a null column (FileRowMapping): left out, so a
      // struct field the schema does not declare is rescued only in the rows that have it.
      if (!row.isNullAt(i)) {
        out.writeFieldName(type.fields()[i].name());
        write(out, row, i, type.fields()[i].dataType());
      }
    }
    out.writeEndObject();
  }

  private static void writeArray(JsonGenerator out, ArrayData array, DataType element)
      throws IOException {
    out.writeStartArray();
    for (int i = 0; i < array.numElements(); i++) {
      if (array.isNullAt(i)) {
        out.writeNull();
      } else if (element instanceof StructType struct) {
        writeStruct(out, array.getStruct(i, struct.size()), struct);
      } else if (element instanceof ArrayType nested) {
        writeArray(out, array.getArray(i), nested.elementType());
      } else if (element instanceof MapType map) {
        writeMap(out, array.getMap(i), map);
      } else {
        writeScalar(out, array.get(i, element), element);
      }
    }
    out.writeEndArray();
  }

  private static void writeMap(JsonGenerator out, MapData map, MapType type) throws IOException {
    ArrayData keys = map.keyArray();
    ArrayData values = map.valueArray();
    out.writeStartObject();
    for (int i = 0; i < map.numElements(); i++) {
      // JSON keys are strings: a non-string key (an Avro map's keys are always strings; a Parquet
      // map's may not be) is written as its text, and a declared MAP<STRING, ...> takes it.
      out.writeFieldName(String.valueOf(keys.get(i, type.keyType())));
      if (values.isNullAt(i)) {
        out.writeNull();
      } else {
        DataType valueType = type.valueType();
        if (valueType instanceof StructType struct) {
          writeStruct(out, values.getStruct(i, struct.size()), struct);
        } else if (valueType instanceof ArrayType nested) {
          writeArray(out, values.getArray(i), nested.elementType());
        } else if (valueType instanceof MapType nested) {
          writeMap(out, values.getMap(i), nested);
        } else {
          writeScalar(out, values.get(i, valueType), valueType);
        }
      }
    }
    out.writeEndObject();
  }

  private static void writeScalar(JsonGenerator out, Object value, DataType type)
      throws IOException {
    if (type instanceof StringType) {
      out.writeString(value.toString());
    } else if (type instanceof BooleanType) {
      out.writeBoolean((Boolean) value);
    } else if (type instanceof LongType
        || type instanceof IntegerType
        || type instanceof ShortType
        || type instanceof ByteType) {
      out.writeNumber(((Number) value).longValue());
    } else if (type instanceof DoubleType) {
      writeFloating(out, (Double) value, Double.toString((Double) value));
    } else if (type instanceof FloatType) {
      // The float's own shortest text (1.1, not 1.100000023841858): what the file says.
      writeFloating(out, ((Float) value).doubleValue(), Float.toString((Float) value));
    } else if (type instanceof DecimalType) {
      out.writeNumber(((Decimal) value).toJavaBigDecimal().toPlainString());
    } else if (type instanceof BinaryType) {
      out.writeBinary((byte[]) value);
    } else if (type instanceof DateType) {
      out.writeString(LocalDate.ofEpochDay((Integer) value).toString());
    } else if (type instanceof TimestampType) {
      long micros = (Long) value;
      out.writeString(
          Instant.ofEpochSecond(
                  Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L)
              .toString());
    } else if (type instanceof TimestampNTZType) {
      long micros = (Long) value;
      out.writeString(
          LocalDateTime.ofEpochSecond(
                  Math.floorDiv(micros, 1_000_000L),
                  (int) (Math.floorMod(micros, 1_000_000L) * 1000L),
                  ZoneOffset.UTC)
              .toString());
    } else if (type instanceof VariantType) {
      VariantVal variant = (VariantVal) value;
      out.writeRawValue(
          new Variant(variant.getValue(), variant.getMetadata()).toJson(ZoneOffset.UTC));
    } else {
      // A type no declared column can hold (an interval): its text, which is rescued.
      out.writeString(String.valueOf(value));
    }
  }

  /** NaN and the infinities as the strings Spark's JSON reader takes for FLOAT and DOUBLE. */
  private static void writeFloating(JsonGenerator out, double value, String text)
      throws IOException {
    if (Double.isNaN(value)) {
      out.writeString("NaN");
    } else if (Double.isInfinite(value)) {
      out.writeString(value > 0 ? "Infinity" : "-Infinity");
    } else {
      out.writeNumber(text);
    }
  }
}
