package io.replaysafe.silver;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.spark.DeltaSchemaEvolution;
import io.replaysafe.common.spark.DeltaTables;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The four Delta tables silver owns: the current state, its tombstones, the quarantine and the run
 * log. Created on first use; deletion vectors keep small MERGEs into large tables small.
 */
public final class SilverTables {
  public static final StructType QUARANTINE_SCHEMA =
      new StructType()
          .add("quarantine_id", DataTypes.StringType, false)
          .add("reason", DataTypes.StringType, false)
          .add("message", DataTypes.StringType, false)
          .add("rule_version", DataTypes.StringType, false)
          .add("key", DataTypes.StringType, true)
          .add("raw_key", DataTypes.StringType, true)
          .add("sequence", DataTypes.StringType, true)
          .add("payload_hash", DataTypes.StringType, true)
          .add("raw_payload", DataTypes.StringType, true)
          .add("source_file", DataTypes.StringType, true)
          .add("bronze_version", DataTypes.LongType, true)
          .add("silver_batch_id", DataTypes.LongType, false)
          .add("run_id", DataTypes.StringType, false)
          .add("quarantined_at", DataTypes.TimestampType, false)
          .add("status", DataTypes.StringType, false)
          .add("decided_by", DataTypes.StringType, true)
          .add("decision", DataTypes.StringType, true)
          .add("decided_at", DataTypes.TimestampType, true);

  public static final StructType RUNS_SCHEMA = BatchReport.RUN_LOG_SCHEMA;

  private final SparkSession spark;
  private final SilverContract contract;

  public SilverTables(SparkSession spark, SilverContract contract) {
    this.spark = spark;
    this.contract = contract;
  }

  /** The session the tables are read and written with. */
  SparkSession spark() {
    return spark;
  }

  public void ensureExist() {
    TableShape shape = contract.shape();
    create(contract.silver().path(), contract.targetSchema(), shape.description());
    create(contract.statePath(), contract.stateSchema(), shape.stateDescription());
    create(contract.silver().quarantinePath(), QUARANTINE_SCHEMA, "quarantined rows");
    create(contract.silver().runsPath(), RUNS_SCHEMA, "silver run log");
  }

  /**
   * Creates the table, or evolves an existing one to the contract's schema (columns added, types
   * widened; {@link ContractHistory} refused every other change before).
   */
  private void create(String path, StructType schema, String what) {
    if (DeltaTables.exists(spark, path)) {
      DeltaSchemaEvolution.evolve(spark, path, schema, "silver " + what);
      return;
    }
    DeltaTable.createIfNotExists(spark)
        .location(path)
        .addColumns(schema)
        .property("delta.enableDeletionVectors", "true")
        .comment("replaysafe " + what + " of pipeline " + contract.pipeline().name())
        .execute();
  }

  /** Silver's latest version, read from its log without a search for its root (see read). */
  public Dataset<Row> silver() {
    return DeltaTables.read(spark, contract.silver().path());
  }

  /** Silver's rows within {@code bounds} (null: all); see {@link #within}. */
  Dataset<Row> silverWithin(StoredState.KeyBounds bounds) {
    return within(contract.silver().path(), bounds);
  }

  /** The tombstones within {@code bounds} (null: all); see {@link #within}. */
  Dataset<Row> tombstonesWithin(StoredState.KeyBounds bounds) {
    return within(contract.tombstonePath(), bounds);
  }

  /**
   * The latest rows of the table at {@code path} within {@code bounds}. For a table whose checksum
   * lists its files, Delta reads the files whose statistics allow one of the batch's keys (listed
   * ones, or else within the bounds' range), chosen here from that list: Delta's own skipping would
   * first rebuild the table's whole state from its log and compute its size, five Spark jobs per
   * table in a scheduled run's fresh JVM, for a table of a few files. Otherwise Delta's read with
   * the bounds as its filter.
   */
  private Dataset<Row> within(String path, StoredState.KeyBounds bounds) {
    if (bounds != null) {
      Optional<Snapshot> snapshot = DeltaTables.snapshot(spark, path);
      Optional<List<AddFile>> holding =
          snapshot
              .flatMap(DeltaTables::filesListedInChecksum)
              .flatMap(f -> SmallMerge.holdingKeys(f, bounds, snapshot.get().metadata().schema()));
      if (holding.isPresent()) {
        return DeltaTables.readFiles(snapshot.get(), holding.get()).where(bounds.on(null));
      }
    }
    Dataset<Row> table = DeltaTables.read(spark, path);
    return bounds == null ? table : table.where(bounds.on(null));
  }

  /** The tombstones' latest version, as {@link #silver}. */
  public Dataset<Row> tombstones() {
    return DeltaTables.read(spark, contract.tombstonePath());
  }

  /**
   * False when the tombstone table is known to be empty (its latest checksum says it holds no
   * file), as it is for a pipeline that has never deleted a key: reading it for a batch's stored
   * state, and purging it, would then cost Delta a reconstruction of its state and a scan for
   * nothing.
   */
  public boolean mayHoldTombstones() {
    return !DeltaTables.knownEmpty(spark, contract.tombstonePath());
  }

  /**
   * False when the tombstone table's latest checksum shows no tombstone deleted before {@code
   * cutoff} (its files' statistics of {@code deleted_at}), or no file at all: purging it then
   * removes nothing.
   */
  public boolean mayHoldTombstonesBefore(java.time.Instant cutoff) {
    return !DeltaTables.knownNoneBefore(
        spark, contract.tombstonePath(), ReservedNames.DELETED_AT, cutoff);
  }

  public Dataset<Row> events() {
    return spark.read().format("delta").load(contract.eventsPath());
  }

  public DeltaTable eventsTable() {
    return DeltaTables.table(spark, contract.eventsPath());
  }

  public DeltaTable silverTable() {
    return DeltaTables.table(spark, contract.silver().path());
  }

  public DeltaTable tombstoneTable() {
    return DeltaTables.table(spark, contract.tombstonePath());
  }

  public DeltaTable quarantineTable() {
    return DeltaTables.table(spark, contract.silver().quarantinePath());
  }

  public String runsPath() {
    return contract.silver().runsPath();
  }
}
