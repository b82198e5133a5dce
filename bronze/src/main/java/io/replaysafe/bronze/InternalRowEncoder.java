package io.replaysafe.bronze;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.GetColumnByOrdinal;
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder;
import org.apache.spark.sql.catalyst.encoders.RowEncoder;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.CreateNamedStruct;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.expressions.KnownNullable;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.objects.Invoke;
import org.apache.spark.sql.types.AbstractDataType;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ObjectType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * An encoder whose objects are Spark's own {@link InternalRow}s: serializing is taking each field
 * as it is, so a {@code mapPartitions} over it converts nothing in or out. The row encoder would
 * turn every value into a Java object and back (measured as about 30% of bronze's CPU), and it
 * rejects Java collections for ARRAY and MAP columns.
 *
 * <p>The object is typed {@link ObjectType} ({@code InternalRow}), so Spark passes the row between
 * the operators by reference. Typed as a struct, Spark would copy each input row into a nested
 * struct of an {@code UnsafeRow} and read it back (looking the reader up by data type, which builds
 * a read-only SQL configuration per row), and copy each output row once more before the
 * serializer's own copy; that was about a tenth of bronze's CPU. {@link #IDENTITY} turns the struct
 * into the object and back: a function that returns its argument, called by Catalyst's {@link
 * Invoke}.
 *
 * <p>The expressions are Catalyst's own ({@link GetStructField} on a bound struct, {@link
 * GetColumnByOrdinal} resolved by the analyzer, {@link Invoke}), the same building blocks Spark's
 * encoders use.
 */
final class InternalRowEncoder {
  private InternalRowEncoder() {}

  /** The row as an object (the type Spark passes between operators by reference). */
  private static final ObjectType ROW_OBJECT = new ObjectType(InternalRow.class);

  /** Returns its argument: what {@link #IDENTITY} calls. */
  private static final class Identity extends AbstractFunction1<Object, Object>
      implements Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public Object apply(Object value) {
      return value;
    }

    @Override
    public String toString() {
      return "identity";
    }
  }

  /**
   * The identity function as a literal (typed by its public interface, which generated code can
   * name).
   */
  private static final Literal IDENTITY =
      new Literal(new Identity(), new ObjectType(scala.Function1.class));

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Encoder<InternalRow> of(StructType schema) {
    StructType nullable = nullable(schema);
    // The row object, seen as the struct it is.
    Expression input = identity(new BoundReference(0, ROW_OBJECT, false), nullable);
    List<Expression> serializer = new ArrayList<>();
    List<Expression> deserializer = new ArrayList<>();
    StructField[] fields = nullable.fields();
    for (int i = 0; i < fields.length; i++) {
      Literal name = Literal.create(fields[i].name(), DataTypes.StringType);
      serializer.add(name);
      serializer.add(new GetStructField(input, i, Option.apply(fields[i].name())));
      deserializer.add(name);
      // KnownNullable: the struct's type is asked for before the analyzer resolves the ordinal.
      deserializer.add(new KnownNullable(new GetColumnByOrdinal(i, fields[i].dataType())));
    }
    // The agnostic encoder only supplies the class tag (Row); every conversion is given here.
    return (Encoder<InternalRow>)
        (Encoder)
            new ExpressionEncoder(
                RowEncoder.encoderFor(nullable),
                new CreateNamedStruct(CollectionConverters.asScala(serializer).toList()),
                identity(
                    new CreateNamedStruct(CollectionConverters.asScala(deserializer).toList()),
                    ROW_OBJECT));
  }

  /** The value as it is, typed {@code type}: a row object as a struct, or a struct as an object. */
  private static Expression identity(Expression value, DataType type) {
    return new Invoke(
        IDENTITY,
        "apply",
        type,
        CollectionConverters.asScala(List.of(value)).toList(),
        CollectionConverters.asScala(List.<AbstractDataType>of()).toList(),
        true,
        false,
        true);
  }

  /**
   * The schema with every field, element and map value nullable: bronze never enforces NOT NULL.
   */
  static StructType nullable(StructType schema) {
    List<StructField> fields = new ArrayList<>();
    for (StructField f : schema.fields()) {
      fields.add(new StructField(f.name(), nullable(f.dataType()), true, f.metadata()));
    }
    return DataTypes.createStructType(fields);
  }

  private static DataType nullable(DataType type) {
    if (type instanceof StructType struct) {
      return nullable(struct);
    }
    if (type instanceof ArrayType array) {
      return DataTypes.createArrayType(nullable(array.elementType()), true);
    }
    if (type instanceof MapType map) {
      return DataTypes.createMapType(map.keyType(), nullable(map.valueType()), true);
    }
    return type;
  }
}
