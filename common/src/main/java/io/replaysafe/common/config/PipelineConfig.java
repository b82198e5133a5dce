package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.replaysafe.common.ReservedNames;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.types.AtomicType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * One pipeline file, parsed and validated: nothing downstream checks it again. Cross-field rules
 * (silver columns exist in the business schema, sequences are sortable) live here.
 *
 * @param businessSchema the columns silver's contract reads: the source schema, or the derived
 *     columns when {@code silver.columns} is set
 */
public record PipelineConfig(
    String name,
    Optional<StorageConfig> storage,
    SourceConfig source,
    BronzeConfig bronze,
    Optional<SilverConfig> silver,
    StructType businessSchema,
    EvidenceConfig evidence,
    TriggerConfig trigger,
    MaintenanceConfig maintenance) {

  @JsonCreator
  public static PipelineConfig of(
      @Help(
              "The pipeline's name: letters, digits, '_' or '-'; it names the jobs, the lease and the log lines.")
          @JsonProperty("name")
          String name,
      @Help(
              value =
                  "Where s3a:// paths live (endpoint, region, path-style access); only needed for s3a:// paths. Credentials never go here: the AWS default provider chain supplies them.",
              type = "section")
          @JsonProperty("storage")
          StorageConfig storage,
      @Help(value = "The landing path bronze reads and its explicit schema.", type = "section")
          @JsonProperty("source")
          SourceConfig source,
      @Help(value = "The bronze Delta table and its dedicated checkpoint.", type = "section")
          @JsonProperty("bronze")
          BronzeConfig bronze,
      @Help(
              value = "The silver contract and its tables; without it only bronze runs.",
              type = "section")
          @JsonProperty("silver")
          SilverConfig silver,
      @Help(
              value =
                  "What reports may show of a row: by default keys, sequences, hashes and files, never payload values.",
              type = "section")
          @JsonProperty("evidence")
          EvidenceConfig evidence,
      @Help(
              value =
                  "How the jobs are triggered: once per command (availableNow) or one long-running process (continuous); the command line's --continuous, --available-now and --interval win.",
              type = "section")
          @JsonProperty("trigger")
          TriggerConfig trigger,
      @Help(
              value =
                  "Housekeeping a running pipeline does between batches: OPTIMIZE every optimizeEvery and, at the same cadence, VACUUM keeping vacuumRetention; absent, none (replaysafe maintain does it on demand).",
              type = "section")
          @JsonProperty("maintenance")
          MaintenanceConfig maintenance) {
    StructType business =
        source == null || silver == null || !silver.derives()
            ? source == null ? null : source.schema()
            : DerivedColumns.schema(silver.columns(), source.schema());
    return new PipelineConfig(
        name,
        Optional.ofNullable(storage),
        source,
        bronze,
        Optional.ofNullable(silver),
        business,
        evidence == null ? EvidenceConfig.DEFAULT : evidence,
        trigger == null ? TriggerConfig.DEFAULT : trigger,
        maintenance == null ? MaintenanceConfig.NONE : maintenance);
  }

  /** The same pipeline showing payload values in reports ({@code --show-values}). */
  public PipelineConfig showingValues() {
    return new PipelineConfig(
        name,
        storage,
        source,
        bronze,
        silver,
        businessSchema,
        new EvidenceConfig(true),
        trigger,
        maintenance);
  }

  public PipelineConfig {
    if (name == null || !name.matches("[A-Za-z0-9_-]+")) {
      throw ConfigErrors.badValue(
          "name", name, "must be letters, digits, '_' or '-'", "it names the pipeline's jobs");
    }
    if (source == null) {
      throw ConfigErrors.missing("source", "say where files land and their schema");
    }
    if (bronze == null) {
      throw ConfigErrors.missing("bronze", "give bronze.path and bronze.checkpoint");
    }
    StructType business = businessSchema;
    silver.ifPresent(s -> validateSilver(s, business, source.rescuedDataColumn()));
    if (maintenance != null && maintenance.enabled() && silver.isEmpty()) {
      // Its rules (silver's lag, tombstoneRetention) and its record live in silver's tables.
      throw ConfigErrors.rule(
          "maintenance.optimizeEvery is set but pipeline '" + name + "' has no silver section",
          "add the silver section, or remove maintenance and run 'replaysafe maintain'");
    }
    if (trigger == null) {
      trigger = TriggerConfig.DEFAULT;
    }
    if (maintenance == null) {
      maintenance = MaintenanceConfig.NONE;
    }
  }

  /** The silver section, or a configuration error saying the command needs one. */
  public SilverConfig requireSilver() {
    return silver.orElseThrow(
        () ->
            ConfigErrors.rule(
                "pipeline '" + name + "' has no silver section", "add one to run silver"));
  }

  /**
   * Business columns silver's contract reads: the source schema's top-level columns, or the derived
   * columns ({@code silver.columns}) in the order written.
   */
  public List<String> businessColumns() {
    return Arrays.stream(businessSchema.fields()).map(StructField::name).toList();
  }

  /** Business columns bronze holds: the source schema's top-level columns. */
  public List<String> sourceColumns() {
    return Arrays.stream(source.schema().fields()).map(StructField::name).toList();
  }

  /**
   * Columns that define "the same payload": the declared list, or every business column that is
   * neither key nor sequence, in schema order.
   */
  public List<String> payloadColumns() {
    SilverConfig s = requireSilver();
    if (s.payloadColumns() != null) {
      return s.payloadColumns();
    }
    return businessColumns().stream().filter(c -> !s.identityColumns().contains(c)).toList();
  }

  /** Business columns that land in silver (keys and sequences always do). */
  public List<String> silverColumns() {
    SilverConfig s = requireSilver();
    List<String> chosen = new ArrayList<>();
    for (String column : businessColumns()) {
      boolean listed =
          s.columnList() == null
              ? !s.exceptColumnList().contains(column)
              : s.columnList().contains(column);
      if (listed || s.identityColumns().contains(column)) {
        chosen.add(column);
      }
    }
    return chosen;
  }

  private static void validateSilver(SilverConfig s, StructType schema, String rescuedDataColumn) {
    List<String> known = Arrays.stream(schema.fields()).map(StructField::name).toList();
    for (String derived : s.columns().keySet()) {
      ReservedNames.clash(derived, rescuedDataColumn)
          .ifPresent(
              clash -> {
                throw ConfigErrors.reservedName("silver.columns", derived, clash);
              });
    }
    for (String key : s.keys()) {
      requireColumn("silver.keys", key, known, s);
      DataType type = schema.apply(key).dataType();
      if (!(type instanceof AtomicType) || type instanceof BinaryType) {
        throw ConfigErrors.rule(
            "silver.keys column '" + key + "'" + derivedAs(s, key) + " is " + type.simpleString(),
            "a key must be a string, number, boolean, date or timestamp column");
      }
      if (s.keyNormalization().get(key) != KeyNormalizer.NONE
          && !(type instanceof org.apache.spark.sql.types.StringType)) {
        throw ConfigErrors.rule(
            "silver.keyNormalization."
                + key
                + " is "
                + s.keyNormalization().get(key).yamlName()
                + " but '"
                + key
                + "' is "
                + type.simpleString(),
            "only string keys can be normalised, set it to none");
      }
    }
    for (String seq : s.sequenceBy()) {
      requireColumn("silver.sequenceBy", seq, known, s);
      DataType type = schema.apply(seq).dataType();
      if (!sortable(type)) {
        throw ConfigErrors.rule(
            "silver.sequenceBy column '"
                + seq
                + "'"
                + derivedAs(s, seq)
                + " is "
                + type.simpleString()
                + ", which has no meaningful order",
            "use a number, date, timestamp or string column");
      }
    }
    if (s.payloadColumns() != null) {
      if (s.payloadColumns().isEmpty()) {
        throw ConfigErrors.rule(
            "silver.payloadColumns is empty",
            "list the columns that define the same payload, or omit it to use every business"
                + " column that is not a key or sequence");
      }
      for (String c : s.payloadColumns()) {
        requireColumn("silver.payloadColumns", c, known, s);
      }
    }
    if (s.columnList() != null) {
      s.columnList().forEach(c -> requireColumn("silver.columnList", c, known, s));
    }
    s.exceptColumnList().forEach(c -> requireColumn("silver.exceptColumnList", c, known, s));
    if (s.trackHistoryColumnList() != null) {
      s.trackHistoryColumnList()
          .forEach(c -> requireColumn("silver.trackHistoryColumnList", c, known, s));
    }
    s.trackHistoryExceptColumnList()
        .forEach(c -> requireColumn("silver.trackHistoryExceptColumnList", c, known, s));
  }

  /**
   * History tables: the columns whose change opens a new version (AUTO CDC's track history
   * columns). Default: every silver column that is not a key or sequence.
   */
  public List<String> trackedColumns() {
    SilverConfig s = requireSilver();
    List<String> candidates =
        silverColumns().stream().filter(c -> !s.identityColumns().contains(c)).toList();
    if (s.trackHistoryColumnList() != null) {
      return candidates.stream().filter(s.trackHistoryColumnList()::contains).toList();
    }
    return candidates.stream().filter(c -> !s.trackHistoryExceptColumnList().contains(c)).toList();
  }

  /** A sequence column must order: atomic, not binary or boolean (several form a struct). */
  private static boolean sortable(DataType type) {
    return type instanceof AtomicType
        && !(type instanceof BinaryType)
        && !(type instanceof BooleanType);
  }

  /** " (derived as \"expr\")" for a derived column, for messages; "" otherwise. */
  private static String derivedAs(SilverConfig s, String column) {
    String expression = s.columns().get(column);
    return expression == null ? "" : " (derived as \"" + expression + "\")";
  }

  private static void requireColumn(
      String where, String column, List<String> known, SilverConfig s) {
    if (!known.contains(column)) {
      throw s.derives()
          ? ConfigErrors.rule(
              where
                  + " names column '"
                  + column
                  + "', which silver.columns does not derive; derived columns are "
                  + known,
              "with silver.columns set, the contract reads the derived columns only: derive it or"
                  + " fix the name")
          : ConfigErrors.unknownColumn(where, column, known);
    }
  }
}
