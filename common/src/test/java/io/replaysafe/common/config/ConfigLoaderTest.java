package io.replaysafe.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pipeline file as a contract: every default, every key, every cross-field rule. */
class ConfigLoaderTest {
  static final String MINIMAL =
      """
      name: orders
      source:
        path: /data/landing/orders
        schema: "order_id BIGINT, source_version BIGINT, status STRING, op STRING"
      bronze:
        path: /lake/bronze/orders
        checkpoint: /lake/_checkpoints/bronze/orders
      """;

  static final String SILVER =
      """
      silver:
        path: /lake/silver/orders
        checkpoint: /lake/_checkpoints/silver/orders
        keys: [order_id]
        sequenceBy: [source_version]
      """;

  @Test
  void minimalFileGetsDocumentedDefaults() {
    PipelineConfig config = ConfigLoader.parse("t", MINIMAL);
    assertThat(config.name()).isEqualTo("orders");
    assertThat(config.storage()).isEmpty();
    assertThat(config.source().format()).isEqualTo("json");
    assertThat(config.source().rescuedDataColumn()).isEqualTo("_rescued_data");
    assertThat(config.source().schemaEvolutionMode()).isEqualTo(SchemaEvolutionMode.RESCUE);
    assertThat(config.source().options().sparkOptions())
        .isEqualTo(
            Map.of(
                "recursiveFileLookup", "true", "maxFileAge", SourceOptions.MAX_FILE_AGE_DEFAULT));
    assertThat(config.source().schema().fieldNames())
        .containsExactly("order_id", "source_version", "status", "op");
    assertThat(config.source().maxLineBytes()).isEqualTo(128L * 1024 * 1024);
    assertThat(config.silver()).isEmpty();
  }

  @Test
  void maxLineBytesTakesBytesOrABinaryUnit() {
    for (var entry :
        Map.of(
                "1024", 1024L,
                "\"512k\"", 512L << 10,
                "64m", 64L << 20,
                "\"128 MB\"", 128L << 20,
                "1g", 1L << 30,
                "1", 1L)
            .entrySet()) {
      PipelineConfig config =
          ConfigLoader.parse(
              "p", MINIMAL.replace("bronze:", "  maxLineBytes: " + entry.getKey() + "\nbronze:"));
      assertThat(config.source().maxLineBytes()).as(entry.getKey()).isEqualTo(entry.getValue());
    }
  }

  @Test
  void maxLineBytesOutsideItsRangeIsRefusedWhenTheConfigIsLoaded() {
    for (String value : List.of("0", "-5", "1025m", "2g", "99999999999999999g")) {
      assertThatThrownBy(
              () ->
                  ConfigLoader.parse(
                      "p", MINIMAL.replace("bronze:", "  maxLineBytes: " + value + "\nbronze:")))
          .as(value)
          .isInstanceOf(ConfigException.class)
          .hasMessage(
              "Pipeline file p: source.maxLineBytes '"
                  + value
                  + "' is out of range; give a size from 1 byte to 1g (1073741824); the default"
                  + " is 128m (134217728)");
    }
    for (String value : List.of("lots", "1.5m", "12t", "[1]")) {
      assertThatThrownBy(
              () ->
                  ConfigLoader.parse(
                      "p", MINIMAL.replace("bronze:", "  maxLineBytes: " + value + "\nbronze:")))
          .as(value)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("Pipeline file p: source.maxLineBytes '")
          .hasMessageEndingWith(
              "' is not a size; write a number of bytes (134217728) or a number with a binary"
                  + " unit (128m, 1g)");
    }
  }

