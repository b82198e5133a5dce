package io.replaysafe.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.config.KeyNormalizer;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SilverConfig;
import io.replaysafe.common.spark.SqlNames;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.Column;
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
  public static final String PAYLOAD_HASH = "__payload_hash";

  /** The bronze file that delivered the version stored. */
  public static final String SOURCE_FILE = "__source_file";

  /** The bronze table version that delivered the version stored. */
  public static final String BRONZE_VERSION = "__bronze_version";

  /** When silver applied the version stored. */
  public static final String APPLIED_AT = "__applied_at";

  /** History tables: the sequence at which a version starts, and ends (null: current). */
  public static final String START_AT = "__START_AT";

  public static final String END_AT = "__END_AT";

  /** Working columns, never written to silver. */
  static final String SEQ = "__seq";

  static final String IS_DELETE = "__is_delete";
  static final String RAW_KEY = "__raw_key";
  static final String RAW_PAYLOAD = "__raw_payload";
  static final String ACTION = "__action";

  /** Bronze change-feed column with the commit version of each row. */
  static final String COMMIT_VERSION = "_commit_version";

  private final PipelineConfig pipeline;
  private final SilverConfig silver;
  private final StructType schema;
  private final List<String> payloadColumns;
  private final List<String> silverColumns;
  private final String ruleVersion;
  private final HashRule hashRule;

  /**
   * The contract as if it had never changed: the payload hash is the first version's. Jobs that
   * hash use {@link ContractHistory#resolve}, which carries the hash rule across versions.
   */
  public SilverContract(PipelineConfig pipeline) {
    this(
        pipeline,
        HashRule.initial(
            pipeline.payloadColumns(),
            pipeline.source().schema(),
            pipeline.requireSilver().floatScale()));
  }

  /** The contract with the hash rule its history gives it. */
  public SilverContract(PipelineConfig pipeline, HashRule hashRule) {
    this.pipeline = pipeline;
    this.silver = pipeline.requireSilver();
    this.schema = pipeline.source().schema();
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
        .add(SOURCE_FILE, DataTypes.StringType, true)
        .add(BRONZE_VERSION, DataTypes.LongType, true)
        .add(APPLIED_AT, DataTypes.TimestampType, true);
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
        .add(SOURCE_FILE, DataTypes.StringType, true)
        .add(BRONZE_VERSION, DataTypes.LongType, true)
        .add("__deleted_at", DataTypes.TimestampType, true);
  }

  /** True for a history table (SCD type 2). */
  public boolean isHistory() {
    return silver.storedAsScdType() == 2;
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
        .add(SOURCE_FILE, DataTypes.StringType, true)
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
        .add(SOURCE_FILE, DataTypes.StringType, true)
        .add(BRONZE_VERSION, DataTypes.LongType, true);
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
    try {
      byte[] bytes = new ObjectMapper().writeValueAsBytes(canonical);
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
      return "r" + HexFormat.of().formatHex(digest).substring(0, 12);
    } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
