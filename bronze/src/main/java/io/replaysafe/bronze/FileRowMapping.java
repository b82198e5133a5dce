package io.replaysafe.bronze;

import com.fasterxml.jackson.core.JsonGenerator;
import io.replaysafe.common.config.SchemaEvolutionMode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection$;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Maps the rows of one Parquet or Avro file, as Spark's reader gives them on the file's own schema,
 * to bronze's typed columns and the rescued-data column, with the JSON path's rules: a field the
 * schema does not declare, or whose value does not convert to the declared type, is rescued (the
 * typed column is then null); a declared column the file lacks is null; nothing is dropped.
 *
 * <p>The plan is made once per file schema. A column whose name and type are the declared ones is
 * copied as it is, and an integral one the declared type widens (INT to BIGINT) is widened: that is
 * every column of a file that follows the schema, so such a file costs no conversion. Every other
 * column (another type, a struct with other fields, a name the schema does not declare, or declares
 * with another case) is written as JSON ({@link InternalRowJson}) and read by the JSON path's own
 * parser ({@link RescuingJsonParser}), so the conversions and the rescued object (nesting, {@code
 * _file_path}, repeated names) are the JSON path's, not a second set of rules. A null value holds
 * nothing to rescue: it is left out of that JSON (a declared column then reads null).
 */
final class FileRowMapping implements Serializable {
  private static final long serialVersionUID = 1L;

  private enum Kind {
    COPY,
    WIDEN,
    ABSENT
  }

  private final StructType fileSchema;
  private final int width;
  private final Kind[] kinds;
  // Per declared column: the file's ordinal it is copied or widened from.
  private final int[] sources;
  private final DataType[] declaredTypes;
  // The file's columns read through the JSON parser, in the file's order.
  private final int[] viaJson;
  // Per column of jsonSchema: the declared column it is.
  private final int[] jsonTargets;
  private final RescuingJsonParser parser;
  // Whether a declared column is widened: such a row is copied, not read through.
  private final boolean widens;

  // Built per task: a generated projection is not serialisable.
  private transient UnsafeProjection copy;

  /**
   * @param fileSchema the file's own schema, as Spark's reader gives its rows
   * @param schema the declared schema ({@code source.schema})
   */
  FileRowMapping(
      StructType fileSchema, StructType schema, SchemaEvolutionMode mode, String sessionTimeZone) {
    this.fileSchema = fileSchema;
    this.width = schema.size();
    this.kinds = new Kind[width];
    this.sources = new int[width];
    this.declaredTypes = new DataType[width];
    Map<String, Integer> byName = new HashMap<>();
    for (int i = 0; i < width; i++) {
      byName.put(schema.fields()[i].name(), i);
      kinds[i] = Kind.ABSENT;
      declaredTypes[i] = schema.fields()[i].dataType();
    }
    List<Integer> json = new ArrayList<>();
    List<StructField> jsonFields = new ArrayList<>();
    List<Integer> targets = new ArrayList<>();
    StructField[] fields = fileSchema.fields();
    for (int f = 0; f < fields.length; f++) {
      Integer target = byName.get(fields[f].name());
      DataType fileType = fields[f].dataType();
      if (target != null && sameType(fileType, declaredTypes[target])) {
        kinds[target] = Kind.COPY;
        sources[target] = f;
      } else if (target != null && widens(fileType, declaredTypes[target])) {
        kinds[target] = Kind.WIDEN;
        sources[target] = f;
      } else {
        json.add(f);
        if (target != null) {
          jsonFields.add(schema.fields()[target]);
          targets.add(target);
        }
      }
    }
    this.viaJson = json.stream().mapToInt(Integer::intValue).toArray();
    this.widens = java.util.Arrays.asList(kinds).contains(Kind.WIDEN);
    this.jsonTargets = targets.stream().mapToInt(Integer::intValue).toArray();
    this.parser =
        viaJson.length == 0
            ? null
            : new RescuingJsonParser(
                new StructType(jsonFields.toArray(StructField[]::new)), mode, sessionTimeZone);
  }