  @Test
  void fullFileFromTheIssueParses() {
    PipelineConfig config =
        ConfigLoader.parse(
            "t",
            """
            name: orders
            storage:
              endpoint: http://127.0.0.1:9000
              region: eu-west-1
              pathStyleAccess: true
            source:
              path: s3a://landing/orders/
              format: json
              schema: "order_id BIGINT, source_version BIGINT, status STRING, op STRING"
              rescuedDataColumn: _rescued_data
              options:
                maxFilesPerTrigger: 1000
                pathGlobFilter: "*.json*"
            bronze:
              path: s3a://lake/bronze/orders
              checkpoint: s3a://lake/_checkpoints/bronze/orders
            silver:
              path: s3a://lake/silver/orders
              checkpoint: s3a://lake/_checkpoints/silver/orders
              quarantinePath: s3a://lake/quarantine/orders
              keys: [order_id]
              keyNormalization: none
              sequenceBy: [source_version]
              payloadColumns: [status]
              floatScale: 6
              applyAsDeletes: "op = 'DELETE'"
              exceptColumnList: [op]
              storedAsScdType: 1
              onConflict: quarantine
              onInvalid: fail
              tombstoneRetention: 30 days
            """);
    assertThat(config.storage())
        .contains(StorageConfig.of("http://127.0.0.1:9000", "eu-west-1", true));
    assertThat(config.source().options().sparkOptions())
        .isEqualTo(
            Map.of(
                "maxFilesPerTrigger", "1000",
                "pathGlobFilter", "*.json*",
                "recursiveFileLookup", "true",
                "maxFileAge", SourceOptions.MAX_FILE_AGE_DEFAULT));
    SilverConfig silver = config.requireSilver();
    assertThat(silver.quarantinePath()).isEqualTo("s3a://lake/quarantine/orders");
    assertThat(silver.runsPath()).isEqualTo("s3a://lake/silver/orders_runs");
    assertThat(silver.keyNormalization())
        .containsExactlyEntriesOf(Map.of("order_id", KeyNormalizer.NONE));
    assertThat(silver.applyAsDeletes()).contains("op = 'DELETE'");
    assertThat(silver.onConflict()).isEqualTo(Policy.QUARANTINE);
    assertThat(silver.onInvalid()).isEqualTo(Policy.FAIL);
    assertThat(silver.tombstoneRetention()).isEqualTo(Duration.ofDays(30));
    assertThat(config.payloadColumns()).containsExactly("status");
    assertThat(config.silverColumns()).containsExactly("order_id", "source_version", "status");
  }

  @Test
  void silverDefaults() {
    SilverConfig silver = ConfigLoader.parse("t", MINIMAL + SILVER).requireSilver();
    assertThat(silver.quarantinePath()).isEqualTo("/lake/silver/orders_quarantine");
    assertThat(silver.floatScale()).isEqualTo(6);
    assertThat(silver.storedAsScdType()).isEqualTo(1);
    assertThat(silver.onConflict()).isEqualTo(Policy.FAIL);
    assertThat(silver.onInvalid()).isEqualTo(Policy.FAIL);
    assertThat(silver.applyAsDeletes()).isEqualTo(Optional.empty());
    assertThat(silver.tombstoneRetention()).isEqualTo(Duration.ofDays(30));
    PipelineConfig config = ConfigLoader.parse("t", MINIMAL + SILVER);
    assertThat(config.payloadColumns()).containsExactly("status", "op");
    assertThat(config.silverColumns())
        .containsExactly("order_id", "source_version", "status", "op");
  }

  @Test
  void perKeyNormalization() {
    SilverConfig silver =
        ConfigLoader.parse(
                "t",
                """
                name: c
                source:
                  path: /l
                  schema: "region STRING, code STRING, seq BIGINT, v STRING"
                bronze: {path: /b, checkpoint: /c}
                silver:
                  path: /s
                  checkpoint: /sc
                  keys: [region, code]
                  keyNormalization: {code: upper_trim}
                  sequenceBy: [seq]
                """)
            .requireSilver();
    assertThat(silver.keyNormalization())
        .isEqualTo(Map.of("region", KeyNormalizer.NONE, "code", KeyNormalizer.UPPER_TRIM));
    assertThat(List.copyOf(silver.keyNormalization().keySet())).containsExactly("region", "code");
  }

