package io.replaysafe.silver;

import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.tables.DeltaTable;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SchemaChange;
import io.replaysafe.common.config.SilverConfig;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.spark.DeltaTables;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The silver contract's versions, kept next to the silver table ({@code <path>_contract}, one row
 * per version with the time it was first used), so that a contract can change in place.
 *
 * <p>What may change in place: columns added to the source schema, to {@code payloadColumns} and to
 * the silver columns ({@code columnList}); types widened; policies and other options. What may not,
 * with the reason: {@code keys}, {@code keyNormalization} and {@code sequenceBy} (they are silver's
 * identity and precedence: every stored row, tombstone and guard depends on them), {@code
 * storedAsScdType} (the table's shape), removing a payload or silver column (stored hashes and rows
 * were made with it). The payload hash carries across versions by {@link HashRule}.
 */
public final class ContractHistory {
  private static final ObjectMapper JSON = Json.mapper();

  public static final StructType SCHEMA =
      new StructType()
          .add("version", DataTypes.IntegerType, false)
          .add("rule_version", DataTypes.StringType, false)
          .add("first_used_at", DataTypes.TimestampType, false)
          .add("source_schema", DataTypes.StringType, false)
          .add("keys", DataTypes.StringType, false)
          .add("key_normalization", DataTypes.StringType, false)
          .add("sequence_by", DataTypes.StringType, false)
          .add("stored_as_scd_type", DataTypes.IntegerType, false)
          .add("payload_columns", DataTypes.StringType, false)
          .add("silver_columns", DataTypes.StringType, false)
          .add("hash_rule", DataTypes.StringType, false)
          .add("changes", DataTypes.StringType, true);

  /** One recorded version of the contract. */
  public record Version(
      int version,
      String ruleVersion,
      Timestamp firstUsedAt,
      String sourceSchema,
      List<String> keys,
      Map<String, String> keyNormalization,
      List<String> sequenceBy,
      int storedAsScdType,
      List<String> payloadColumns,
      List<String> silverColumns,
      HashRule hashRule,
      String changes) {

    Row toRow() {
      return RowFactory.create(
          version,
          ruleVersion,
          firstUsedAt,
          sourceSchema,
          json(keys),
          json(keyNormalization),
          json(sequenceBy),
          storedAsScdType,
          json(payloadColumns),
          json(silverColumns),
          hashRule.toJson(),
          changes);
    }

    static Version of(Row r) {
      return new Version(
          r.getInt(0),
          r.getString(1),
          r.getTimestamp(2),
          r.getString(3),
          list(r.getString(4)),
          map(r.getString(5)),
          list(r.getString(6)),
          r.getInt(7),
          list(r.getString(8)),
          list(r.getString(9)),
          HashRule.fromJson(r.getString(10)),
          r.isNullAt(11) ? null : r.getString(11));
    }
  }

  /**
   * The contract to run with and, when it differs from the last recorded version, the version to
   * record once silver's tables are evolved.
   */
  public record Resolved(
      SilverContract contract, List<Version> history, Optional<Version> toRecord) {}

  private ContractHistory() {}

  public static String path(SilverConfig silver) {
    return silver.path() + "_contract";
  }

  /** The recorded versions, oldest first; empty before the first silver run. */
  public static List<Version> read(SparkSession spark, PipelineConfig pipeline) {
    String path = path(pipeline.requireSilver());
    // One look at the log answers both whether the table exists and which files to read.
    var table = DeltaTables.readSmallIfExists(spark, path);
    if (table.isEmpty()) {
      return List.of();
    }
    // The history holds a handful of rows: sorting them here rather than with orderBy spares a
    // fresh run's silver a Spark job (a sort stage and its generated code) before its first batch.
    return table.get().select(columns()).collectAsList().stream()
        .map(Version::of)
        .sorted(Comparator.comparingInt(Version::version))
        .toList();
  }