  /**
   * The declared columns and the rescued-data column (null when nothing was rescued). The row may
   * be reused by the next call: Spark's scan copies each row before it asks for the next.
   */
  InternalRow map(InternalRow in, String filePath, Buffer buffer) {
    if (nothingForJson(in)) {
      return widens ? copied(in) : buffer.declaredColumns(this).over(in);
    }
    Object[] out = new Object[width + 1];
    for (int i = 0; i < width; i++) {
      if (kinds[i] == Kind.ABSENT || in.isNullAt(sources[i])) {
        continue;
      }
      Object value = in.get(sources[i], fileSchema.fields()[sources[i]].dataType());
      out[i] = kinds[i] == Kind.COPY ? value : widen((Number) value, declaredTypes[i]);
    }
    if (viaJson.length > 0) {
      byte[] line = buffer.render(in, fileSchema, viaJson);
      if (line != null) {
        RescuingJsonParser.Parsed parsed = parser.parse(line, 0, buffer.length(), filePath);
        if (parsed.corrupt() != null) {
          throw new IllegalStateException(
              "Bronze wrote a row of " + filePath + " as JSON it cannot read: " + parsed.corrupt());
        }
        Object[] values = parsed.values();
        for (int j = 0; j < jsonTargets.length; j++) {
          out[jsonTargets[j]] = values[j];
        }
        out[width] = parsed.rescued() == null ? null : UTF8String.fromString(parsed.rescued());
      }
    }
    return new GenericInternalRow(out);
  }

  /**
   * Whether a file of this schema can be read in column batches ({@link RescuingFileFormat}): every
   * declared column it holds is copied as it is, and every other column of the file is one the
   * schema does not declare, so the rescued column is all the mapping adds. A column that is
   * widened or converted (or whose value may land in a declared column) needs this row-by-row
   * mapping.
   */
  boolean readsColumnar() {
    return !widens && jsonTargets.length == 0;
  }

  /** The declared columns' count: the rescued column's ordinal in the mapped rows. */
  int width() {
    return width;
  }

  /** The file's ordinal the declared column is copied from, or -1 when the file lacks it. */
  int copiedFrom(int declared) {
    return kinds[declared] == Kind.ABSENT ? -1 : sources[declared];
  }

  /** The file's columns whose non-null values are rescued, in the file's order. */
  int[] rescuedColumns() {
    return viaJson.clone();
  }

  /**
   * The rescued-data column of a row of a file that {@link #readsColumnar() reads columnar}, or
   * null when it rescues nothing: the same JSON and parser as {@link #map}, without building the
   * typed columns, which the caller takes from the file's column vectors.
   */
  UTF8String rescued(InternalRow in, String filePath, Buffer buffer) {
    if (viaJson.length == 0) {
      return null;
    }
    byte[] line = buffer.render(in, fileSchema, viaJson);
    if (line == null) {
      return null;
    }
    RescuingJsonParser.Parsed parsed = parser.parse(line, 0, buffer.length(), filePath);
    if (parsed.corrupt() != null) {
      throw new IllegalStateException(
          "Bronze wrote a row of " + filePath + " as JSON it cannot read: " + parsed.corrupt());
    }
    return parsed.rescued() == null ? null : UTF8String.fromString(parsed.rescued());
  }

  private boolean nothingForJson(InternalRow in) {
    for (int f : viaJson) {
      if (!in.isNullAt(f)) {
        return false;
      }
    }
    return true;
  }

  /**
   * A row with nothing to convert or rescue (every row of a file that follows the schema, and most
   * of a file with a mostly null undeclared column): one generated projection copies the columns as
   * Spark read them, without boxing a value, and the widened ones are set after it.
   */
  InternalRow copied(InternalRow in) {
    if (copy == null) {
      List<Expression> columns = new ArrayList<>();
      for (int i = 0; i < width; i++) {
        columns.add(
            kinds[i] == Kind.COPY
                ? new BoundReference(sources[i], fileSchema.fields()[sources[i]].dataType(), true)
                : Literal.create(null, declaredTypes[i]));
      }
      columns.add(Literal.create(null, DataTypes.StringType));
      copy = UnsafeProjection$.MODULE$.create(CollectionConverters.asScala(columns).toList());
    }
    UnsafeRow row = copy.apply(in);
    for (int i = 0; i < width; i++) {
      if (kinds[i] != Kind.WIDEN || in.isNullAt(sources[i])) {
        continue;
      }
      long value =
          ((Number) in.get(sources[i], fileSchema.fields()[sources[i]].dataType())).longValue();
      if (declaredTypes[i] instanceof LongType) {
        row.setLong(i, value);
      } else if (declaredTypes[i] instanceof IntegerType) {
        row.setInt(i, (int) value);
      } else {
        row.setShort(i, (short) value);
      }
    }
    return row;
  }

