package io.replaysafe.cli;

import io.replaysafe.bronze.SourceSample;
import io.replaysafe.common.config.CsvOptions;
import io.replaysafe.common.config.SourceFormat;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.config.StoragePaths;
import io.replaysafe.jobs.PipelineDraft.Draft;
import io.replaysafe.silver.draft.Candidate;
import io.replaysafe.silver.draft.EnvelopeDraft;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A {@link Draft} as the commented pipeline file {@code replaysafe init} writes: every section
 * explained, the candidates listed above the keys and sequence they are candidates for. For
 * Debezium change events, the drafted contract ({@link EnvelopeDraft}) with its evidence.
 */
final class DraftYaml {
  /** Plain YAML scalars that would not read back as the string they spell. */
  private static final Set<String> YAML_WORDS =
      Set.of("null", "true", "false", "yes", "no", "on", "off", "y", "n", "~");

  private DraftYaml() {}

  static String of(Draft d) {
    StringBuilder y = new StringBuilder();
    y.append("# Drafted by 'replaysafe init' from ")
        .append(d.sampledFiles().size())
        .append(" sample file(s) (")
        .append(d.sampleBytes())
        .append(" bytes, ")
        .append(d.rows())
        .append(" rows")
        .append(d.corruptRows() > 0 ? ", " + d.corruptRows() + " of them " + corrupt(d) : "")
        .append(
            d.envelope().isPresent() && d.kafkaTombstones() > 0
                ? ": "
                    + d.kafkaTombstones()
                    + " Kafka tombstone(s), the line null, which silver ignores"
                : "")
        .append(") under ")
        .append(d.source())
        .append(".\n");
    if (d.envelope().isPresent()) {
      EnvelopeDraft e = d.envelope().get();
      y.append("# The sample holds Debezium change events (")
          .append(e.shape().connector().displayName())
          .append(" connector): silver.columns,\n");
      y.append(
          "# keys, sequenceBy and the op mapping below are drafted from them, each with its\n");
      if (e.chosenKeys().isEmpty()) {
        y.append(
            "# evidence. THIS FILE DOES NOT RUN YET: no field fits a key in the sample; choose\n");
        y.append("# silver.keys below, then dry-run it: replaysafe plan --config <this file>\n");
      } else {
        y.append(
            "# evidence. Review them, then dry-run it: replaysafe plan --config <this file>\n");
      }
    } else {
      y.append(
          "# THIS FILE DOES NOT RUN YET: choose silver.keys and silver.sequenceBy below (the\n");
      y.append(
          "# candidates found in the sample are listed above each, with the evidence), then\n");
      y.append("# dry-run it: replaysafe plan --config <this file>\n");
    }
    y.append("name: ").append(d.name()).append('\n');
    if (d.storage().isPresent()) {
      StorageConfig s = d.storage().get();
      y.append("storage:\n");
      if (s.endpoint() != null) {
        y.append("  endpoint: ").append(s.endpoint()).append('\n');
      }
      y.append("  region: ").append(s.region()).append('\n');
      y.append("  pathStyleAccess: ").append(s.pathStyleAccess()).append('\n');
    } else if (StoragePaths.isS3(d.source())) {
      y.append("storage:                 # AWS itself; add endpoint: for an emulator\n");
      y.append("  region: ").append(StorageConfig.REGION_DEFAULT).append('\n');
    }
    y.append("source:\n");
    y.append("  path: ").append(d.source()).append('\n');
    appendFormat(y, d.format());
    if (d.envelope().isPresent()) {
      y.append(
          "  # before and after are declared alike, with every field of the row that either\n");
      y.append(
          "  # shows, in the table's column order (as Debezium's value schema declares them).\n");
    }
    if (!d.reservedDropped().isEmpty()) {
      y.append(
              "  # Left out (the names are reserved by bronze; their values land in _rescued_data): ")
          .append(String.join(", ", d.reservedDropped()))
          .append('\n');
    }
    y.append("  schema: >-\n");
    StructField[] fields = d.schema().fields();
    for (int i = 0; i < fields.length; i++) {
      y.append("    ")
          .append(new StructType(new StructField[] {fields[i]}).toDDL())
          .append(i < fields.length - 1 ? ",\n" : "\n");
    }
    y.append("  rescuedDataColumn: _rescued_data\n");
    y.append("  schemaEvolutionMode: rescue   # or failOnNewColumns\n");
    y.append("# The lake: bronze and silver tables, each with its own checkpoint. Nothing is\n");
    y.append("# written until the first 'replaysafe run'.\n");
    y.append("bronze:\n");
    y.append("  path: ").append(d.lake()).append("/bronze/").append(d.name()).append('\n');
    y.append("  checkpoint: ")
        .append(d.lake())
        .append("/_checkpoints/bronze/")
        .append(d.name())
        .append('\n');
    y.append("silver:\n");
    y.append("  path: ").append(d.lake()).append("/silver/").append(d.name()).append('\n');
    y.append("  checkpoint: ")
        .append(d.lake())
        .append("/_checkpoints/silver/")
        .append(d.name())
        .append('\n');
    if (d.envelope().isPresent()) {
      appendEnvelope(y, d.envelope().get());
      return y.toString();
    }
    y.append("  # keys: the column(s) that identify a row. Candidates in the sample:\n");
    appendCandidates(y, d.keys(), "no column is unique, alone or with an increasing column");
    y.append("  keys: []                # CHOOSE, e.g. keys: [")
        .append(d.keys().isEmpty() ? "id" : d.keys().get(0).columns().get(0))
        .append("]\n");
    y.append("  # sequenceBy: the column(s) that order versions of a key (the higher wins).\n");
    y.append("  # Candidates in the sample:\n");
    appendCandidates(y, d.sequences(), "no numeric or timestamp column increases in arrival order");
    y.append("  sequenceBy: []          # CHOOSE, e.g. sequenceBy: [")
        .append(
            d.sequences().stream()
                .map(c -> c.columns().get(0))
                .filter(c -> d.keys().isEmpty() || !d.keys().get(0).columns().contains(c))
                .findFirst()
                .orElse("version"))
        .append("]\n");
    y.append(
        "  onConflict: fail        # same key and sequence, different payload: fail | quarantine\n");
    y.append(
        "  onInvalid: fail         # null key or sequence, malformed line: fail | quarantine\n");
    y.append("  # applyAsDeletes: \"op = 'DELETE'\"   # optional: which rows are deletes\n");
    return y.toString();
  }

