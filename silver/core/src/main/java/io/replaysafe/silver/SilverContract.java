package io.replaysafe.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.config.KeyNormalizer;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SilverConfig;
import io.replaysafe.common.io.Hashing;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.spark.SqlNames;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The silver contract turned into Spark expressions: the normalised key, the sequence, the payload
 * hash, the delete predicate. Every step uses these, so identity is defined in one place.
 */
public final class SilverContract {
  /** SHA-256 of the canonical payload (hex), stored in silver and tombstones. */
  public static final String PAYLOAD_HASH = ReservedNames.PAYLOAD_HASH;

  /**
   * Silver's column naming the bronze file that delivered the version stored (bronze's own column
   * is {@link io.replaysafe.common.Columns#SOURCE_FILE}).
   */
  public static final String STORED_SOURCE_FILE = ReservedNames.STORED_SOURCE_FILE;

  /** The bronze table version that delivered the version stored. */
  public static final String BRONZE_VERSION = ReservedNames.BRONZE_VERSION;

  /** When silver applied the version stored. */
  public static final String APPLIED_AT = ReservedNames.APPLIED_AT;

  /**
   * The contract version (see {@link ContractHistory}) whose hash rule made the stored hash; null
   * for rows written before versions were recorded, which are version 1's.
   */
  public static final String HASH_VERSION = ReservedNames.HASH_VERSION;

  /** History tables: the sequence at which a version starts, and ends (null: current). */
  public static final String START_AT = ReservedNames.START_AT;

  public static final String END_AT = ReservedNames.END_AT;

  /** Working columns, never written to silver. */
  static final String SEQ = ReservedNames.SEQ;

  static final String IS_DELETE = ReservedNames.IS_DELETE;
  static final String RAW_KEY = ReservedNames.RAW_KEY;

  /**
   * Working column: the JSON of the row as bronze holds it ({@link #rawPayload}). A row that has it
   * is already in the contract's shape ({@link #derive} ran, or an operation built it so).
   */
  public static final String RAW_PAYLOAD = ReservedNames.RAW_PAYLOAD;

  static final String ACTION = ReservedNames.ACTION;

  /** Bronze change-feed column with the commit version of each row. */
  static final String COMMIT_VERSION = ReservedNames.COMMIT_VERSION;

  private final PipelineConfig pipeline;
  private final SilverConfig silver;
  private final StructType schema;
  private final List<String> payloadColumns;
  private final List<String> silverColumns;
  private final String ruleVersion;
  private final HashRule hashRule;
  private final int contractVersion;
  private final Map<Integer, HashRule> earlierRules;

  /**
   * The contract as if it had never changed: the payload hash is the first version's. Jobs that
   * hash use {@link ContractHistory#resolve}, which carries the hash rule across versions.
   */
  public SilverContract(PipelineConfig pipeline) {
    this(
        pipeline,
        HashRule.initial(
            pipeline.payloadColumns(),
            pipeline.businessSchema(),
            pipeline.requireSilver().floatScale()));
  }

  /** The contract with the hash rule its history gives it, as its first version. */
  public SilverContract(PipelineConfig pipeline, HashRule hashRule) {
    this(pipeline, hashRule, 1, Map.of());
  }

  /**
   * The contract as version {@code version} of its history, with the hash rules of the earlier
   * versions whose rule differs from this one's (stored rows are compared under their own).
   */
  public SilverContract(
      PipelineConfig pipeline, HashRule hashRule, int version, Map<Integer, HashRule> earlier) {
    this.contractVersion = version;
    this.earlierRules = Map.copyOf(earlier);
    this.pipeline = pipeline;
    this.silver = pipeline.requireSilver();
    this.schema = pipeline.businessSchema();
    this.payloadColumns = pipeline.payloadColumns();
    this.silverColumns = pipeline.silverColumns();
    this.ruleVersion = computeRuleVersion();
    this.hashRule = hashRule;
  }

  /** How payload hashes are computed under this contract version (see {@link HashRule}). */
  public HashRule hashRule() {
    return hashRule;
  }

  public PipelineConfig pipeline() {
    return pipeline;
  }

  public SilverConfig silver() {
    return silver;
  }

  public List<String> keys() {
    return silver.keys();
  }

  public List<String> sequenceBy() {
    return silver.sequenceBy();
  }

  public List<String> payloadColumns() {
    return payloadColumns;
  }

  /** Business columns stored in silver, in schema order. */
  public List<String> silverColumns() {
    return silverColumns;
  }

