package io.replaysafe.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.ConfigException;
import org.junit.jupiter.api.Test;

/** {@code source.format} as a contract: the formats accepted, their spelling, and the refusal. */
class SourceFormatTest {
  static PipelineConfig withFormat(String format) {
    return ConfigLoader.parse(
        "t", ConfigLoaderTest.MINIMAL.replace("  schema:", "  format: " + format + "\n  schema:"));
  }

  @Test
  void parquetAndAvroAreAcceptedInAnyCaseAndKeptLowerCase() {
    assertThat(withFormat("parquet").source().format()).isEqualTo("parquet");
    assertThat(withFormat("Parquet").source().fileFormat()).isEqualTo(SourceFormat.PARQUET);
    assertThat(withFormat("AVRO").source().format()).isEqualTo("avro");
    assertThat(withFormat("json").source().fileFormat()).isEqualTo(SourceFormat.JSON);
    assertThat(ConfigLoader.parse("t", ConfigLoaderTest.MINIMAL).source().fileFormat())
        .isEqualTo(SourceFormat.JSON);
  }

  @Test
  void onlyParquetAndAvroCarryTheirOwnSchema() {
    assertThat(SourceFormat.JSON.selfDescribing()).isFalse();
    assertThat(SourceFormat.PARQUET.selfDescribing()).isTrue();
    assertThat(SourceFormat.AVRO.selfDescribing()).isTrue();
  }

  @Test
  void anotherFormatIsRefusedNamingKeyValueAndTheFormatsThatAre() {
    assertThatThrownBy(() -> withFormat("csv"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "source.format 'csv' is not supported; give json (JSON lines), parquet or avro; csv"
                + " is not supported yet (bronze/README.md, Formats)");
    assertThatThrownBy(() -> withFormat("orc"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("source.format 'orc' is not supported");
  }
}
