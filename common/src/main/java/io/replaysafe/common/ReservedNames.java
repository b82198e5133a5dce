package io.replaysafe.common;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Every column name replaysafe writes or reads for itself, in one list: bronze's corrupt-record and
 * provenance columns, Delta's change-feed columns silver reads bronze with, silver's stored
 * columns, SCD2's {@code __START_AT}/{@code __END_AT}, and the working columns a batch carries
 * between steps. A producer's column with one of these names could steer a decision (a {@code
 * __force_delete} field deleting a key) or be overwritten silently, so the pipeline file is refused
 * when a source or derived column matches one, whatever its case ({@link #clash}). Names starting
 * with {@code __} are reserved as a whole: replaysafe's working columns all start so, and a new one
 * must not need a new rule to be safe.
 *
 * <p>{@link Columns} keeps bronze's names under their old constants; the strings live here only.
 */
public final class ReservedNames {
  /** Every name replaysafe may add as a working column starts with this. */
  public static final String PREFIX = "__";

  // Bronze: written by bronze for every row.
  public static final String CORRUPT_RECORD = "_corrupt_record";
  public static final String CORRUPT_RECORD_BASE64 = "_corrupt_record_base64";
  public static final String SOURCE_FILE = "source_file";
  public static final String SOURCE_FILE_NAME = "source_file_name";
  public static final String SOURCE_FILE_SIZE = "source_file_size";
  public static final String SOURCE_FILE_MTIME = "source_file_mtime";
  public static final String INGESTED_AT = "ingested_at";

  /** The rescued-data column when {@code source.rescuedDataColumn} is not set. */
  public static final String RESCUED_DATA_DEFAULT = "_rescued_data";

  /** Spark's hidden file-metadata column, bronze's provenance source. */
  public static final String FILE_METADATA = "_metadata";

  // Delta's change data feed, which silver reads bronze through.
  public static final String CHANGE_TYPE = "_change_type";
  public static final String COMMIT_VERSION = "_commit_version";
  public static final String COMMIT_TIMESTAMP = "_commit_timestamp";

  // Silver, history and tombstone tables: stored with every row.
  public static final String PAYLOAD_HASH = "__payload_hash";
  public static final String STORED_SOURCE_FILE = "__source_file";
  public static final String BRONZE_VERSION = "__bronze_version";
  public static final String APPLIED_AT = "__applied_at";
  public static final String HASH_VERSION = "__hash_version";
  public static final String START_AT = "__START_AT";
  public static final String END_AT = "__END_AT";
  public static final String DELETED_AT = "__deleted_at";
  public static final String TRUNCATED_AT = "__truncated_at";

  // Silver's working columns: added to a batch, never stored in silver.
  public static final String SEQ = "__seq";
  public static final String IS_DELETE = "__is_delete";
  public static final String RAW_KEY = "__raw_key";
  public static final String RAW_PAYLOAD = "__raw_payload";
  public static final String ACTION = "__action";
  public static final String INVALID_REASON = "__invalid_reason";
  public static final String INVALID_MESSAGE = "__invalid_message";
  public static final String KEY_DISPLAY = "__key_display";
  public static final String SEQ_DISPLAY = "__seq_display";
  public static final String WAIVED = "__waived";
  public static final String FORCE_DELETE = "__force_delete";
  public static final String IS_TRUNCATE = "__is_truncate";
  public static final String HISTORY_OP = "__op";
  public static final String CONFLICT = "__conflict";
  public static final String CONFLICT_REASON = "__conflict_reason";
  public static final String QUARANTINE_ID = "__quarantine_id";
  public static final String TARGET_SEQ = "__t_seq";
  public static final String TARGET_SEQ_JSON = "__t_seq_json";
  public static final String TARGET_HASH = "__t_hash";
  public static final String TARGET_KIND = "__t_kind";
  public static final String TARGET_HASH_VERSION = "__t_hash_version";
  public static final String LIVE_SEQ = "__live_seq";
  public static final String LIVE_HASH = "__live_hash";
  public static final String DEAD_SEQ = "__dead_seq";
  public static final String DEAD_HASH = "__dead_hash";
  public static final String KEY = "__key";
  public static final String ERASED = "__erased";
  public static final String ERASED_KEY = "__erased_key";
  public static final String ERASED_SEQ = "__erased_seq";

  /** A window's row number or a group's count, dropped in the step that adds it. */
  public static final String RANK = "__rank";

  public static final String COUNT = "__n";
  public static final String HASHES = "__hashes";
  public static final String PART = "__part";
  public static final String ROWS = "__rows";
  public static final String IN_BATCH = "__in_batch";
  public static final String WITH_TARGET = "__with_target";

  // Bronze and the CLI's working columns.
  public static final String PROMOTED = "__promoted";
  public static final String JSON = "__json";
  public static final String ARRIVAL = "__arrival";
  public static final String ORDER = "__order";

  /** Key inside the rescued-data JSON naming the file, as Databricks does (not a column). */
  public static final String RESCUED_FILE_PATH = "_file_path";

  /** Each name with what it is, lower-cased for the case-insensitive look-up. */
  private static final Map<String, Reserved> BY_LOWER_NAME = new LinkedHashMap<>();

  private record Reserved(String name, String role) {}

  static {
    reserve(
        "bronze's own column",
        CORRUPT_RECORD,
        CORRUPT_RECORD_BASE64,
        RESCUED_DATA_DEFAULT,
        FILE_METADATA);
    reserve("bronze's provenance column", provenance().toArray(String[]::new));
    reserve("Delta's change-feed column", CHANGE_TYPE, COMMIT_VERSION, COMMIT_TIMESTAMP);
    reserve(
        "silver's stored column",
        PAYLOAD_HASH,
        STORED_SOURCE_FILE,
        BRONZE_VERSION,
        APPLIED_AT,
        HASH_VERSION,
        DELETED_AT,
        TRUNCATED_AT);
    reserve("SCD2's validity column", START_AT, END_AT);
    reserve(
        "silver's working column",
        SEQ,
        IS_DELETE,
        RAW_KEY,
        RAW_PAYLOAD,
        ACTION,
        INVALID_REASON,
        INVALID_MESSAGE,
        KEY_DISPLAY,
        SEQ_DISPLAY,
        IS_TRUNCATE,
        HISTORY_OP,
        CONFLICT,
        CONFLICT_REASON,
        QUARANTINE_ID,
        TARGET_SEQ,
        TARGET_SEQ_JSON,
        TARGET_HASH,
        TARGET_KIND,
        TARGET_HASH_VERSION,
        LIVE_SEQ,
        LIVE_HASH,
        DEAD_SEQ,
        DEAD_HASH,
        KEY,
        RANK,
        COUNT,
        HASHES,
        PART,
        ROWS,
        IN_BATCH,
        WITH_TARGET);
    reserve(
        "an operation's decision column (a release or reconcile sets it)", WAIVED, FORCE_DELETE);
    reserve("a working column of bronze or the CLI", PROMOTED, JSON, ARRIVAL, ORDER);
  }

  private ReservedNames() {}

  private static void reserve(String role, String... names) {
    for (String name : names) {
      BY_LOWER_NAME.put(lower(name), new Reserved(name, role));
    }
  }

  /** Bronze's provenance columns, in the order bronze writes them. */
  public static List<String> provenance() {
    return List.of(SOURCE_FILE, SOURCE_FILE_NAME, SOURCE_FILE_SIZE, SOURCE_FILE_MTIME, INGESTED_AT);
  }

  /** Every reserved name, in the order above (the prefix rule {@link #PREFIX} aside). */
  public static List<String> all() {
    List<String> names = new ArrayList<>();
    BY_LOWER_NAME.values().forEach(r -> names.add(r.name()));
    return List.copyOf(names);
  }

  /**
   * What {@code name} clashes with, compared without case: e.g. {@code "'__force_delete' (an
   * operation's decision column ...)"}, or empty when the name is free. The one check for every
   * column a pipeline file declares or derives.
   */
  public static Optional<String> clash(String name) {
    String lower = lower(name);
    Reserved reserved = BY_LOWER_NAME.get(lower);
    if (reserved != null) {
      return Optional.of("'" + reserved.name() + "' (" + reserved.role() + ")");
    }
    if (lower.startsWith(PREFIX)) {
      return Optional.of("the prefix '" + PREFIX + "' (replaysafe's working columns)");
    }
    return Optional.empty();
  }

  /**
   * The same check for a pipeline whose rescued-data column is {@code rescuedDataColumn}: that
   * column is bronze's too.
   */
  public static Optional<String> clash(String name, String rescuedDataColumn) {
    if (lower(name).equals(lower(rescuedDataColumn))) {
      return Optional.of("'" + rescuedDataColumn + "' (this pipeline's rescued-data column)");
    }
    return clash(name);
  }

  /** The list as error messages show it. */
  public static String describe() {
    return all() + " and every name starting with '" + PREFIX + "' (case is ignored)";
  }

  private static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