  /** A short hash of the contract (schema and silver section): recorded with every decision. */
  public String ruleVersion() {
    return ruleVersion;
  }

  /** The key column, normalised as the contract says. */
  public Column normalizedKey(String key) {
    KeyNormalizer normalizer = silver.keyNormalization().get(key);
    if (normalizer == KeyNormalizer.NONE) {
      return col(q(key));
    }
    return normalizerUdf(normalizer).apply(col(q(key)));
  }

  private static UserDefinedFunction normalizerUdf(KeyNormalizer normalizer) {
    // One Java definition (KeyNormalizer.apply) serves the Spark expression and the docs/tests.
    return functions
        .udf((UDF1<String, String>) normalizer::apply, DataTypes.StringType)
        .withName("replaysafe_" + normalizer.yamlName());
  }

  /**
   * The display form of a bronze row's key ({@link #display}), computed from the columns bronze
   * holds: a derived key column's expression inlined, then the contract's normalisation. A
   * condition on bronze's own table ({@code replaysafe erase} deletes with it).
   */
  public Column bronzeKeyDisplay() {
    List<Column> keys = new java.util.ArrayList<>();
    for (String key : keys()) {
      String derived = silver.columns().get(key);
      Column raw = derived == null ? col(q(key)) : functions.expr(derived);
      KeyNormalizer normalizer = silver.keyNormalization().get(key);
      keys.add(normalizer == KeyNormalizer.NONE ? raw : normalizerUdf(normalizer).apply(raw));
    }
    return display(keys);
  }

  /**
   * The keys erased at a person's request ({@code replaysafe erase}), with the sequence up to which
   * their events are ignored. Beside bronze, not silver: a silver table rebuilt from the same
   * bronze honours them too.
   */
  public String erasuresPath() {
    return pipeline.bronze().path() + "_erasures";
  }

  /** The requests {@code replaysafe erase} carried out: who, why, when, rows per table. */
  public String eraseLogPath() {
    return pipeline.bronze().path() + "_erase_log";
  }

  /** The sequence as one comparable value: a struct of the sequence columns, in order. */
  public Column sequence(String alias) {
    return struct(
        sequenceBy().stream().map(c -> col(prefixed(alias, c)).as(c)).toArray(Column[]::new));
  }

  /**
   * SHA-256 over the canonical JSON of the payload columns (nulls kept, floats rounded), under the
   * hash rule of the contract's history: see {@link HashRule}.
   */
  public Column payloadHash() {
    return hashRule.expression(schema);
  }

  /** This contract's version number in its history (1 before anything was recorded). */
  public int contractVersion() {
    return contractVersion;
  }

  /**
   * The incoming row's payload hash as a stored row of contract version {@code storedVersion} (a
   * column; null means version 1) would have it: computed under that version's hash rule. An event
   * replayed after the contract changed is thereby compared with what the stored version knew: a
   * column added since does not make it a conflict, a change to a shared column does.
   */
  public Column comparableHash(String storedVersion) {
    if (earlierRules.isEmpty()) {
      return col(PAYLOAD_HASH);
    }
    Column version = functions.coalesce(col(storedVersion), lit(1));
    Column result = null;
    for (Map.Entry<Integer, HashRule> e : new java.util.TreeMap<>(earlierRules).entrySet()) {
      Column branch = e.getValue().expression(schema);
      result =
          result == null
              ? functions.when(version.equalTo(e.getKey()), branch)
              : result.when(version.equalTo(e.getKey()), branch);
    }
    return result.otherwise(col(PAYLOAD_HASH));
  }

  /**
   * Bronze rows in the contract's shape, with {@link #RAW_PAYLOAD}: with {@code silver.columns},
   * the derived columns replace the source's (the envelope is neither payload nor in silver) and
   * every other column (provenance, rescued, corrupt, change feed, working) is kept. Rows that
   * already carry {@link #RAW_PAYLOAD} are returned as they are.
   */
  public Dataset<Row> derive(Dataset<Row> bronze) {
    List<String> present = List.of(bronze.columns());
    if (present.contains(RAW_PAYLOAD)) {
      return bronze;
    }
    Dataset<Row> withRaw = bronze.withColumn(RAW_PAYLOAD, rawPayload());
    if (!silver.derives()) {
      return withRaw;
    }
    List<Column> projection = new java.util.ArrayList<>();
    silver
        .columns()
        .forEach((name, expression) -> projection.add(functions.expr(expression).as(name)));
    for (String c : withRaw.columns()) {
      if (!pipeline.sourceColumns().contains(c) && !silver.columns().containsKey(c)) {
        projection.add(col(q(c)));
      }
    }
    return withRaw.select(projection.toArray(Column[]::new));
  }