  @Test
  void triggerDefaultsToAvailableNowEveryMinuteAndTakesContinuousWithAnInterval() {
    assertThat(ConfigLoader.parse("t", MINIMAL).trigger())
        .isEqualTo(new TriggerConfig(TriggerConfig.Mode.AVAILABLE_NOW, Duration.ofMinutes(1)));
    TriggerConfig continuous =
        ConfigLoader.parse("t", MINIMAL + "trigger: {mode: continuous, interval: '10 seconds'}\n")
            .trigger();
    assertThat(continuous)
        .isEqualTo(new TriggerConfig(TriggerConfig.Mode.CONTINUOUS, Duration.ofSeconds(10)));
    assertThat(continuous.describe()).isEqualTo("continuous every 10 second(s)");
    assertThat(ConfigLoader.parse("t", MINIMAL + "trigger: {mode: continuous}\n").trigger())
        .isEqualTo(new TriggerConfig(TriggerConfig.Mode.CONTINUOUS, Duration.ofMinutes(1)));
  }

  @Test
  void triggerErrorsNameTheKeyAndTheFix() {
    assertThatThrownBy(() -> ConfigLoader.parse("p", MINIMAL + "trigger: {mode: streaming}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p: trigger.mode 'streaming' is unknown; use one of [availableNow,"
                + " continuous]");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p", MINIMAL + "trigger: {mode: continuous, interval: '0 seconds'}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p: trigger.interval '0 seconds' is shorter than a second; write e.g."
                + " '10 seconds' or '1 minute'");
  }

  @Test
  void maintenanceIsOffByDefaultAndTakesACadenceAndARetention() {
    assertThat(ConfigLoader.parse("t", MINIMAL + SILVER).maintenance())
        .isEqualTo(MaintenanceConfig.NONE);
    assertThat(MaintenanceConfig.NONE.enabled()).isFalse();
    MaintenanceConfig both =
        ConfigLoader.parse(
                "t",
                MINIMAL + SILVER + "maintenance: {optimizeEvery: 1 day, vacuumRetention: 7 days}\n")
            .maintenance();
    assertThat(both)
        .isEqualTo(
            new MaintenanceConfig(
                Optional.of(Duration.ofDays(1)), Optional.of(Duration.ofDays(7))));
    assertThat(both.enabled()).isTrue();
    assertThat(
            ConfigLoader.parse("t", MINIMAL + SILVER + "maintenance: {optimizeEvery: '1 second'}\n")
                .maintenance())
        .isEqualTo(new MaintenanceConfig(Optional.of(Duration.ofSeconds(1)), Optional.empty()));
  }

