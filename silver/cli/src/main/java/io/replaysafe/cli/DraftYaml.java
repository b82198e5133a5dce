package io.replaysafe.cli;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.config.StoragePaths;
import io.replaysafe.jobs.PipelineDraft.Draft;
import io.replaysafe.silver.draft.Candidate;
import java.util.List;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A {@link Draft} as the commented pipeline file {@code replaysafe init} writes: every section
 * explained, the candidates listed above the keys and sequence they are candidates for.
 */
final class DraftYaml {
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
        .append(d.corruptRows() > 0 ? ", " + d.corruptRows() + " of them not JSON objects" : "")
        .append(") under ")
        .append(d.source())
        .append(".\n");
    y.append("# THIS FILE DOES NOT RUN YET: choose silver.keys and silver.sequenceBy below (the\n");
    y.append("# candidates found in the sample are listed above each, with the evidence), then\n");
    y.append("# dry-run it: replaysafe plan --config <this file>\n");
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
    y.append("  format: json             # JSON lines\n");
    y.append(
        "  # Spark's JSON schema inference over the sample, as DDL: review it. Whole numbers\n");
    y.append("  # are BIGINT, fractions DOUBLE; timestamps stay STRING until you declare them\n");
    y.append("  # TIMESTAMP. A field the schema does not declare is kept in _rescued_data.\n");
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