  /**
   * Checks the pipeline's contract against the last recorded version and derives its hash rule.
   * Refuses a change that cannot be made in place, naming it, the reason and the migration.
   */
  public static Resolved resolve(SparkSession spark, PipelineConfig pipeline) {
    List<Version> history = read(spark, pipeline);
    SilverConfig s = pipeline.requireSilver();
    StructType schema = recordedSchema(pipeline);
    if (history.isEmpty()) {
      SilverContract contract = new SilverContract(pipeline);
      return new Resolved(
          contract, history, Optional.of(versionOf(1, contract, "first version", schema)));
    }
    Version last = history.get(history.size() - 1);
    SilverContract probe = new SilverContract(pipeline, last.hashRule());
    if (probe.ruleVersion().equals(last.ruleVersion())) {
      return new Resolved(
          new SilverContract(
              pipeline, last.hashRule(), last.version(), earlierRules(history, last.hashRule())),
          history,
          Optional.empty());
    }
    String where = "silver " + s.path();
    refuseIdentityChange(where, "silver.keys", last.keys(), s.keys());
    Map<String, String> normalization = normalization(s);
    refuseIdentityChange(where, "silver.keyNormalization", last.keyNormalization(), normalization);
    refuseIdentityChange(where, "silver.sequenceBy", last.sequenceBy(), s.sequenceBy());
    StructType before = StructType.fromDDL(last.sourceSchema());
    Map<String, String> expressionChanges = new LinkedHashMap<>();
    for (String c : pipeline.businessColumns()) {
      String was = expression(before, c);
      String now = expression(schema, c);
      if (was != null && !was.equals(now)) {
        if (s.identityColumns().contains(c)) {
          refuseIdentityChange(where, "silver.columns." + c, was, now);
        }
        expressionChanges.put(
            c, "derived column '" + c + "' changed from \"" + was + "\" to \"" + now + "\"");
      }
    }
    if (last.storedAsScdType() != s.storedAsScdType()) {
      throw SilverErrors.contractChange(
          "change silver.storedAsScdType of "
              + where
              + " from "
              + last.storedAsScdType()
              + " to "
              + s.storedAsScdType()
              + " in place",
          "the table's shape (current state or history) is fixed when it is created",
          "Write the new table elsewhere (new silver.path and silver.checkpoint); it is built"
              + " from all of bronze");
    }
    List<String> droppedColumns =
        last.silverColumns().stream().filter(c -> !probe.silverColumns().contains(c)).toList();
    if (!droppedColumns.isEmpty()) {
      throw SilverErrors.contractChange(
          "remove "
              + droppedColumns
              + " from the columns of "
              + where
              + " in place (columnList / exceptColumnList)",
          "the column would stay in the table with values nobody maintains",
          "Keep it, or write silver anew (new silver.path and silver.checkpoint)");
    }
    List<SchemaChange> schemaChanges = SchemaChange.between(before, schema);
    List<SchemaChange> refused = SchemaChange.incompatible(schemaChanges);
    if (!refused.isEmpty()) {
      throw SilverErrors.incompatibleSchema(
          where, refused.stream().map(SchemaChange::describe).collect(Collectors.joining("; ")));
    }
    HashRule rule = last.hashRule().next(probe.payloadColumns(), schema, s.floatScale());
    SilverContract contract =
        new SilverContract(pipeline, rule, last.version() + 1, earlierRules(history, rule));
    List<String> changes = new ArrayList<>();
    schemaChanges.forEach(c -> changes.add("source " + c.describe()));
    changes.addAll(expressionChanges.values());
    contract.payloadColumns().stream()
        .filter(c -> !last.payloadColumns().contains(c))
        .forEach(c -> changes.add("payload column '" + c + "' added"));
    contract.silverColumns().stream()
        .filter(c -> !last.silverColumns().contains(c))
        .forEach(c -> changes.add("silver column '" + c + "' added"));
    if (changes.isEmpty()) {
      changes.add("options changed (policies, deletes, history columns or null handling)");
    }
    return new Resolved(
        contract,
        history,
        Optional.of(versionOf(last.version() + 1, contract, String.join("; ", changes), schema)));
  }