  /** What the sample's corrupt rows are, in its format's words. */
  private static String corrupt(Draft d) {
    return switch (d.format().format()) {
      case JSON -> "not JSON objects";
      case CSV -> "not records of the header's fields";
      case PARQUET, AVRO -> "unreadable";
    };
  }

  /**
   * {@code source.format}, the reader options the sample needed, and how the schema below was
   * inferred in that format.
   */
  private static void appendFormat(StringBuilder y, SourceSample.SampleFormat read) {
    switch (read.format()) {
      case JSON -> {
        y.append("  format: json             # JSON lines\n");
        y.append(
            "  # Spark's JSON schema inference over the sample, as DDL: review it. Whole numbers\n");
        y.append(
            "  # are BIGINT, fractions DOUBLE; timestamps stay STRING until you declare them\n");
        y.append("  # TIMESTAMP. A field the schema does not declare is kept in _rescued_data.\n");
      }
      case CSV -> {
        y.append("  format: csv\n");
        y.append("  options:\n");
        y.append("    header: true           # each file's first line names its columns\n");
        CsvOptions csv = CsvOptions.of(read.options());
        y.append("    sep: ")
            .append(csvSep(csv.sep()))
            .append(
                csv.sep().equals(CsvOptions.DEFAULT.sep())
                    ? "                 # the delimiter; quote, escape, encoding: see"
                        + " bronze/README.md\n"
                    : "                # tab-separated, as the files' .tsv names say\n");
        y.append(
            "  # Spark's CSV schema inference (header, inferSchema) over the sample, as DDL:\n");
        y.append(
            "  # review it. Whole numbers are BIGINT; a column with one text value is STRING.\n");
        y.append(
            "  # A value that does not convert, or a header column the schema does not declare,\n");
        y.append("  # is kept in _rescued_data.\n");
      }
      case PARQUET, AVRO -> {
        y.append("  format: ").append(read.format().key()).append('\n');
        y.append("  # The files' own ")
            .append(
                read.format() == SourceFormat.PARQUET ? "Parquet schemas, merged," : "Avro schema")
            .append(" as DDL: review it. A field the\n");
        y.append("  # schema does not declare, or whose type does not convert, is kept in\n");
        y.append("  # _rescued_data.\n");
      }
    }
  }

  /** A delimiter as a YAML scalar: a tab double-quoted as an escape, others single-quoted. */
  private static String csvSep(String sep) {
    return "\t".equals(sep) ? "\"\\t\"" : "'" + sep.replace("'", "''") + "'";
  }

