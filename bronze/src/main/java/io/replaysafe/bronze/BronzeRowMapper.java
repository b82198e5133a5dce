package io.replaysafe.bronze;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Turns (line, provenance) rows from the text source into bronze rows: the schema's typed columns,
 * the rescued-data column, {@code _corrupt_record}, then provenance. Blank lines hold no record.
 */
final class BronzeRowMapper implements MapPartitionsFunction<Row, Row> {
  private static final long serialVersionUID = 1L;

  /** Input layout produced by {@link BronzeIngest}: line, then the four _metadata fields. */
  static final int LINE = 0;

  static final int FILE_PATH = 1;
  static final int FILE_NAME = 2;
  static final int FILE_SIZE = 3;
  static final int FILE_MTIME = 4;

  private final RescuingJsonParser parser;
  private final int width;

  BronzeRowMapper(RescuingJsonParser parser, int schemaWidth) {
    this.parser = parser;
    this.width = schemaWidth;
  }

  /** The schema of rows this mapper emits (ingestion time is added by a column expression). */
  static StructType outputSchema(StructType schema, String rescuedColumn) {
    List<StructField> fields = new ArrayList<>(List.of(schema.fields()));
    fields.add(DataTypes.createStructField(rescuedColumn, DataTypes.StringType, true));
    fields.add(
        DataTypes.createStructField(
            io.replaysafe.common.Columns.CORRUPT_RECORD, DataTypes.StringType, true));
    fields.add(
        DataTypes.createStructField(
            io.replaysafe.common.Columns.SOURCE_FILE, DataTypes.StringType, false));
    fields.add(
        DataTypes.createStructField(
            io.replaysafe.common.Columns.SOURCE_FILE_NAME, DataTypes.StringType, false));
    fields.add(
        DataTypes.createStructField(
            io.replaysafe.common.Columns.SOURCE_FILE_SIZE, DataTypes.LongType, false));
    fields.add(
        DataTypes.createStructField(
            io.replaysafe.common.Columns.SOURCE_FILE_MTIME, DataTypes.TimestampType, false));
    return DataTypes.createStructType(fields);
  }

  @Override
  public Iterator<Row> call(Iterator<Row> input) {
    return new Iterator<>() {
      private Row next = advance();

      private Row advance() {
        while (input.hasNext()) {
          Row in = input.next();
          io.replaysafe.common.CrashPoints.maybeCrash(
              io.replaysafe.common.CrashPoints.BRONZE_MID_WRITE);
          String file = in.getString(FILE_PATH);
          RescuingJsonParser.Parsed parsed = parser.parse(in.getString(LINE), file);
          if (parsed == null) {
            continue;
          }
          Object[] out = new Object[width + 6];
          System.arraycopy(parsed.values(), 0, out, 0, width);
          out[width] = parsed.rescued();
          out[width + 1] = parsed.corrupt();
          out[width + 2] = file;
          out[width + 3] = in.get(FILE_NAME);
          out[width + 4] = in.get(FILE_SIZE);
          out[width + 5] = in.get(FILE_MTIME);
          return RowFactory.create(out);
        }
        return null;
      }

      @Override
      public boolean hasNext() {
        return next != null;
      }

      @Override
      public Row next() {
        if (next == null) {
          throw new NoSuchElementException();
        }
        Row current = next;
        next = advance();
        return current;
      }
    };
  }
}
