package io.replaysafe.bronze;

import java.io.IOException;
import java.io.InputStream;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.avro.SchemaConverters$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * An Avro file's own schema, as Spark's Avro reader maps it ({@code SchemaConverters}). The only
 * bronze class that names spark-avro: it is loaded by an avro source alone, so a JSON or Parquet
 * run on a Spark without spark-avro never needs it.
 */
final class AvroFileSchemas {
  private AvroFileSchemas() {}

  /** Reads the file's header (its writer schema); the data blocks are read by Spark's reader. */
  static StructType read(Configuration conf, Path path) throws IOException {
    try (InputStream in = path.getFileSystem(conf).open(path);
        DataFileStream<GenericRecord> file = new DataFileStream<>(in, new GenericDatumReader<>())) {
      Schema schema = file.getSchema();
      DataType type = SchemaConverters$.MODULE$.toSqlType(schema).dataType();
      if (!(type instanceof StructType struct)) {
        throw new IOException(
            path
                + " holds Avro values of type "
                + schema.getType()
                + ", not records: Spark's Avro"
                + " reader reads only records");
      }
      return struct;
    }
  }
}