  /**
   * Records the resolved version, if new. Idempotent (Delta's txnAppId/txnVersion): a run that
   * crashed after recording records nothing the second time.
   */
  public static void record(SparkSession spark, Resolved resolved) {
    if (resolved.toRecord().isEmpty()) {
      return;
    }
    Version v = resolved.toRecord().get();
    SilverConfig s = resolved.contract().silver();
    String path = path(s);
    DeltaTable.createIfNotExists(spark)
        .location(path)
        .addColumns(SCHEMA)
        .comment("replaysafe contract history of pipeline " + resolved.contract().pipeline().name())
        .execute();
    spark
        .createDataFrame(List.of(v.toRow()), SCHEMA)
        .write()
        .format("delta")
        .mode("append")
        .option("txnAppId", "replaysafe-contract-" + s.path())
        .option("txnVersion", v.version())
        .save(path);
  }

  private static Version versionOf(
      int version, SilverContract contract, String changes, StructType schema) {
    return new Version(
        version,
        contract.ruleVersion(),
        new Timestamp(System.currentTimeMillis()),
        schema.toDDL(),
        contract.keys(),
        normalization(contract.silver()),
        contract.sequenceBy(),
        contract.silver().storedAsScdType(),
        contract.payloadColumns(),
        contract.silverColumns(),
        contract.hashRule(),
        changes);
  }

  /**
   * The schema a version records: the contract's business columns, each derived one with its
   * expression as the column's comment, so that the history says what every version derived and an
   * expression's change is found without a column more in the history table.
   */
  static StructType recordedSchema(PipelineConfig pipeline) {
    Map<String, String> derived = pipeline.requireSilver().columns();
    StructType result = new StructType();
    for (org.apache.spark.sql.types.StructField f : pipeline.businessSchema().fields()) {
      result = result.add(derived.containsKey(f.name()) ? f.withComment(derived.get(f.name())) : f);
    }
    return result;
  }

  /**
   * What {@code column} of a recorded schema was derived as: its expression, or, for a column taken
   * from bronze as it is, its own name; null when the schema has no such column.
   */
  private static String expression(StructType recorded, String column) {
    if (!java.util.Arrays.asList(recorded.fieldNames()).contains(column)) {
      return null;
    }
    scala.Option<String> comment = recorded.apply(column).getComment();
    return comment.isDefined() ? comment.get() : column;
  }

  /** The hash rules of recorded versions that differ from {@code current}, by version. */
  private static Map<Integer, HashRule> earlierRules(List<Version> history, HashRule current) {
    Map<Integer, HashRule> rules = new LinkedHashMap<>();
    for (Version v : history) {
      if (!v.hashRule().equals(current)) {
        rules.put(v.version(), v.hashRule());
      }
    }
    return rules;
  }

  private static void refuseIdentityChange(String where, String option, Object was, Object now) {
    if (!was.equals(now)) {
      throw SilverErrors.contractChange(
          "change " + option + " of " + where + " from " + was + " to " + now + " in place",
          "keys, their normalisation and sequenceBy are silver's identity and precedence; every"
              + " stored row, tombstone and sequence guard was decided with them, and a new"
              + " identity would merge or split stored keys",
          "Write silver anew under the new contract: set a new silver.path and silver.checkpoint"
              + " (it is built from all of bronze), then switch readers to it");
    }
  }

  private static Map<String, String> normalization(SilverConfig s) {
    Map<String, String> result = new LinkedHashMap<>();
    s.keyNormalization().forEach((k, v) -> result.put(k, v.yamlName()));
    return result;
  }

  private static org.apache.spark.sql.Column[] columns() {
    return java.util.Arrays.stream(SCHEMA.fieldNames())
        .map(n -> col(n))
        .toArray(org.apache.spark.sql.Column[]::new);
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> list(String json) {
    try {
      return JSON.readValue(json, new TypeReference<List<String>>() {});
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot read contract history value " + json, e);
    }
  }

  private static Map<String, String> map(String json) {
    try {
      return JSON.readValue(json, new TypeReference<LinkedHashMap<String, String>>() {});
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot read contract history value " + json, e);
    }
  }
}
