package io.replaysafe.bronze;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.BinaryView;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.unsafe.types.VariantVal;

/**
 * A file's row read as bronze's declared columns and the rescued-data column, without copying it:
 * each declared column is the file's column it is copied from (null where the file lacks it), and
 * the rescued column is null. For the rows that need neither a conversion nor a rescue ({@link
 * FileRowMapping#map}), nearly every row of an Avro file: Spark copies each row its reader gives
 * into an unsafe row anyway (to append the partition and metadata columns), so a copy made here
 * first was a second copy of every value (measured, 5,000,000 Avro events: about a second of CPU).
 * It is over the row Spark's reader reuses, and is itself reused: valid until the next row, as
 * Spark's own readers' rows are.
 */
final class DeclaredColumnsRow extends InternalRow {
  private static final long serialVersionUID = 1L;

  // Per declared column: the file's ordinal it is read from, or -1 where the file lacks it.
  private final int[] from;
  private final FileRowMapping mapping;
  private InternalRow in;

  DeclaredColumnsRow(int[] from, FileRowMapping mapping) {
    this.from = from;
    this.mapping = mapping;
  }

  FileRowMapping mapping() {
    return mapping;
  }

  /** This view over {@code row}, until the next call. */
  DeclaredColumnsRow over(InternalRow row) {
    this.in = row;
    return this;
  }

  @Override
  public int numFields() {
    return from.length + 1;
  }

  @Override
  public boolean isNullAt(int ordinal) {
    if (ordinal >= from.length) {
      return true;
    }
    int f = from[ordinal];
    return f < 0 || in.isNullAt(f);
  }

  @Override
  public InternalRow copy() {
    return mapping.copied(in).copy();
  }

  @Override
  public void setNullAt(int ordinal) {
    throw new UnsupportedOperationException("a file's row read as bronze's columns is read only");
  }

  @Override
  public void update(int ordinal, Object value) {
    throw new UnsupportedOperationException("a file's row read as bronze's columns is read only");
  }

  @Override
  public boolean getBoolean(int ordinal) {
    return in.getBoolean(from[ordinal]);
  }

  @Override
  public byte getByte(int ordinal) {
    return in.getByte(from[ordinal]);
  }

  @Override
  public short getShort(int ordinal) {
    return in.getShort(from[ordinal]);
  }

  @Override
  public int getInt(int ordinal) {
    return in.getInt(from[ordinal]);
  }

  @Override
  public long getLong(int ordinal) {
    return in.getLong(from[ordinal]);
  }

  @Override
  public float getFloat(int ordinal) {
    return in.getFloat(from[ordinal]);
  }

  @Override
  public double getDouble(int ordinal) {
    return in.getDouble(from[ordinal]);
  }

  @Override
  public Decimal getDecimal(int ordinal, int precision, int scale) {
    return isNullAt(ordinal) ? null : in.getDecimal(from[ordinal], precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int ordinal) {
    return isNullAt(ordinal) ? null : in.getUTF8String(from[ordinal]);
  }

  @Override
  public byte[] getBinary(int ordinal) {
    return isNullAt(ordinal) ? null : in.getBinary(from[ordinal]);
  }

  @Override
  public BinaryView getBinaryView(int ordinal) {
    return isNullAt(ordinal) ? null : in.getBinaryView(from[ordinal]);
  }

  @Override
  public CalendarInterval getInterval(int ordinal) {
    return isNullAt(ordinal) ? null : in.getInterval(from[ordinal]);
  }

  @Override
  public VariantVal getVariant(int ordinal) {
    return isNullAt(ordinal) ? null : in.getVariant(from[ordinal]);
  }

  @Override
  public InternalRow getStruct(int ordinal, int numFields) {
    return isNullAt(ordinal) ? null : in.getStruct(from[ordinal], numFields);
  }

  @Override
  public ArrayData getArray(int ordinal) {
    return isNullAt(ordinal) ? null : in.getArray(from[ordinal]);
  }

  @Override
  public MapData getMap(int ordinal) {
    return isNullAt(ordinal) ? null : in.getMap(from[ordinal]);
  }

  @Override
  public Object get(int ordinal, DataType type) {
    return isNullAt(ordinal) ? null : in.get(from[ordinal], type);
  }
}
