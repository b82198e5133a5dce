package io.replaysafe.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * {@code silver.columns} as a contract: the issue's exact YAML, what the derived columns are, and
 * every reason an expression is refused when the file is loaded (column, expression, why).
 */
class DerivedColumnsConfigTest {
  /** A Debezium envelope as the PostgreSQL connector writes it (JSON, schemas off). */
  static final String ENVELOPE =
      "before STRUCT<id: BIGINT, status: STRING, total: DECIMAL(10,2)>, after STRUCT<id: BIGINT,"
          + " status: STRING, total: DECIMAL(10,2)>, source STRUCT<lsn: BIGINT, ts_ms: BIGINT>,"
          + " op STRING, ts_ms BIGINT";

  static final String COLUMNS =
      """
        columns:
          id: "coalesce(after.id, before.id)"
          lsn: "source.lsn"
          status: "after.status"
          total: "after.total"
          op: "op"
      """;

  static String pipeline(String columns, String rest) {
    return """
        name: orders
        source:
          path: /data/landing/orders
          schema: "%s"
        bronze:
          path: /lake/bronze/orders
          checkpoint: /lake/_checkpoints/bronze/orders
        silver:
          path: /lake/silver/orders
          checkpoint: /lake/_checkpoints/silver/orders
        %s%s"""
        .formatted(ENVELOPE, columns, rest.indent(2));
  }

  static final String CONTRACT =
      """
      keys: [id]
      sequenceBy: [lsn]
      applyAsDeletes: "op = 'd'"
      applyAsTruncates: "op = 't'"
      columnList: [id, status, total]
      """;

  @Test
  void theIssuesPipelineFileDerivesTheBusinessColumns() {
    PipelineConfig config = ConfigLoader.parse("p", pipeline(COLUMNS, CONTRACT));
    SilverConfig silver = config.requireSilver();
    assertThat(silver.columns())
        .containsExactly(
            java.util.Map.entry("id", "coalesce(after.id, before.id)"),
            java.util.Map.entry("lsn", "source.lsn"),
            java.util.Map.entry("status", "after.status"),
            java.util.Map.entry("total", "after.total"),
            java.util.Map.entry("op", "op"));
    assertThat(config.businessSchema().toDDL())
        .isEqualTo("id BIGINT,lsn BIGINT,status STRING,total DECIMAL(10,2),op STRING");
    assertThat(config.businessColumns()).containsExactly("id", "lsn", "status", "total", "op");
    assertThat(config.sourceColumns()).containsExactly("before", "after", "source", "op", "ts_ms");
    // The default payload: derived columns that are neither key nor sequence; no envelope column.
    assertThat(config.payloadColumns()).containsExactly("status", "total", "op");
    assertThat(config.silverColumns()).containsExactly("id", "lsn", "status", "total");
  }

  @Test
  void withoutColumnsTheSourceSchemaIsTheBusinessSchema() {
    PipelineConfig config =
        ConfigLoader.parse("p", ConfigLoaderTest.MINIMAL + ConfigLoaderTest.SILVER);
    assertThat(config.requireSilver().columns()).isEmpty();
    assertThat(config.requireSilver().derives()).isFalse();
    assertThat(config.businessSchema()).isEqualTo(config.source().schema());
    assertThat(config.payloadColumns()).containsExactly("status", "op");
  }