  /** The silver contract drafted for Debezium change events, each choice above its evidence. */
  private static void appendEnvelope(StringBuilder y, EnvelopeDraft e) {
    y.append("  # ")
        .append(e.events())
        .append(" Debezium change events from the ")
        .append(e.shape().connector().displayName())
        .append(" connector in the sample.\n");
    y.append(
        "  # silver.columns derives the contract's columns from each: the key from after, or\n");
    y.append("  # before for a delete; the rest of the row from after; the log position from\n");
    y.append("  # source. Bronze's columns (")
        .append(String.join(", ", e.shape().schema().fieldNames()))
        .append(") are read only\n");
    y.append("  # through them, so an event re-emitted with another ts_ms is an exact retry.\n");
    y.append("  columns:\n");
    e.columns()
        .forEach(
            (name, expression) ->
                y.append("    ")
                    .append(plain(name))
                    .append(": ")
                    .append(quoted(expression))
                    .append('\n'));
    if (e.ignoreNullUpdates()) {
      y.append("  # ")
          .append(EnvelopeDraft.UNAVAILABLE_VALUE)
          .append(", Debezium's marker for a value it did not receive (an\n");
      y.append("  # unchanged TOASTed column, in PostgreSQL), is in ")
          .append(e.unavailableEvidence())
          .append(":\n");
      y.append("  # ")
          .append(
              e.unavailable().size() == 1 ? "its derived column maps" : "their derived columns map")
          .append(" it to null, and ignoreNullUpdates below keeps the stored value.\n");
    }
    y.append("  # keys: the column(s) that identify a row. Evidence in the sample:\n");
    appendCandidates(
        y,
        e.keys(),
        "no field of the row is set in every row event, unchanged by updates and one event per"
            + " value and log position");
    if (e.chosenKeys().isEmpty()) {
      y.append(
          "  keys: []                # CHOOSE, and derive it as coalesce(after.<field>,"
              + " before.<field>): a delete carries it in before only\n");
    } else {
      y.append("  keys: ")
          .append(list(e.chosenKeys()))
          .append(e.keys().size() > 1 ? "    # the first candidate\n" : "\n");
    }
    y.append("  # sequenceBy: the column(s) that order versions of a key (the higher wins).\n");
    y.append("  # Evidence in the sample:\n");
    appendCandidates(y, List.of(e.sequence()), "");
    y.append("  #   Not ts_ms: it says when the connector processed the event, and a re-emitted\n");
    y.append("  #   event carries another.\n");
    y.append("  sequenceBy: ").append(list(e.sequenceBy())).append('\n');
    y.append("  # op in the sample: ").append(e.opEvidence()).append(".\n");
    y.append("  # r, c and u are upserts.\n");
    y.append("  applyAsDeletes: ").append(quoted(e.applyAsDeletes())).append('\n');
    y.append("  applyAsTruncates: ")
        .append(quoted(e.applyAsTruncates()))
        .append("   # current state only: remove it for storedAsScdType: 2\n");
    y.append("  # columnList: the row's fields land in silver (and the log position, as the\n");
    y.append("  # sequence); ").append(e.opColumn()).append(" does not.\n");
    y.append("  columnList: ").append(list(e.columnList())).append('\n');
    if (e.ignoreNullUpdates()) {
      y.append("  # ignoreNullUpdates: a null in an update keeps the stored value, so a column\n");
      y.append(
          "  # Debezium marks unavailable keeps it. It applies to every column: a column really\n");
      y.append(
          "  # set to null keeps its stored value too; where that matters, use REPLICA IDENTITY\n");
      y.append("  # FULL on the table instead.\n");
      y.append("  ignoreNullUpdates: true\n");
    }
    y.append(
        "  onConflict: fail        # same key and sequence, different payload: fail | quarantine\n");
    y.append(
        "  onInvalid: fail         # null key or sequence, malformed line: fail | quarantine\n");
  }

  /** A flow sequence of column names: {@code [id, status]}. */
  private static String list(List<String> names) {
    return "[" + String.join(", ", names.stream().map(DraftYaml::plain).toList()) + "]";
  }

  /** A column name as a YAML scalar: plain when it reads back as itself, else double-quoted. */
  private static String plain(String name) {
    return name.matches("[A-Za-z_][A-Za-z0-9_]*")
            && !YAML_WORDS.contains(name.toLowerCase(Locale.ROOT))
        ? name
        : quoted(name);
  }

  /** A double-quoted YAML scalar. */
  private static String quoted(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static void appendCandidates(StringBuilder y, List<Candidate> found, String none) {
    if (found.isEmpty()) {
      y.append("  #   (none: ").append(none).append(")\n");
    }
    for (Candidate c : found) {
      y.append("  #   [")
          .append(String.join(", ", c.columns()))
          .append("]  ")
          .append(c.evidence())
          .append('\n');
    }
  }
}
