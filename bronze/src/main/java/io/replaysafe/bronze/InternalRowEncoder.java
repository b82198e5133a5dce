package io.replaysafe.bronze;

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
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * An encoder whose objects are Spark's own {@link InternalRow}s: serializing is taking each field
 * as it is, so a {@code mapPartitions} over it converts nothing in or out. The row encoder would
 * turn every value into a Java object and back (measured as about 30% of bronze's CPU), and it
 * rejects Java collections for ARRAY and MAP columns.
 *
 * <p>The expressions are Catalyst's own ({@link GetStructField} on a bound struct, {@link
 * GetColumnByOrdinal} resolved by the analyzer), the same building blocks Spark's encoders use.
 */
final class InternalRowEncoder {
  private InternalRowEncoder() {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Encoder<InternalRow> of(StructType schema) {
    StructType nullable = nullable(schema);
    BoundReference input = new BoundReference(0, nullable, false);
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
                new CreateNamedStruct(CollectionConverters.asScala(deserializer).toList()));
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
