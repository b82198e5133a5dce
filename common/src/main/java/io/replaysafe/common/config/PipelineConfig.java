package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
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
 * (silver columns exist in the source schema, sequences are sortable) live here.
 */
public record PipelineConfig(
    String name,
    Optional<StorageConfig> storage,
    SourceConfig source,
    BronzeConfig bronze,
    Optional<SilverConfig> silver) {

  @JsonCreator
  public static PipelineConfig of(
      @JsonProperty("name") String name,
      @JsonProperty("storage") StorageConfig storage,
      @JsonProperty("source") SourceConfig source,
      @JsonProperty("bronze") BronzeConfig bronze,
      @JsonProperty("silver") SilverConfig silver) {
    return new PipelineConfig(
        name, Optional.ofNullable(storage), source, bronze, Optional.ofNullable(silver));
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
    silver.ifPresent(s -> validateSilver(s, source.schema()));
  }

  /** The silver section, or a configuration error saying the command needs one. */
  public SilverConfig requireSilver() {
    return silver.orElseThrow(
        () ->
            ConfigErrors.rule(
                "pipeline '" + name + "' has no silver section", "add one to run silver"));
  }

  /** Business columns bronze holds: the source schema's top-level columns. */
  public List<String> businessColumns() {
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

  private static void validateSilver(SilverConfig s, StructType schema) {
    List<String> known = Arrays.stream(schema.fields()).map(StructField::name).toList();
    for (String key : s.keys()) {
      requireColumn("silver.keys", key, known);
      DataType type = schema.apply(key).dataType();
      if (!(type instanceof AtomicType) || type instanceof BinaryType) {
        throw ConfigErrors.rule(
            "silver.keys column '" + key + "' is " + type.simpleString(),
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
      requireColumn("silver.sequenceBy", seq, known);
      DataType type = schema.apply(seq).dataType();
      if (!(type instanceof AtomicType)
          || type instanceof BinaryType
          || type instanceof BooleanType) {
        throw ConfigErrors.rule(
            "silver.sequenceBy column '"
                + seq
                + "' is "
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
        requireColumn("silver.payloadColumns", c, known);
      }
    }
    if (s.columnList() != null) {
      s.columnList().forEach(c -> requireColumn("silver.columnList", c, known));
    }
    s.exceptColumnList().forEach(c -> requireColumn("silver.exceptColumnList", c, known));
    if (s.trackHistoryColumnList() != null) {
      s.trackHistoryColumnList()
          .forEach(c -> requireColumn("silver.trackHistoryColumnList", c, known));
    }
    s.trackHistoryExceptColumnList()
        .forEach(c -> requireColumn("silver.trackHistoryExceptColumnList", c, known));
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

  private static void requireColumn(String where, String column, List<String> known) {
    if (!known.contains(column)) {
      throw ConfigErrors.unknownColumn(where, column, known);
    }
  }
}
