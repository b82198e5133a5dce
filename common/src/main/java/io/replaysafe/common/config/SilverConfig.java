package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The silver contract: identity, precedence, what an exact retry and a conflict are, deletes, and
 * where rejected rows go. Names follow Databricks AUTO CDC where one exists. Column references are
 * checked against the source schema by {@link PipelineConfig}.
 *
 * @param keyNormalization per key column; every key is present
 * @param payloadColumns null means every business column that is not a key or sequence
 * @param columnList null means every business column less {@code exceptColumnList}
 * @param ignoreBronzeChanges false (default): an update or delete committed to bronze, which is
 *     append-only by contract, stops silver; true: silver skips them and reads only inserts
 * @param columns derived columns, name to Spark SQL expression over the source schema, in the order
 *     written (see {@link DerivedColumns}); empty means silver reads bronze's columns as they are.
 *     When set, they are silver's business columns and the source's are not
 */
public record SilverConfig(
    String path,
    String checkpoint,
    String quarantinePath,
    String runsPath,
    List<String> keys,
    Map<String, KeyNormalizer> keyNormalization,
    List<String> sequenceBy,
    List<String> payloadColumns,
    int floatScale,
    Optional<String> applyAsDeletes,
    Optional<String> applyAsTruncates,
    List<String> columnList,
    List<String> exceptColumnList,
    int storedAsScdType,
    Policy onConflict,
    Policy onInvalid,
    Duration tombstoneRetention,
    boolean ignoreNullUpdates,
    List<String> trackHistoryColumnList,
    List<String> trackHistoryExceptColumnList,
    boolean ignoreBronzeChanges,
    Map<String, String> columns) {

  public static final int FLOAT_SCALE_DEFAULT = 6;
  public static final Duration TOMBSTONE_RETENTION_DEFAULT = Duration.ofDays(30);

  @JsonCreator
  public static SilverConfig of(
      @Help("The silver Delta table's location.") @JsonProperty("path") String path,
      @Help("The silver stream's checkpoint directory: this table's alone, never shared.")
          @JsonProperty("checkpoint")
          String checkpoint,
      @Help(
              value = "The quarantine table: rejected rows with their reason and raw payload.",
              defaultValue = "<path>_quarantine")
          @JsonProperty("quarantinePath")
          String quarantinePath,
      @Help(
              value = "The run log: one row per silver batch and per operation.",
              defaultValue = "<path>_runs")
          @JsonProperty("runsPath")
          String runsPath,
      @Help(value = "The column(s) that identify a row.", type = "list of columns")
          @JsonProperty("keys")
          List<String> keys,
      @Help(
              value =
                  "How key values are normalised before they are compared, for all keys or per key ({code: upper_trim}).",
              defaultValue = "none",
              type = "none | trim | upper_trim | lower_trim | nfkc_trim, or a mapping per key")
          @JsonProperty("keyNormalization")
          Object keyNormalization,
      @Help(
              value =
                  "The column(s) that order versions of a key, compared in order (later columns break ties).",
              type = "list of columns")
          @JsonProperty("sequenceBy")
          List<String> sequenceBy,
      @Help(
              value =
                  "What \"the same payload\" means: equal key and sequence with equal payload is an exact retry, with another payload a conflict.",
              defaultValue = "every business column that is not a key or sequence",
              type = "list of columns")
          @JsonProperty("payloadColumns")
          List<String> payloadColumns,
      @Help(
              value =
                  "Floats, doubles and decimals are rounded to this scale before the payload is hashed.",
              defaultValue = "6")
          @JsonProperty("floatScale")
          Integer floatScale,
      @Help(
              value = "A SQL predicate on the bronze row that makes it a delete.",
              defaultValue = "none",
              type = "SQL predicate")
          @JsonProperty("applyAsDeletes")
          String applyAsDeletes,
      @Help(
              value = "The business columns that land in silver (or use exceptColumnList).",
              defaultValue = "every business column",
              type = "list of columns")
          @JsonProperty("columnList")
          List<String> columnList,
      @Help(
              value = "Business columns kept out of silver.",
              defaultValue = "none",
              type = "list of columns")
          @JsonProperty("exceptColumnList")
          List<String> exceptColumnList,
      @Help(
              value = "1: current state (one row per key); 2: history (a record per version span).",
              defaultValue = "1",
              type = "1 | 2")
          @JsonProperty("storedAsScdType")
          Integer storedAsScdType,
      @Help(
              value =
                  "What a conflict (same key and sequence, another payload) does: fail rejects the batch, quarantine sets the rows aside.",
              defaultValue = "fail",
              type = "fail | quarantine")
          @JsonProperty("onConflict")
          Policy onConflict,
      @Help(
              value =
                  "What an invalid row (null or blank key or sequence) does: fail rejects the batch, quarantine sets it aside.",
              defaultValue = "fail",
              type = "fail | quarantine")
          @JsonProperty("onInvalid")
          Policy onInvalid,
      @Help(
              value = "How long a delete's tombstone keeps older inserts of its key out.",
              defaultValue = "30 days",
              type = "duration")
          @JsonProperty("tombstoneRetention")
          String tombstoneRetention,
      @Help(
              value = "true: a null in an update keeps the stored value of that column.",
              defaultValue = "false")
          @JsonProperty("ignoreNullUpdates")
          Boolean ignoreNullUpdates,
      @Help(
              value =
                  "History tables only: the columns whose change starts a new record (or use trackHistoryExceptColumnList).",
              defaultValue = "every silver column",
              type = "list of columns")
          @JsonProperty("trackHistoryColumnList")
          List<String> trackHistoryColumnList,
      @Help(
              value = "History tables only: columns whose change does not start a new record.",
              defaultValue = "none",
              type = "list of columns")
          @JsonProperty("trackHistoryExceptColumnList")
          List<String> trackHistoryExceptColumnList,
      @Help(
              value =
                  "A SQL predicate on the bronze row that makes it a truncate of the table; current state only.",
              defaultValue = "none",
              type = "SQL predicate")
          @JsonProperty("applyAsTruncates")
          String applyAsTruncates,
      @Help(
              value =
                  "true: updates and deletes committed to bronze (append-only by contract) are skipped; false: they stop silver.",
              defaultValue = "false")
          @JsonProperty("ignoreBronzeChanges")
          Boolean ignoreBronzeChanges,
      @Help(
              value =
                  "Derived columns: name to a Spark SQL expression over source.schema's columns (a CDC envelope's coalesce(after.id, before.id)); when set, they are the contract's business columns.",
              defaultValue = "none",
              type = "mapping of column to SQL expression")
          @JsonProperty("columns")
          LinkedHashMap<String, String> columns) {

    String silverPath = StoragePaths.normalize("silver.path", path);
    // An empty list is a choice left open on purpose: 'replaysafe init' drafts keys: [].
    if (keys != null && keys.isEmpty()) {
      throw ConfigErrors.unchosen("silver.keys", "the column(s) that identify a row");
    }
    if (sequenceBy != null && sequenceBy.isEmpty()) {
      throw ConfigErrors.unchosen(
          "silver.sequenceBy", "the column(s) that order versions of a key");
    }
    if (keys == null || keys.isEmpty()) {
      throw ConfigErrors.missing("silver.keys", "list the column(s) that identify a row");
    }
    if (sequenceBy == null || sequenceBy.isEmpty()) {
      throw ConfigErrors.missing(
          "silver.sequenceBy", "list the column(s) that order versions of a key");
    }
    return new SilverConfig(
        silverPath,
        StoragePaths.normalize("silver.checkpoint", checkpoint),
        quarantinePath == null
            ? silverPath + "_quarantine"
            : StoragePaths.normalize("silver.quarantinePath", quarantinePath),
        runsPath == null
            ? silverPath + "_runs"
            : StoragePaths.normalize("silver.runsPath", runsPath),
        List.copyOf(keys),
        parseKeyNormalization(keys, keyNormalization),
        List.copyOf(sequenceBy),
        payloadColumns == null ? null : List.copyOf(payloadColumns),
        floatScale == null ? FLOAT_SCALE_DEFAULT : floatScale,
        Optional.ofNullable(applyAsDeletes).filter(s -> !s.isBlank()),
        Optional.ofNullable(applyAsTruncates).filter(s -> !s.isBlank()),
        columnList == null ? null : List.copyOf(columnList),
        exceptColumnList == null ? List.of() : List.copyOf(exceptColumnList),
        storedAsScdType == null ? 1 : storedAsScdType,
        onConflict == null ? Policy.FAIL : onConflict,
        onInvalid == null ? Policy.FAIL : onInvalid,
        tombstoneRetention == null
            ? TOMBSTONE_RETENTION_DEFAULT
            : parseDuration("silver.tombstoneRetention", tombstoneRetention),
        ignoreNullUpdates != null && ignoreNullUpdates,
        trackHistoryColumnList == null ? null : List.copyOf(trackHistoryColumnList),
        trackHistoryExceptColumnList == null
            ? List.of()
            : List.copyOf(trackHistoryExceptColumnList),
        ignoreBronzeChanges != null && ignoreBronzeChanges,
        DerivedColumns.parse(columns));
  }

  public SilverConfig {
    if (floatScale < 0 || floatScale > 18) {
      throw ConfigErrors.rule(
          "silver.floatScale " + floatScale + " must be between 0 and 18",
          "it is how many digits after the point floats keep before hashing (default 6)");
    }
    if (storedAsScdType != 1 && storedAsScdType != 2) {
      throw ConfigErrors.rule(
          "silver.storedAsScdType " + storedAsScdType + " must be 1 or 2",
          "use 1 for current state or 2 for history");
    }
    if (storedAsScdType == 2 && applyAsTruncates.isPresent()) {
      throw ConfigErrors.rule(
          "silver.applyAsTruncates is supported for storedAsScdType 1 only (as in AUTO CDC)",
          "remove it or use a current-state table");
    }
    if (trackHistoryColumnList != null && !trackHistoryExceptColumnList.isEmpty()) {
      throw ConfigErrors.bothSet(
          "silver", "trackHistoryColumnList", "trackHistoryExceptColumnList", "keep one");
    }
    if (storedAsScdType == 1
        && (trackHistoryColumnList != null || !trackHistoryExceptColumnList.isEmpty())) {
      throw ConfigErrors.rule(
          "silver.trackHistoryColumnList / trackHistoryExceptColumnList apply to history tables"
              + " only",
          "set storedAsScdType: 2 or remove them");
    }
    if (columnList != null && !exceptColumnList.isEmpty()) {
      throw ConfigErrors.bothSet(
          "silver", "columnList", "exceptColumnList", "AUTO CDC allows one, keep one");
    }
    if (checkpoint.equals(path)) {
      throw ConfigErrors.rule("silver.checkpoint equals silver.path", "give it its own path");
    }
    requireDistinct("silver.keys", keys);
    requireDistinct("silver.sequenceBy", sequenceBy);
    for (String key : keys) {
      if (sequenceBy.contains(key)) {
        throw ConfigErrors.rule(
            "silver column '" + key + "' is both a key and a sequence column", "it must be one");
      }
    }
    refuseIdentity(
        keys,
        sequenceBy,
        "exceptColumnList",
        exceptColumnList,
        "keys and sequence columns always land in silver, so excluding one would be ignored");
    if (trackHistoryColumnList != null) {
      refuseIdentity(
          keys,
          sequenceBy,
          "trackHistoryColumnList",
          trackHistoryColumnList,
          "keys and sequence columns are never tracked as history (a new sequence alone opens no"
              + " version), so listing one would be ignored");
    }
    refuseIdentity(
        keys,
        sequenceBy,
        "trackHistoryExceptColumnList",
        trackHistoryExceptColumnList,
        "keys and sequence columns are never tracked as history, so excluding one changes nothing");
  }

  /**
   * A column list that names a key or sequence column would be silently overridden by the contract:
   * refused, so the file says what silver does.
   */
  private static void refuseIdentity(
      List<String> keys, List<String> sequenceBy, String list, List<String> columns, String why) {
    for (String column : columns) {
      String role = keys.contains(column) ? "key" : sequenceBy.contains(column) ? "sequence" : null;
      if (role != null) {
        throw ConfigErrors.rule(
            "silver." + list + " names '" + column + "', a " + role + " column: " + why,
            "remove '" + column + "' from silver." + list);
      }
    }
  }

  private static void requireDistinct(String where, List<String> columns) {
    if (columns.stream().distinct().count() != columns.size()) {
      throw ConfigErrors.rule(where + " " + columns + " lists a column twice", "list each once");
    }
  }

  private static Map<String, KeyNormalizer> parseKeyNormalization(List<String> keys, Object raw) {
    Map<String, KeyNormalizer> result = new LinkedHashMap<>();
    if (raw == null || raw instanceof String) {
      KeyNormalizer all =
          raw == null
              ? KeyNormalizer.NONE
              : KeyNormalizer.parse("silver.keyNormalization", (String) raw);
      keys.forEach(k -> result.put(k, all));
      return result;
    }
    if (raw instanceof Map<?, ?> perKey) {
      for (Map.Entry<?, ?> entry : perKey.entrySet()) {
        String column = String.valueOf(entry.getKey());
        if (!keys.contains(column)) {
          throw ConfigErrors.rule(
              "silver.keyNormalization names '" + column + "', which is not in silver.keys " + keys,
              "normalise key columns only");
        }
        result.put(
            column,
            KeyNormalizer.parse(
                "silver.keyNormalization." + column, String.valueOf(entry.getValue())));
      }
      keys.forEach(k -> result.putIfAbsent(k, KeyNormalizer.NONE));
      Map<String, KeyNormalizer> ordered = new LinkedHashMap<>();
      keys.forEach(k -> ordered.put(k, result.get(k)));
      return ordered;
    }
    throw ConfigErrors.rule(
        "silver.keyNormalization has the wrong shape",
        "write one mode (none, trim, upper_trim, lower_trim, nfkc_trim) or a map from key column"
            + " to mode");
  }

  private static final Pattern DURATION =
      Pattern.compile("^\\s*(\\d+)\\s*(second|minute|hour|day|week)s?\\s*$");

  /** Parses "30 days", "2 hours"; {@code where} names the option in the error. */
  public static Duration parseDuration(String where, String text) {
    Matcher m = DURATION.matcher(text.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw ConfigErrors.badValue(
          where, text, "is not a duration", "write e.g. '30 days' or '12 hours'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "second" -> Duration.ofSeconds(n);
      case "minute" -> Duration.ofMinutes(n);
      case "hour" -> Duration.ofHours(n);
      case "day" -> Duration.ofDays(n);
      default -> Duration.ofDays(7 * n);
    };
  }

  /** True when silver reads derived columns ({@code silver.columns}) instead of bronze's. */
  public boolean derives() {
    return !columns.isEmpty();
  }

  /** Every key and sequence column, in declared order. */
  public List<String> identityColumns() {
    List<String> all = new ArrayList<>(keys);
    all.addAll(sequenceBy);
    return all;
  }
}