  @Test
  void envelopeColumnsAreNotTheContractsColumns() {
    assertThatThrownBy(
            () -> ConfigLoader.parse("p", pipeline(COLUMNS, CONTRACT + "payloadColumns: [after]")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p: silver.payloadColumns names column 'after', which silver.columns"
                + " does not derive; derived columns are [id, lsn, status, total, op]; with"
                + " silver.columns set, the contract reads the derived columns only: derive it or"
                + " fix the name");
  }

  @Test
  void anExpressionThatDoesNotParseNamesColumnExpressionAndWhy() {
    assertThatThrownBy(() -> load("id", "coalesce(after.id,"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "Pipeline file p: silver.columns.id \"coalesce(after.id,\" cannot be derived: it does"
                + " not parse: [PARSE_SYNTAX_ERROR] Syntax error at or near end of input")
        .hasMessageEndingWith(
            "; write a deterministic Spark SQL expression over source.schema's columns");
  }

  @Test
  void anExpressionMustResolveAgainstTheSourceSchemaNotProvenance() {
    assertThatThrownBy(() -> load("id", "after.order_id"))
        .hasMessageStartingWith(
            "Pipeline file p: silver.columns.id \"after.order_id\" cannot be derived: it does not"
                + " resolve against source.schema: [FIELD_NOT_FOUND]");
    assertThatThrownBy(() -> load("file", "source_file"))
        .hasMessageStartingWith(
            "Pipeline file p: silver.columns.file \"source_file\" cannot be derived: it does not"
                + " resolve against source.schema: [UNRESOLVED_COLUMN.WITH_SUGGESTION]")
        .hasMessageContaining("(provenance, rescued and internal columns cannot be read)");
    assertThatThrownBy(() -> load("r", "_rescued_data"))
        .hasMessageContaining(
            "silver.columns.r \"_rescued_data\" cannot be derived: it does not"
                + " resolve against source.schema");
  }

  @Test
  void anExpressionMustBeDeterministicAndBuiltIn() {
    assertThatThrownBy(() -> load("id", "cast(rand() * 10 AS BIGINT)"))
        .hasMessage(
            "Pipeline file p: silver.columns.id \"cast(rand() * 10 AS BIGINT)\" cannot be"
                + " derived: it is not deterministic: silver must derive the same value whenever"
                + " it reads the row, or a replay would be a conflict; write a deterministic Spark"
                + " SQL expression over source.schema's columns");
    assertThatThrownBy(() -> load("status", "concat(after.status, current_timestamp())"))
        .hasMessageContaining(
            "silver.columns.status \"concat(after.status, current_timestamp())\" cannot be"
                + " derived: it is not deterministic (current_timestamp() depends on when it"
                + " runs)");
    assertThatThrownBy(() -> load("status", "my_udf(after.status)"))
        .hasMessageContaining(
            "silver.columns.status \"my_udf(after.status)\" cannot be derived: 'my_udf' is not a"
                + " built-in Spark SQL function (user-defined functions are not allowed");
  }

  @Test
  void aDerivedTypeMustFitItsRole() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p",
                    pipeline(COLUMNS.replace("coalesce(after.id, before.id)", "after"), CONTRACT)))
        .hasMessage(
            "Pipeline file p: silver.keys column 'id' (derived as \"after\") is"
                + " struct<id:bigint,status:string,total:decimal(10,2)>; a key must be a string,"
                + " number, boolean, date or timestamp column");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p", pipeline(COLUMNS.replace("source.lsn", "op = 'u'"), CONTRACT)))
        .hasMessageStartingWith(
            "Pipeline file p: silver.sequenceBy column 'lsn' (derived as \"op = 'u'\") is"
                + " boolean, which has no meaningful order");
    assertThatThrownBy(() -> load("status", "null"))
        .hasMessageContaining(
            "silver.columns.status \"null\" cannot be derived: it yields VOID, which silver cannot"
                + " store (a bare NULL has no type: cast it, e.g. CAST(NULL AS STRING))");
  }

  @Test
  void derivedNamesFollowTheReservedNameRule() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse("p", pipeline(COLUMNS + "    source_file: \"op\"\n", CONTRACT)))
        .hasMessageStartingWith(
            "Pipeline file p: silver.columns declares column 'source_file', a name reserved by the"
                + " ingestion contract: it clashes with ");
  }

  @Test
  void anEmptyBlockOrABlankExpressionIsRefused() {
    assertThatThrownBy(() -> ConfigLoader.parse("p", pipeline("  columns: {}\n", CONTRACT)))
        .hasMessageStartingWith("Pipeline file p: silver.columns is empty; map each derived");
    assertThatThrownBy(() -> load("status", " "))
        .hasMessageStartingWith("Pipeline file p: silver.columns.status has no expression");
  }

  /** The issue's block with {@code column} derived as {@code expression}. */
  private static PipelineConfig load(String column, String expression) {
    String columns =
        COLUMNS.contains("  " + column + ":")
            ? COLUMNS.replaceAll("(?m)^(\\s+" + column + "): .*$", "$1: \"" + expression + "\"")
            : COLUMNS + "    " + column + ": \"" + expression + "\"\n";
    return ConfigLoader.parse("p", pipeline(columns, CONTRACT));
  }
}
