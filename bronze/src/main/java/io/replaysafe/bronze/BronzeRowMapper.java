package io.replaysafe.bronze;

import io.replaysafe.common.Columns;
import io.replaysafe.common.CrashPoints;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Turns (line, provenance) rows from the text source into bronze rows: the schema's typed columns,
 * the rescued-data column, {@code _corrupt_record}, {@code _corrupt_record_base64}, then
 * provenance. Blank lines hold no record. Works on Spark's internal rows (see {@link
 * InternalRowEncoder}): the line's bytes go to the parser as they are, without a decoded String.
 */
final class BronzeRowMapper implements MapPartitionsFunction<InternalRow, InternalRow> {
  private static final long serialVersionUID = 2L;

  /** Input layout produced by {@link BronzeIngest}: line, then the four _metadata fields. */
  static final int LINE = 0;

  static final int FILE_PATH = 1;
  static final int FILE_NAME = 2;
  static final int FILE_SIZE = 3;
  static final int FILE_MTIME = 4;

  /** Columns after the schema's: rescued, corrupt, corrupt bytes, then the four provenance ones. */
  static final int EXTRA_COLUMNS = 7;

  private final RescuingJsonParser parser;
  private final int width;

  BronzeRowMapper(RescuingJsonParser parser, int schemaWidth) {
    this.parser = parser;
    this.width = schemaWidth;
  }

  /** The schema of rows this mapper emits (ingestion time is added by a column expression). */
  static StructType outputSchema(StructType schema, String rescuedColumn) {
    List<StructField> fields =
        new ArrayList<>(List.of(InternalRowEncoder.nullable(schema).fields()));
    fields.add(DataTypes.createStructField(rescuedColumn, DataTypes.StringType, true));
    fields.add(DataTypes.createStructField(Columns.CORRUPT_RECORD, DataTypes.StringType, true));
    fields.add(
        DataTypes.createStructField(Columns.CORRUPT_RECORD_BASE64, DataTypes.StringType, true));
    fields.add(DataTypes.createStructField(Columns.SOURCE_FILE, DataTypes.StringType, false));
    fields.add(DataTypes.createStructField(Columns.SOURCE_FILE_NAME, DataTypes.StringType, false));
    fields.add(DataTypes.createStructField(Columns.SOURCE_FILE_SIZE, DataTypes.LongType, false));
    fields.add(
        DataTypes.createStructField(Columns.SOURCE_FILE_MTIME, DataTypes.TimestampType, false));
    return DataTypes.createStructType(fields);
  }

  @Override
  public Iterator<InternalRow> call(Iterator<InternalRow> input) {
    return new Iterator<>() {
      private InternalRow next;
      // The input row's buffers are reused for the next row: the path is copied once per file.
      private UTF8String pathKey;
      private UTF8String path;
      private UTF8String fileName;
      private String pathText;

      @Override
      public boolean hasNext() {
        if (next == null) {
          next = advance();
        }
        return next != null;
      }

      @Override
      public InternalRow next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        InternalRow current = next;
        next = null;
        return current;
      }

      private InternalRow advance() {
        while (input.hasNext()) {
          InternalRow in = input.next();
          CrashPoints.maybeCrash(CrashPoints.BRONZE_MID_WRITE);
          UTF8String file = in.getUTF8String(FILE_PATH);
          if (!file.equals(pathKey)) {
            path = file.clone();
            pathKey = path;
            pathText = path.toString();
            fileName = in.getUTF8String(FILE_NAME).clone();
          }
          UTF8String line = in.getUTF8String(LINE);
          RescuingJsonParser.Parsed parsed = parse(line);
          if (parsed == null) {
            continue;
          }
          Object[] out = new Object[width + EXTRA_COLUMNS];
          System.arraycopy(parsed.values(), 0, out, 0, width);
          out[width] = utf8(parsed.rescued());
          out[width + 1] = utf8(parsed.corrupt());
          out[width + 2] = utf8(parsed.corruptBase64());
          out[width + 3] = path;
          out[width + 4] = fileName;
          out[width + 5] = in.getLong(FILE_SIZE);
          out[width + 6] = in.getLong(FILE_MTIME);
          return new GenericInternalRow(out);
        }
        return null;
      }

      private RescuingJsonParser.Parsed parse(UTF8String line) {
        // An on-heap line is read in place; otherwise its bytes are copied once.
        if (line.getBaseObject() instanceof byte[] bytes) {
          int offset = (int) (line.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET);
          return parser.parse(bytes, offset, line.numBytes(), pathText);
        }
        byte[] bytes = line.getBytes();
        return parser.parse(bytes, 0, bytes.length, pathText);
      }
    };
  }

  private static UTF8String utf8(String s) {
    return s == null ? null : UTF8String.fromString(s);
  }
}