  /**
   * The row as bronze holds it, for reports, quarantine and finding it again in bronze: the JSON of
   * the source columns, the rescued data and the corrupt record (nulls kept).
   */
  public Column rawPayload() {
    return json(withRawColumns(pipeline.sourceColumns()));
  }

  /**
   * The same for a row an operation builds in the contract's shape (a reconcile delete): the JSON
   * of the business columns, the rescued data and the corrupt record.
   */
  public Column businessPayload() {
    return json(withRawColumns(pipeline.businessColumns()));
  }

  private List<String> withRawColumns(List<String> columns) {
    List<String> all = new java.util.ArrayList<>(columns);
    all.add(pipeline.source().rescuedDataColumn());
    all.add(io.replaysafe.common.Columns.CORRUPT_RECORD);
    return all;
  }

  /** True for a delete event ({@code applyAsDeletes}); false when the contract has none. */
  public Column isDelete() {
    Optional<String> predicate = silver.applyAsDeletes();
    return predicate.map(p -> functions.coalesce(functions.expr(p), lit(false))).orElse(lit(false));
  }

  /** JSON of the given columns (nulls kept), for reports and quarantine. */
  public static Column json(List<String> columns) {
    return to_json(
        struct(columns.stream().map(c -> col(q(c))).toArray(Column[]::new)),
        Map.of("ignoreNullFields", "false"));
  }

  /**
   * How reports, notes and the CLI print a key or a sequence: the values as strings joined with
   * "/", a null as {@code null} (a single-column key is just its value).
   */
  public static Column display(List<Column> values) {
    return functions.concat_ws(
        "/",
        values.stream()
            .map(v -> functions.coalesce(v.cast(DataTypes.StringType), lit("null")))
            .toArray(Column[]::new));
  }

  /** Join condition on the key columns between two aliases. */
  public String keyCondition(String left, String right) {
    return keys().stream()
        .map(k -> prefixed(left, k) + " = " + prefixed(right, k))
        .collect(Collectors.joining(" AND "));
  }

  /** The business columns silver stores, all nullable, in schema order. */
  private StructType businessSchema() {
    StructType result = new StructType();
    for (String c : silverColumns) {
      StructField f = schema.apply(c);
      result = result.add(f.name(), f.dataType(), true);
    }
    return result;
  }

  /**
   * SQL for the sequence of the row aliased {@code alias}, comparable with {@code <} and {@code >}.
   */
  public String sequenceSql(String alias) {
    return sequenceBy().stream()
        .map(c -> alias + "." + q(c) + " AS " + q(c))
        .collect(Collectors.joining(", ", "struct(", ")"));
  }

  /** The silver table's schema: business columns, then replaysafe's columns. */
  public StructType silverSchema() {
    return businessSchema()
        .add(PAYLOAD_HASH, DataTypes.StringType, false)
        .add(STORED_SOURCE_FILE, DataTypes.StringType, true)
        .add(BRONZE_VERSION, DataTypes.LongType, true)
        .add(APPLIED_AT, DataTypes.TimestampType, true)
        .add(HASH_VERSION, DataTypes.IntegerType, true);
  }

  /** The tombstone table's schema: key and sequence of each deleted key. */
  public StructType tombstoneSchema() {
    StructType result = new StructType();
    for (String c : silver.identityColumns()) {
      StructField f = schema.apply(c);
      result = result.add(f.name(), f.dataType(), true);
    }
    return result
        .add(PAYLOAD_HASH, DataTypes.StringType, false)
        .add(STORED_SOURCE_FILE, DataTypes.StringType, true)
        .add(BRONZE_VERSION, DataTypes.LongType, true)
        .add(ReservedNames.DELETED_AT, DataTypes.TimestampType, true)
        .add(HASH_VERSION, DataTypes.IntegerType, true);
  }

  /** What silver stores: current state or history, decided once from the configuration. */
  public TableShape shape() {
    return TableShape.of(silver);
  }

  /** The silver table's schema for the contract's {@link #shape}. */
  public StructType targetSchema() {
    return switch (shape()) {
      case CURRENT_STATE -> silverSchema();
      case HISTORY -> historySchema();
    };
  }

  /** The table beside silver that keeps its stored state: the tombstones, or the events. */
  public String statePath() {
    return switch (shape()) {
      case CURRENT_STATE -> tombstonePath();
      case HISTORY -> eventsPath();
    };
  }

