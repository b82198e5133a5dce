package io.replaysafe.silver.ops;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.max;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.Columns;
import io.replaysafe.common.CommitTags;
import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.silver.BatchCommits;
import io.replaysafe.silver.BatchPreparation;
import io.replaysafe.silver.Erasures;
import io.replaysafe.silver.SilverContract;
import io.replaysafe.silver.SilverErrors;
import io.replaysafe.silver.SilverTables;
import io.replaysafe.silver.TableShape;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A person's request to be forgotten: the keys' rows are removed from every layer (bronze, silver
 * or the history and its events, the tombstones, the quarantine), and the files that held them are
 * rewritten, so a VACUUM past the retention removes the data physically.
 *
 * <p>What stays is what keeps the key erased: its key and the highest sequence any layer held for
 * it ({@link Erasures}), beside bronze. Silver ignores a later-arriving event of the key at or
 * before that sequence (a replay, a late delivery, a rebuild reading bronze's old versions), and
 * applies a newer one, which is new data. The request itself (who, why, when, rows per table, no
 * key and no payload) is appended to the erase log.
 *
 * <p>Every step is idempotent and the erasure is recorded first: an erase that died part-way is
 * completed by running it again with the same keys; until then silver already ignores the keys.
 */
public final class Erase {
  /** Labels of the tables in {@link Outcome#removed}, in the order they are erased. */
  public static final String SILVER = TableShape.CURRENT_STATE.tableName();

  public static final String HISTORY = TableShape.HISTORY.tableName();
  public static final String EVENTS = TableShape.HISTORY.stateTableName();
  public static final String TOMBSTONES = TableShape.CURRENT_STATE.stateTableName();
  public static final String QUARANTINE = "quarantine";
  public static final String BRONZE = "bronze";

  static final int SAMPLE = 20;

  public static final StructType LOG_SCHEMA =
      new StructType()
          .add("request_id", DataTypes.StringType, false)
          .add("requested_by", DataTypes.StringType, true)
          .add("reason", DataTypes.StringType, true)
          .add("started_at", DataTypes.TimestampType, false)
          .add("finished_at", DataTypes.TimestampType, false)
          .add("keys_requested", DataTypes.LongType, false)
          .add("keys_erased", DataTypes.LongType, false)
          .add(
              "rows_removed",
              DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType),
              false)
          .add("rule_version", DataTypes.StringType, false);

  private final PipelineConfig config;
  private final SparkSession spark;

  public Erase(PipelineConfig config, SparkSession spark) {
    this.config = config;
    this.spark = spark;
  }

  /**
   * What an erase did.
   *
   * @param keysErased keys some layer held, now recorded as erased
   * @param notFound keys no layer held (nothing recorded for them), the first {@value #SAMPLE}
   * @param removed rows removed per table ({@link #SILVER}, {@link #BRONZE}, ...)
   * @param sourceFiles landing files that held erased bronze rows, the first {@value #SAMPLE}: the
   *     producer's copies, which replaysafe does not delete
   * @param rewritten tables whose files were rewritten: a VACUUM of each removes the old files
   */
  public record Outcome(
      String requestId,
      long keysRequested,
      long keysErased,
      List<String> notFound,
      Map<String, Long> removed,
      List<String> sourceFiles,
      List<String> rewritten) {
    public Outcome {
      notFound = List.copyOf(notFound);
      removed = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(removed));
      sourceFiles = List.copyOf(sourceFiles);
      rewritten = List.copyOf(rewritten);
    }

    public long rowsRemoved() {
      return removed.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  public Outcome execute(KeySelection keys, String reason, String by) {
    OpsContext context = OpsContext.open(config, spark).recoverInFlight();
    SilverContract contract = context.contract();
    SilverTables tables = context.tables();
    if (!DeltaTables.exists(spark, config.bronze().path())) {
      throw SilverErrors.noTableYet(
          "bronze of pipeline '" + config.name() + "'",
          config.bronze().path(),
          "Nothing to erase before the first bronze run");
    }
    tables.ensureExist();
    Instant started = Instant.now();
    String requestId =
        "erase-" + BatchCommits.fingerprint(keys.keys()) + "-" + started.toEpochMilli();
    Object[] wanted = keys.keys().toArray();

    // 1. The erasure first: from here on silver ignores the keys, whatever step a crash stops at.
    Map<String, Row> highest = highestSequences(contract, wanted);
    recordErasures(contract, highest, requestId, started);
    CrashPoints.maybeCrash(CrashPoints.ERASE_AFTER_ERASURES);

    // 2. Every layer's rows of the keys, each delete a commit tagged as the erase's.
    Map<String, Long> removed = new LinkedHashMap<>();
    List<String> rewritten = new ArrayList<>();
    Column stored = KeySelection.displayOfStored(contract).isin(wanted);
    TableShape shape = contract.shape();
    erase(shape.tableName(), contract.silver().path(), stored, requestId, removed, rewritten);
    erase(shape.stateTableName(), contract.statePath(), stored, requestId, removed, rewritten);
    erase(
        QUARANTINE,
        contract.silver().quarantinePath(),
        quarantinedKeyDisplay(contract).isin(wanted),
        requestId,
        removed,
        rewritten);
    CrashPoints.maybeCrash(CrashPoints.ERASE_AFTER_SILVER);
    Column inBronze = contract.bronzeKeyDisplay().isin(wanted);
    List<String> sourceFiles =
        spark
            .read()
            .format("delta")
            .load(config.bronze().path())
            .where(inBronze)
            .select(Columns.SOURCE_FILE)
            .distinct()
            .orderBy(Columns.SOURCE_FILE)
            .limit(SAMPLE)
            .as(Encoders.STRING())
            .collectAsList();
    erase(BRONZE, config.bronze().path(), inBronze, requestId, removed, rewritten);
    CrashPoints.maybeCrash(CrashPoints.ERASE_AFTER_BRONZE);

    List<String> notFound =
        keys.keys().stream().filter(k -> !highest.containsKey(k)).limit(SAMPLE).toList();
    Outcome outcome =
        new Outcome(
            requestId,
            keys.keys().size(),
            highest.size(),
            notFound,
            removed,
            sourceFiles,
            rewritten);
    log(contract, outcome, reason, by, started);
    return outcome;
  }

  /**
   * The highest sequence each key has in any layer: bronze's events (those silver has not read yet
   * included), what silver stores, its tombstones, an earlier erasure of the key (so a rerun after
   * a crash, which finds the rows already gone, records the same). Keys no layer holds are absent.
   */
  private Map<String, Row> highestSequences(SilverContract contract, Object[] wanted) {
    String key = BatchPreparation.KEY_DISPLAY;
    List<Dataset<Row>> sources = new ArrayList<>();
    Dataset<Row> bronze = spark.read().format("delta").load(config.bronze().path());
    sources.add(
        BatchPreparation.identity(bronze, contract)
            .select(
                col(key),
                col(io.replaysafe.common.ReservedNames.SEQ).cast(Erasures.sequenceType(contract))));
    List<String> storedPaths = contract.sequencePaths();
    for (String path : storedPaths) {
      sources.add(
          spark
              .read()
              .format("delta")
              .load(path)
              .select(
                  KeySelection.displayOfStored(contract).as(key),
                  contract.sequence(null).cast(Erasures.sequenceType(contract))));
    }
    if (DeltaTables.exists(spark, contract.erasuresPath())) {
      sources.add(
          spark
              .read()
              .format("delta")
              .load(contract.erasuresPath())
              .select(
                  col(Erasures.KEY).as(key),
                  col(Erasures.SEQUENCE).cast(Erasures.sequenceType(contract))));
    }
    Dataset<Row> all = sources.get(0).toDF(key, Erasures.SEQUENCE);
    for (Dataset<Row> more : sources.subList(1, sources.size())) {
      all = all.unionAll(more.toDF(key, Erasures.SEQUENCE));
    }
    Map<String, Row> highest = new LinkedHashMap<>();
    for (Row r :
        all.where(col(key).isin(wanted))
            .groupBy(key)
            .agg(max(Erasures.SEQUENCE).as(Erasures.SEQUENCE))
            .where(col(Erasures.SEQUENCE).isNotNull())
            .orderBy(key)
            .collectAsList()) {
      highest.put(r.getString(0), r);
    }
    return highest;
  }

  private void recordErasures(
      SilverContract contract, Map<String, Row> highest, String requestId, Instant at) {
    String path = contract.erasuresPath();
    StructType schema = Erasures.schema(contract);
    DeltaTable.createIfNotExists(spark)
        .location(path)
        .addColumns(schema)
        .comment("replaysafe erased keys of pipeline " + config.name() + ": key and sequence only")
        .execute();
    if (highest.isEmpty()) {
      return;
    }
    List<Row> rows = new ArrayList<>();
    for (Row r : highest.values()) {
      rows.add(RowFactory.create(r.getString(0), r.get(1), requestId, Timestamp.from(at)));
    }
    tagged(
        requestId,
        () -> {
          spark.createDataFrame(rows, schema).write().format("delta").mode("append").save(path);
          return null;
        });
  }

  /**
   * Deletes {@code rows} from the table at {@code path} and rewrites the files whose deletion
   * vectors still hold them (REORG ... APPLY (PURGE)), both commits tagged as the erase's.
   */
  private void erase(
      String label,
      String path,
      Column rows,
      String requestId,
      Map<String, Long> removed,
      List<String> rewritten) {
    DeltaTable table = DeltaTable.forPath(spark, path);
    long count = table.toDF().where(rows).count();
    removed.put(label, count);
    if (count == 0) {
      return;
    }
    tagged(
        requestId,
        () -> {
          table.delete(rows);
          // A delete under deletion vectors only marks the rows: the purge rewrites their files,
          // so that the data itself is in no file of the current version.
          if ("true".equals(DeltaTables.property(spark, path, "delta.enableDeletionVectors"))) {
            spark.sql("REORG TABLE " + DeltaTables.tableName(path) + " APPLY (PURGE)");
          }
          return null;
        });
    rewritten.add(path);
  }

  /** A quarantined row's key as reports print it, from the normalised key JSON it holds. */
  private static Column quarantinedKeyDisplay(SilverContract contract) {
    StructType keyType = new StructType();
    for (StructField f : contract.tombstoneSchema().fields()) {
      if (contract.keys().contains(f.name())) {
        keyType = keyType.add(f);
      }
    }
    Column parsed = from_json(col("key"), keyType);
    List<Column> values = new ArrayList<>();
    for (String k : contract.keys()) {
      values.add(parsed.getField(k));
    }
    return SilverContract.display(values);
  }

  private void log(
      SilverContract contract, Outcome outcome, String reason, String by, Instant started) {
    String path = contract.eraseLogPath();
    DeltaTable.createIfNotExists(spark)
        .location(path)
        .addColumns(LOG_SCHEMA)
        .comment("replaysafe erase requests of pipeline " + config.name() + ": no key, no payload")
        .execute();
    Row row =
        RowFactory.create(
            outcome.requestId(),
            by,
            reason,
            Timestamp.from(started),
            new Timestamp(System.currentTimeMillis()),
            outcome.keysRequested(),
            outcome.keysErased(),
            outcome.removed(),
            contract.ruleVersion());
    spark
        .createDataFrame(List.of(row), LOG_SCHEMA)
        .write()
        .format("delta")
        .mode("append")
        .save(path);
  }

  private <T> T tagged(String requestId, Supplier<T> writes) {
    return CommitTags.withUserMetadata(
        spark, CommitTags.of(CommitTags.ERASE, Map.of("request", requestId)), writes);
  }
}
