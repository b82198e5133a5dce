package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.SchemaEvolutionMode;
import java.math.BigDecimal;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** One file schema's plan, on rows as Spark's readers give them (no Spark session needed). */
class FileRowMappingTest {
  static final String PATH = "file:/landing/a.parquet";

  static FileRowMapping mapping(String file, String declared) {
    return new FileRowMapping(
        StructType.fromDDL(file), StructType.fromDDL(declared), SchemaEvolutionMode.RESCUE, "UTC");
  }

  static UTF8String s(String text) {
    return UTF8String.fromString(text);
  }

  @Test
  void copiesWidensRescuesAndLeavesAbsentColumnsNull() {
    FileRowMapping mapping =
        mapping(
            "id INT, name STRING, extra DOUBLE, tags ARRAY<STRING>",
            "id BIGINT, name STRING, tags ARRAY<INT>, missing STRING");
    FileRowMapping.Buffer buffer = new FileRowMapping.Buffer();

    InternalRow first =
        mapping.map(
            new GenericInternalRow(
                new Object[] {5, s("a"), 2.5, new GenericArrayData(new Object[] {s("1"), s("x")})}),
            PATH,
            buffer);
    InternalRow second =
        mapping.map(
            new GenericInternalRow(
                new Object[] {7, null, null, new GenericArrayData(new Object[] {})}),
            PATH,
            buffer);

    assertThat(first.numFields()).isEqualTo(5);
    assertThat(first.get(0, null)).isEqualTo(5L);
    assertThat(first.getUTF8String(1).toString()).isEqualTo("a");
    assertThat(first.isNullAt(2)).isTrue();
    assertThat(first.isNullAt(3)).isTrue();
    assertThat(first.getUTF8String(4).toString())
        .isEqualTo("{\"extra\":2.5,\"tags\":[\"1\",\"x\"],\"_file_path\":\"" + PATH + "\"}");
    assertThat(second.get(0, null)).isEqualTo(7L);
    assertThat(second.isNullAt(1)).isTrue();
    assertThat(((ArrayData) second.get(2, null)).numElements())
        .as("an empty ARRAY<STRING> fits ARRAY<INT>; \"3\" would not: strings are not numbers")
        .isZero();
    assertThat(second.isNullAt(3)).isTrue();
    assertThat(second.isNullAt(4)).as("a null undeclared column rescues nothing").isTrue();
  }

  @Test
  void aRowWithNothingToRescueIsCopiedByOneProjectionWithItsWideningsSet() {
    FileRowMapping mapping =
        mapping(
            "id INT, n SMALLINT, name STRING, tags ARRAY<STRING>, extra STRING",
            "id BIGINT, n INT, name STRING, tags ARRAY<STRING>, missing STRING");
    FileRowMapping.Buffer buffer = new FileRowMapping.Buffer();

    InternalRow row =
        mapping.map(
            new GenericInternalRow(
                new Object[] {5, null, s("a"), new GenericArrayData(new Object[] {s("x")}), null}),
            PATH,
            buffer);

    assertThat(row).isInstanceOf(org.apache.spark.sql.catalyst.expressions.UnsafeRow.class);
    assertThat(row.getLong(0)).isEqualTo(5L);
    assertThat(row.isNullAt(1)).isTrue();
    assertThat(row.getUTF8String(2).toString()).isEqualTo("a");
    assertThat(row.getArray(3).getUTF8String(0).toString()).isEqualTo("x");
    assertThat(row.isNullAt(4)).isTrue();
    assertThat(row.isNullAt(5)).isTrue();

    InternalRow next =
        mapping.map(
            new GenericInternalRow(new Object[] {-2, (short) 3, null, null, null}), PATH, buffer);
    assertThat(next.getLong(0)).isEqualTo(-2L);
    assertThat(next.getInt(1)).isEqualTo(3);
    assertThat(next.isNullAt(2)).isTrue();
  }

