package io.replaysafe.bronze;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.Columns;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.spark.DeltaSchemaEvolution;
import io.replaysafe.common.spark.DeltaTables;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * The bronze Delta table: its columns (the source's schema, the rescued column, {@code
 * _corrupt_record}, provenance, {@code ingested_at}, every one nullable) and how it is created and
 * evolved. Apart from the run so that the table's shape is decided in one place.
 */
public final class BronzeTable {
  /** The Delta table property naming the columns Delta collects file statistics on. */
  public static final String STATS_COLUMNS_PROPERTY = "delta.dataSkippingStatsColumns";

  private BronzeTable() {}

  /**
   * Creates the bronze table on first use with the change data feed on: silver reads it as a stream
   * of inserts that carry their bronze commit version, for provenance in quarantine. An existing
   * table is evolved to the source's schema (columns added, types widened); the binding check
   * refused every other change before. Delta keeps file statistics only for the schema's own
   * columns ({@link #STATS_COLUMNS_PROPERTY}): nobody skips files on provenance, rescued or corrupt
   * text, and their statistics cost about a quarter of bronze's CPU. The property is the user's to
   * change afterwards ({@code ALTER TABLE ... SET TBLPROPERTIES}); an existing table keeps what it
   * has.
   *
   * @return the table's latest version once it is created or evolved
   */
  static long ensure(SparkSession spark, PipelineConfig config) {
    StructType nullable = schema(config.source());
    String path = config.bronze().path();
    Optional<Snapshot> snapshot = DeltaTables.snapshot(spark, path);
    if (snapshot.isPresent()) {
      // Evolved on the snapshot just read: its log is not listed again.
      return DeltaSchemaEvolution.evolve(spark, path, snapshot, nullable, "bronze table").isEmpty()
          ? snapshot.get().version()
          : DeltaTables.latestVersion(spark, path);
    }
    DeltaTable.createIfNotExists(spark)
        .location(path)
        .addColumns(nullable)
        .property("delta.enableChangeDataFeed", "true")
        .property(STATS_COLUMNS_PROPERTY, statsColumns(config.source().schema()))
        .comment("replaysafe bronze table of pipeline " + config.name())
        .execute();
    return DeltaTables.latestVersion(spark, path);
  }

  /** The bronze table's columns for this source, every one nullable. */
  static StructType schema(SourceConfig source) {
    StructType columns =
        BronzeRowMapper.outputSchema(source.schema(), source.rescuedDataColumn())
            .add(Columns.INGESTED_AT, DataTypes.TimestampType, true);
    StructType nullable = new StructType();
    for (var field : columns.fields()) {
      nullable = nullable.add(field.name(), field.dataType(), true);
    }
    return nullable;
  }

  /** The table's latest version, or null before it exists. */
  static Long version(SparkSession spark, String path) {
    // One look at the log answers both whether the table exists and its version.
    return DeltaTables.snapshot(spark, path).map(Snapshot::version).orElse(null);
  }

  /**
   * The schema's top-level columns Delta can collect statistics on, quoted for Delta's column-list
   * syntax. Delta refuses the property (and so the table) when it names a BOOLEAN, BINARY, VARIANT,
   * ARRAY or MAP column, or a struct holding one; with none left, {@code ingested_at}.
   */
  static String statsColumns(StructType schema) {
    String columns =
        Arrays.stream(schema.fields())
            .filter(f -> skippingEligible(f.dataType()))
            .map(f -> "`" + f.name().replace("`", "``") + "`")
            .collect(Collectors.joining(","));
    return columns.isEmpty() ? Columns.INGESTED_AT : columns;
  }

  private static boolean skippingEligible(DataType type) {
    if (type instanceof StructType struct) {
      return Arrays.stream(struct.fields()).allMatch(f -> skippingEligible(f.dataType()));
    }
    return type instanceof NumericType
        || type instanceof StringType
        || type instanceof DateType
        || type instanceof TimestampType
        || type instanceof TimestampNTZType;
  }
}