  /** The schema of {@link #statePath}. */
  public StructType stateSchema() {
    return switch (shape()) {
      case CURRENT_STATE -> tombstoneSchema();
      case HISTORY -> eventsSchema();
    };
  }

  /**
   * The tables that hold every key's highest applied sequence: silver and its tombstones, or the
   * history's events (its versions are rebuilt from them).
   */
  public List<String> sequencePaths() {
    return switch (shape()) {
      case CURRENT_STATE -> List.of(silver.path(), tombstonePath());
      case HISTORY -> List.of(eventsPath());
    };
  }

  /** The rows of {@code silverTable} that are the current version of their key. */
  public Dataset<Row> currentRows(Dataset<Row> silverTable) {
    return switch (shape()) {
      case CURRENT_STATE -> silverTable;
      case HISTORY -> silverTable.where(org.apache.spark.sql.functions.col(END_AT).isNull());
    };
  }

  /** History tables: the columns whose change opens a new version. */
  public List<String> trackedColumns() {
    return pipeline.trackedColumns();
  }

  /** The type of {@code __START_AT} and {@code __END_AT}: the sequence's, a struct for several. */
  public DataType sequenceType() {
    if (sequenceBy().size() == 1) {
      return schema.apply(sequenceBy().get(0)).dataType();
    }
    StructType struct = new StructType();
    for (String c : sequenceBy()) {
      // Nullable inside: Delta checks nested NOT NULL even when __END_AT itself is null.
      struct = struct.add(c, schema.apply(c).dataType(), true);
    }
    return struct;
  }

  /** A history table's schema: business columns, the version interval, replaysafe's columns. */
  public StructType historySchema() {
    return businessSchema()
        .add(START_AT, sequenceType(), false)
        .add(END_AT, sequenceType(), true)
        .add(PAYLOAD_HASH, DataTypes.StringType, false)
        .add(STORED_SOURCE_FILE, DataTypes.StringType, true)
        .add(BRONZE_VERSION, DataTypes.LongType, true)
        .add(APPLIED_AT, DataTypes.TimestampType, true);
  }

  /**
   * History tables keep every applied event (one per key and sequence), so a late event can be
   * placed between stored versions and a replay recognised as one.
   */
  public StructType eventsSchema() {
    StructType result = new StructType();
    for (String c : pipeline.businessColumns()) {
      if (silverColumns.contains(c) || silver.identityColumns().contains(c)) {
        StructField f = schema.apply(c);
        result = result.add(f.name(), f.dataType(), true);
      }
    }
    return result
        .add(IS_DELETE, DataTypes.BooleanType, false)
        .add(PAYLOAD_HASH, DataTypes.StringType, false)
        .add(STORED_SOURCE_FILE, DataTypes.StringType, true)
        .add(BRONZE_VERSION, DataTypes.LongType, true)
        .add(HASH_VERSION, DataTypes.IntegerType, true);
  }

  public String eventsPath() {
    return silver.path() + "_events";
  }

  public String tombstonePath() {
    return silver.path() + "_tombstones";
  }

  static String q(String column) {
    return SqlNames.quote(column);
  }

  static String prefixed(String alias, String column) {
    return alias == null || alias.isEmpty() ? q(column) : alias + "." + q(column);
  }

  private String computeRuleVersion() {
    Map<String, Object> canonical = new LinkedHashMap<>();
    canonical.put("schema", schema.toDDL());
    canonical.put("keys", silver.keys());
    Map<String, String> normalization = new LinkedHashMap<>();
    silver.keyNormalization().forEach((k, v) -> normalization.put(k, v.yamlName()));
    canonical.put("keyNormalization", normalization);
    canonical.put("sequenceBy", silver.sequenceBy());
    canonical.put("payloadColumns", payloadColumns);
    canonical.put("floatScale", silver.floatScale());
    canonical.put("applyAsDeletes", silver.applyAsDeletes().orElse(null));
    canonical.put("silverColumns", silverColumns);
    canonical.put("storedAsScdType", silver.storedAsScdType());
    canonical.put("onConflict", silver.onConflict().name());
    canonical.put("onInvalid", silver.onInvalid().name());
    if (silver.derives()) {
      // Only when set, so that the rule version of every contract without them stays as it was.
      canonical.put("columns", silver.columns());
    }
    try {
      return "r" + Hashing.sha256Hex(Json.mapper().writeValueAsBytes(canonical), 12);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
