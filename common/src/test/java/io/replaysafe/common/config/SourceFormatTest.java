package io.replaysafe.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code source.format} as a contract: the formats accepted, their spelling, and the refusal. */
class SourceFormatTest {
  static PipelineConfig withFormat(String format) {
    return ConfigLoader.parse(
        "t", ConfigLoaderTest.MINIMAL.replace("  schema:", "  format: " + format + "\n  schema:"));
  }

  /** A csv source with these lines of YAML under {@code source} (each ending in a line break). */
  static PipelineConfig csv(String lines) {
    return ConfigLoader.parse(
        "t",
        ConfigLoaderTest.MINIMAL.replace("  schema:", "  format: csv\n" + lines + "  schema:"));
  }

  @Test
  void parquetAndAvroAreAcceptedInAnyCaseAndKeptLowerCase() {
    assertThat(withFormat("parquet").source().format()).isEqualTo("parquet");
    assertThat(withFormat("Parquet").source().fileFormat()).isEqualTo(SourceFormat.PARQUET);
    assertThat(withFormat("AVRO").source().format()).isEqualTo("avro");
    assertThat(withFormat("CSV").source().fileFormat()).isEqualTo(SourceFormat.CSV);
    assertThat(withFormat("json").source().fileFormat()).isEqualTo(SourceFormat.JSON);
    assertThat(ConfigLoader.parse("t", ConfigLoaderTest.MINIMAL).source().fileFormat())
        .isEqualTo(SourceFormat.JSON);
  }

  @Test
  void onlyParquetAndAvroCarryTheirOwnSchema() {
    assertThat(SourceFormat.JSON.selfDescribing()).isFalse();
    assertThat(SourceFormat.CSV.selfDescribing()).isFalse();
    assertThat(SourceFormat.PARQUET.selfDescribing()).isTrue();
    assertThat(SourceFormat.AVRO.selfDescribing()).isTrue();
  }

  @Test
  void anotherFormatIsRefusedNamingKeyValueAndTheFormatsThatAre() {
    assertThatThrownBy(() -> withFormat("orc"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "source.format 'orc' is not supported; give json (JSON lines), parquet, avro or csv"
                + " (bronze/README.md, Formats)");
  }

  @Test
  void csvDefaultsToAHeaderCommasDoubleQuotesBackslashEscapesAndUtf8() {
    SourceConfig source = csv("").source();
    assertThat(source.fileFormat()).isEqualTo(SourceFormat.CSV);
    assertThat(source.options().csv()).isEqualTo(new CsvOptions(true, ",", '"', '\\', "UTF-8"));
    assertThat(source.options().csv()).isEqualTo(CsvOptions.DEFAULT);
  }

  @Test
  void csvOptionsAreReadUnderSparksNamesAndAliasesAndTheCloudFilesPrefix() {
    SourceConfig source =
        csv("  options:\n    header: false\n    delimiter: \"|\"\n    quote: \"'\"\n"
                + "    cloudFiles.escape: \"'\"\n    charset: ISO-8859-1\n")
            .source();
    assertThat(source.options().csv())
        .isEqualTo(new CsvOptions(false, "|", '\'', '\'', "ISO-8859-1"));
    assertThat(source.options().csv().sparkOptions())
        .containsExactly(
            Map.entry("header", "false"),
            Map.entry("sep", "|"),
            Map.entry("quote", "'"),
            Map.entry("escape", "'"),
            Map.entry("encoding", "ISO-8859-1"));
    // Not handed to Spark's file source: they are bronze's own to read.
    assertThat(source.options().sparkOptions()).doesNotContainKeys("header", "delimiter");
  }

  @Test
  void badCsvOptionsAreRefusedAtLoadNamingKeyAndValue() {
    assertThatThrownBy(() -> csv("  options:\n    header: maybe\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("source.options.header 'maybe' is not a boolean; give true or false");
    assertThatThrownBy(() -> csv("  options:\n    quote: \"ab\"\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("source.options.quote 'ab' is not one character");
    assertThatThrownBy(() -> csv("  options:\n    sep: \"\"\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("source.options.sep '' is empty");
    assertThatThrownBy(() -> csv("  options:\n    sep: \",\"\n    delimiter: \";\"\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("source.options sets both sep and delimiter");
    assertThatThrownBy(() -> csv("  options:\n    encoding: klingon-8\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "source.options.encoding 'klingon-8' is not a character set this JVM knows");
  }

  @Test
  void csvOptionsWithAnotherFormatAreRefused() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "t",
                    ConfigLoaderTest.MINIMAL.replace(
                        "  schema:", "  options:\n    header: true\n  schema:")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "source.options.header is a CSV option, but source.format is json; remove it, or set"
                + " source.format: csv");
  }

  @Test
  void csvRefusesNestedAndVariantColumnsNamingThem() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "t",
                    ConfigLoaderTest.MINIMAL.replace(
                        "  schema: \"order_id BIGINT,",
                        "  format: csv\n  schema: \"tags ARRAY<STRING>, order_id BIGINT,")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "source.schema column 'tags' has type ARRAY<STRING>, which bronze cannot read from"
                + " CSV (source.format: csv): a CSV value is flat text; declare it STRING");
  }
}