  /**
   * A row that needs no conversion (every row of a file that follows the schema) is read through to
   * the file's row, not copied: Spark copies it anyway. Against the oracle, the copy the mapping
   * makes otherwise: Spark's own unsafe projection of either gives the same bytes, for columns in
   * another order, one the file lacks, an undeclared one holding null, and nested, decimal and
   * array values.
   */
  @Test
  void aRowThatNeedsNoConversionIsReadThroughAsTheCopyWouldRead() {
    String declared =
        "id BIGINT, name STRING, tags ARRAY<STRING>, missing STRING, amount DECIMAL(10,2),"
            + " nested STRUCT<a: INT, b: STRING>";
    FileRowMapping mapping =
        mapping(
            "nested STRUCT<a: INT, b: STRING>, name STRING, extra STRING, id BIGINT,"
                + " tags ARRAY<STRING>, amount DECIMAL(10,2)",
            declared);
    FileRowMapping.Buffer buffer = new FileRowMapping.Buffer();
    var unsafe =
        org.apache.spark.sql.catalyst.expressions.UnsafeProjection$.MODULE$.create(
            StructType.fromDDL(declared).add("_rescued_data", "string"));
    Object[][] rows = {
      {
        new GenericInternalRow(new Object[] {3, s("x")}),
        s("a"),
        null,
        5L,
        new GenericArrayData(new Object[] {s("t"), null}),
        Decimal.apply(new BigDecimal("12.34"), 10, 2)
      },
      {null, null, null, -1L, null, null},
    };
    for (Object[] values : rows) {
      InternalRow file = new GenericInternalRow(values);
      InternalRow read = mapping.map(file, PATH, buffer);
      assertThat(read).isInstanceOf(DeclaredColumnsRow.class);
      assertThat(read.numFields()).isEqualTo(7);
      assertThat(read.isNullAt(3)).as("missing").isTrue();
      assertThat(read.isNullAt(6)).as("nothing rescued").isTrue();
      InternalRow copied = mapping.copied(file);
      assertThat(unsafe.apply(read).copy()).isEqualTo(unsafe.apply(copied).copy());
      assertThat(read.copy()).as("a copy stands alone").isEqualTo(copied.copy());
    }
    InternalRow first = mapping.map(new GenericInternalRow(rows[0]), PATH, buffer);
    assertThat(first.getLong(0)).isEqualTo(5L);
    assertThat(first.getUTF8String(1).toString()).isEqualTo("a");
    assertThat(first.getArray(2).numElements()).isEqualTo(2);
    assertThat(first.getDecimal(4, 10, 2).toJavaBigDecimal()).isEqualByComparingTo("12.34");
    assertThat(first.getStruct(5, 2).getUTF8String(1).toString()).isEqualTo("x");
    assertThat(first.get(3, org.apache.spark.sql.types.DataTypes.StringType)).isNull();
  }

  @Test
  void aDecimalThatFitsConvertsAndOneThatDoesNotIsRescuedWithItsDigits() {
    FileRowMapping mapping = mapping("amount DECIMAL(12,3)", "amount DECIMAL(10,2)");
    FileRowMapping.Buffer buffer = new FileRowMapping.Buffer();

    InternalRow fits =
        mapping.map(
            new GenericInternalRow(new Object[] {Decimal.apply(new BigDecimal("1.500"), 12, 3)}),
            PATH,
            buffer);
    InternalRow rounds =
        mapping.map(
            new GenericInternalRow(new Object[] {Decimal.apply(new BigDecimal("1.505"), 12, 3)}),
            PATH,
            buffer);

    assertThat(fits.get(0, null).toString()).isEqualTo("1.50");
    assertThat(fits.isNullAt(1)).isTrue();
    assertThat(rounds.isNullAt(0)).isTrue();
    assertThat(rounds.getUTF8String(1).toString())
        .isEqualTo("{\"amount\":1.505,\"_file_path\":\"" + PATH + "\"}");
  }

  @Test
  void sameTypeIgnoresNullabilityButNotNamesOrNesting() {
    assertThat(
            FileRowMapping.sameType(
                StructType.fromDDL("a STRUCT<x: INT NOT NULL>"),
                StructType.fromDDL("a STRUCT<x: INT>")))
        .isTrue();
    assertThat(
            FileRowMapping.sameType(
                StructType.fromDDL("a STRUCT<x: INT, y: INT>"),
                StructType.fromDDL("a STRUCT<x: INT>")))
        .isFalse();
    assertThat(
            FileRowMapping.sameType(
                StructType.fromDDL("a ARRAY<INT>"), StructType.fromDDL("a ARRAY<BIGINT>")))
        .isFalse();
  }
}
