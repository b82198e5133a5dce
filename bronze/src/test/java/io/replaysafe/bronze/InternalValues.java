package io.replaysafe.bronze;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/** Renders the parser's internal values readably, the way Spark prints collected rows. */
final class InternalValues {
  private InternalValues() {}

  static String render(Object[] values, StructType schema) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      out.add(render(values[i], schema.fields()[i].dataType()));
    }
    return "[" + String.join(", ", out) + "]";
  }

  static String render(Object value, DataType type) {
    if (value == null) {
      return "null";
    }
    if (type instanceof StructType struct) {
      InternalRow row = (InternalRow) value;
      List<String> out = new ArrayList<>();
      for (int i = 0; i < struct.size(); i++) {
        DataType t = struct.fields()[i].dataType();
        out.add(render(row.isNullAt(i) ? null : row.get(i, t), t));
      }
      return "[" + String.join(",", out) + "]";
    }
    if (type instanceof ArrayType array) {
      ArrayData data = (ArrayData) value;
      List<String> out = new ArrayList<>();
      for (int i = 0; i < data.numElements(); i++) {
        out.add(
            render(
                data.isNullAt(i) ? null : data.get(i, array.elementType()), array.elementType()));
      }
      return "[" + String.join(", ", out) + "]";
    }
    if (type instanceof MapType map) {
      MapData data = (MapData) value;
      List<String> out = new ArrayList<>();
      for (int i = 0; i < data.numElements(); i++) {
        Object v = data.valueArray().isNullAt(i) ? null : data.valueArray().get(i, map.valueType());
        out.add(data.keyArray().get(i, map.keyType()) + " -> " + render(v, map.valueType()));
      }
      return "{" + String.join(", ", out) + "}";
    }
    if (type instanceof DateType) {
      return java.time.LocalDate.ofEpochDay((Integer) value).toString();
    }
    if (type instanceof TimestampType) {
      long micros = (Long) value;
      return java.time.Instant.EPOCH.plus(micros, java.time.temporal.ChronoUnit.MICROS).toString();
    }
    if (type instanceof TimestampNTZType) {
      long micros = (Long) value;
      return java.time.LocalDateTime.ofInstant(
              java.time.Instant.EPOCH.plus(micros, java.time.temporal.ChronoUnit.MICROS),
              java.time.ZoneOffset.UTC)
          .toString();
    }
    if (type instanceof BinaryType) {
      return Arrays.toString((byte[]) value);
    }
    return String.valueOf(value);
  }
}