  /**
   * The same type, nullability and field metadata aside: what the file holds is what the schema
   * declares, and the value is copied as Spark read it.
   */
  static boolean sameType(DataType file, DataType declared) {
    if (file instanceof StructType a && declared instanceof StructType b) {
      if (a.size() != b.size()) {
        return false;
      }
      for (int i = 0; i < a.size(); i++) {
        if (!a.fields()[i].name().equals(b.fields()[i].name())
            || !sameType(a.fields()[i].dataType(), b.fields()[i].dataType())) {
          return false;
        }
      }
      return true;
    }
    if (file instanceof ArrayType a && declared instanceof ArrayType b) {
      return sameType(a.elementType(), b.elementType());
    }
    if (file instanceof MapType a && declared instanceof MapType b) {
      return sameType(a.keyType(), b.keyType()) && sameType(a.valueType(), b.valueType());
    }
    return file.equals(declared);
  }

  /** An integral type into a wider one: every value fits, as the JSON path would convert it. */
  private static boolean widens(DataType file, DataType declared) {
    return rank(file) > 0 && rank(declared) > rank(file);
  }

  private static int rank(DataType type) {
    if (type instanceof ByteType) {
      return 1;
    }
    if (type instanceof ShortType) {
      return 2;
    }
    if (type instanceof IntegerType) {
      return 3;
    }
    return type instanceof LongType ? 4 : 0;
  }

  private static Object widen(Number value, DataType declared) {
    if (declared instanceof LongType) {
      return value.longValue();
    }
    if (declared instanceof IntegerType) {
      return value.intValue();
    }
    return value.shortValue();
  }

  /** One per task: the bytes of the row's JSON and the declared columns' view, reused per row. */
  static final class Buffer {
    private final Bytes bytes = new Bytes();
    private DeclaredColumnsRow declared;

    /** The view of a row's declared columns under {@code mapping}, made once. */
    DeclaredColumnsRow declaredColumns(FileRowMapping mapping) {
      if (declared == null || declared.mapping() != mapping) {
        // Built only for a mapping that widens nothing: each column present is copied as it is.
        int[] from = new int[mapping.width()];
        for (int i = 0; i < from.length; i++) {
          from[i] = mapping.copiedFrom(i);
        }
        declared = new DeclaredColumnsRow(from, mapping);
      }
      return declared;
    }

    private final com.fasterxml.jackson.core.JsonFactory factory =
        new com.fasterxml.jackson.core.JsonFactory();

    /** The columns' non-null values as one JSON object, or null when every one is null. */
    byte[] render(InternalRow row, StructType schema, int[] ordinals) {
      // Most rows of a file with an undeclared column that is mostly null: nothing to write.
      boolean allNull = true;
      for (int f : ordinals) {
        allNull &= row.isNullAt(f);
      }
      if (allNull) {
        return null;
      }
      bytes.reset();
      boolean any = false;
      try (JsonGenerator out = factory.createGenerator(bytes)) {
        out.writeStartObject();
        for (int f : ordinals) {
          if (row.isNullAt(f)) {
            continue;
          }
          any = true;
          StructField field = schema.fields()[f];
          out.writeFieldName(field.name());
          InternalRowJson.write(out, row, f, field.dataType());
        }
        out.writeEndObject();
      } catch (IOException e) {
        throw new UncheckedIOException(e); // writes to memory only
      }
      return any ? bytes.buffer() : null;
    }

    int length() {
      return bytes.size();
    }
  }

  /** A byte buffer whose array is read in place. */
  private static final class Bytes extends ByteArrayOutputStream {
    byte[] buffer() {
      return buf;
    }
  }
}