  @Test
  void maintenanceErrorsNameTheKeyAndTheFix() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse("p", MINIMAL + SILVER + "maintenance: {optimizeEvery: daily}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p: maintenance.optimizeEvery 'daily' is not a duration; write e.g."
                + " '30 days' or '12 hours'");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p", MINIMAL + SILVER + "maintenance: {optimizeEvery: '0 seconds'}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p: maintenance.optimizeEvery '0 seconds' is shorter than a second;"
                + " write e.g. '1 day'");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p",
                    MINIMAL
                        + SILVER
                        + "maintenance: {optimizeEvery: 1 day, vacuumRetention: 30 minutes}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p: maintenance.vacuumRetention '30 minutes' is shorter than an hour;"
                + " write e.g. '7 days'");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p", MINIMAL + SILVER + "maintenance: {vacuumRetention: 7 days}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p: maintenance.vacuumRetention is set without"
                + " maintenance.optimizeEvery; set maintenance.optimizeEvery (e.g. '1 day'):"
                + " VACUUM runs at its cadence");
    assertThatThrownBy(
            () -> ConfigLoader.parse("p", MINIMAL + "maintenance: {optimizeEvery: 1 day}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p: maintenance.optimizeEvery is set but pipeline 'orders' has no"
                + " silver section; add the silver section, or remove maintenance and run"
                + " 'replaysafe maintain'");
  }

  @Test
  void unknownKeyIsAnErrorNamingIt() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "pipeline.yaml",
                    MINIMAL.replace("  format", "  formt")
                        + "  rescuedDataColum: x\n".replace("  r", "")))
        .isInstanceOf(ConfigException.class);
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "pipeline.yaml", MINIMAL.replace("bronze:\n", "bronze:\n  checkpiont: /x\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("Pipeline file pipeline.yaml: unknown key 'bronze.checkpiont';")
        .hasMessageContaining("known keys there are [checkpoint, path]")
        .hasMessageEndingWith("Fix the spelling or remove it.");
    assertThatThrownBy(() -> ConfigLoader.parse("p.yaml", MINIMAL + "sliver:\n  path: /x\n"))
        .hasMessageStartingWith("Pipeline file p.yaml: unknown key 'sliver'");
  }

  @Test
  void silverColumnErrorsNameTheKeyAndTheFix() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p", MINIMAL + SILVER.replace("keys: [order_id]", "keys: [orderid]")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p: silver.keys names column 'orderid', which source.schema does not"
                + " declare; declared columns are [order_id, source_version, status, op]. Fix the"
                + " name or add the column to source.schema");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p",
                    MINIMAL.replace("op STRING", "op STRING, tags ARRAY<STRING>")
                        + SILVER.replace("sequenceBy: [source_version]", "sequenceBy: [tags]")))
        .hasMessage(
            "Pipeline file p: silver.sequenceBy column 'tags' is array<string>, which has no"
                + " meaningful order; use a number, date, timestamp or string column");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse("p", MINIMAL + SILVER + "  payloadColumns: [status, amount]\n"))
        .hasMessageContaining(
            "silver.payloadColumns names column 'amount', which source.schema does not declare");
  }

  @Test
  void sourceErrors() {
    assertThatThrownBy(
            () -> ConfigLoader.parse("p", MINIMAL.replace("BIGINT, status", "BIGINT status")))
        .hasMessageStartingWith(
            "Pipeline file p: source.schema \"order_id BIGINT, source_version BIGINT status")
        .hasMessageContaining("is not valid Spark DDL");
    assertThatThrownBy(
            () -> ConfigLoader.parse("p", MINIMAL.replace("op STRING", "source_file STRING")))
        .hasMessageContaining(
            "source.schema declares column 'source_file', a name reserved by the ingestion contract");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p",
                    MINIMAL.replace(
                        "bronze:", "  options:\n    includeExistingFiles: false\nbronze:")))
        .hasMessageContaining("source.options.includeExistingFiles: false is not supported");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p",
                    MINIMAL.replace("bronze:", "  options:\n    useNotifications: true\nbronze:")))
        .hasMessage(
            "Pipeline file p: source.options.useNotifications is not supported: file notification"
                + " mode is set with source.discovery: notifications and source.queueUrl, not as an"
                + " option");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p",
                    MINIMAL.replace("bronze:", "  schemaEvolutionMode: addNewColumns\nbronze:")))
        .hasMessageContaining("source.schemaEvolutionMode 'addNewColumns' is not supported");
  }

  @Test
  void pathsAreNormalised() {
    assertThat(StoragePaths.normalize("k", "s3://b/p")).isEqualTo("s3a://b/p");
    assertThat(StoragePaths.normalize("k", "file:///tmp/x")).isEqualTo("/tmp/x");
    assertThat(StoragePaths.normalize("k", "dbfs:/mnt/x")).isEqualTo("dbfs:/mnt/x");
    assertThatThrownBy(() -> StoragePaths.normalize("bronze.path", "s3a:///x"))
        .hasMessage("bronze.path 's3a:///x' has no bucket; write s3a://bucket/prefix");
  }

  @Test
  void keyNormalizersFollowTheSeed() {
    assertThat(KeyNormalizer.UPPER_TRIM.apply(" a ")).isEqualTo("A");
    assertThat(KeyNormalizer.NFKC_TRIM.apply("\u3000ＡＢ\u00a0")).isEqualTo("AB");
    assertThat(KeyNormalizer.NONE.apply(" a ")).isEqualTo(" a ");
  }

  private static String withSchema(String schema) {
    return MINIMAL.replace(
        "order_id BIGINT, source_version BIGINT, status STRING, op STRING", schema);
  }

  @Test
  void acceptsEverySupportedTypeNestedInAnyWay() {
    String schema =
        "a BOOLEAN, b TINYINT, c SMALLINT, d INT, e BIGINT, f FLOAT, g DOUBLE, h DECIMAL(38,10),"
            + " i STRING, j BINARY, k DATE, l TIMESTAMP, m TIMESTAMP_NTZ, n VARIANT,"
            + " o ARRAY<STRUCT<p: MAP<STRING, ARRAY<DECIMAL(5,2)>>>>,"
            + " q MAP<STRING, STRUCT<r: ARRAY<TIMESTAMP>>>";
    assertThat(ConfigLoader.parse("t", withSchema(schema)).source().schema().size()).isEqualTo(16);
  }

  @Test
  void refusesTypesTheParserCannotReadWhenTheConfigIsLoaded() {
    assertThatThrownBy(() -> ConfigLoader.parse("t", withSchema("a INTERVAL DAY")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "source.schema column 'a' has type INTERVAL DAY, which bronze cannot read from JSON:"
                + " Spark's JSON reader has no conversion for it that bronze could follow."
                + " Supported: BOOLEAN,");
    assertThatThrownBy(() -> ConfigLoader.parse("t", withSchema("s STRUCT<a: ARRAY<VOID>>")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("source.schema column 's.a[]' has type VOID");
    assertThatThrownBy(() -> ConfigLoader.parse("t", withSchema("m MAP<INT, STRING>")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("source.schema column 'm' is a map with non-string keys");
    assertThatThrownBy(() -> ConfigLoader.parse("t", withSchema("t TIME")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("source.schema column 't' has type TIME");
    assertThatThrownBy(() -> ConfigLoader.parse("t", withSchema("_corrupt_record_base64 STRING")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("declares column '_corrupt_record_base64', a name reserved");
  }

  @Test
  void aColumnListNamingAKeyOrSequenceColumnIsRefusedInsteadOfIgnored() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse("p", MINIMAL + SILVER + "  exceptColumnList: [op, order_id]\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p: silver.exceptColumnList names 'order_id', a key column: keys and"
                + " sequence columns always land in silver, so excluding one would be ignored;"
                + " remove 'order_id' from silver.exceptColumnList");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p", MINIMAL + SILVER + "  exceptColumnList: [source_version]\n"))
        .hasMessageStartingWith(
            "Pipeline file p: silver.exceptColumnList names 'source_version', a sequence column");
    String history = MINIMAL + SILVER + "  storedAsScdType: 2\n";
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p", history + "  trackHistoryColumnList: [status, source_version]\n"))
        .hasMessage(
            "Pipeline file p: silver.trackHistoryColumnList names 'source_version', a sequence"
                + " column: keys and sequence columns are never tracked as history (a new sequence"
                + " alone opens no version), so listing one would be ignored; remove"
                + " 'source_version' from silver.trackHistoryColumnList");
    assertThatThrownBy(
            () -> ConfigLoader.parse("p", history + "  trackHistoryExceptColumnList: [order_id]\n"))
        .hasMessage(
            "Pipeline file p: silver.trackHistoryExceptColumnList names 'order_id', a key column:"
                + " keys and sequence columns are never tracked as history, so excluding one"
                + " changes nothing; remove 'order_id' from silver.trackHistoryExceptColumnList");
    // A columnList that lists the key says what silver does: accepted.
    assertThat(
            ConfigLoader.parse("p", MINIMAL + SILVER + "  columnList: [order_id, status]\n")
                .silverColumns())
        .containsExactly("order_id", "source_version", "status");
  }
}
