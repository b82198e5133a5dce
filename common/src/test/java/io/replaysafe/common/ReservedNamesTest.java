package io.replaysafe.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.config.ConfigLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every name replaysafe writes or reads for itself is refused as a source column when the pipeline
 * file is loaded, whatever its case, with a message naming the column, what it clashes with and the
 * list.
 */
class ReservedNamesTest {
  private static final String LIST =
      ". Reserved names: "
          + ReservedNames.all()
          + " and every name starting with '__' (case is ignored); rename it (a producer's field"
          + " of that name then lands in the rescued-data column)";

  private static String pipeline(String schema, String rescued) {
    return """
        name: orders
        source:
          path: /data/landing/orders
          schema: "order_id BIGINT, %s"
        %s
        bronze:
          path: /lake/bronze/orders
          checkpoint: /lake/_checkpoints/bronze/orders
        silver:
          path: /lake/silver/orders
          checkpoint: /lake/_checkpoints/silver/orders
          keys: [order_id]
          sequenceBy: [version]
        """
        .formatted(
            schema + ", version BIGINT", rescued == null ? "" : "  rescuedDataColumn: " + rescued);
  }

  private static List<String> threeCases(String name) {
    String mixed =
        name.substring(0, name.length() - 1).toUpperCase(Locale.ROOT)
            + name.substring(name.length() - 1).toLowerCase(Locale.ROOT);
    return List.of(name.toLowerCase(Locale.ROOT), name.toUpperCase(Locale.ROOT), mixed);
  }

  @Test
  void everyReservedNameInThreeCasesIsRefusedAtLoadNamingTheColumnAndTheList() {
    List<String> tried = new ArrayList<>();
    for (String reserved : ReservedNames.all()) {
      for (String column : threeCases(reserved)) {
        String expectedClash = ReservedNames.clash(column, "_rescued_data").orElseThrow();
        assertThatThrownBy(
                () -> ConfigLoader.parse("p", pipeline("`" + column + "` STRING", null)), column)
            .isInstanceOf(ConfigException.class)
            .hasMessage(
                "Pipeline file p: source.schema declares column '"
                    + column
                    + "', a name reserved by the ingestion contract: it clashes with "
                    + expectedClash
                    + LIST);
        tried.add(column);
      }
    }
    assertThat(tried).hasSize(3 * ReservedNames.all().size()).hasSizeGreaterThan(150);
  }

  @Test
  void theListHoldsTheNamesOfEveryLayer() {
    assertThat(ReservedNames.all())
        .contains(
            "_corrupt_record",
            "_corrupt_record_base64",
            "_rescued_data",
            "source_file",
            "ingested_at",
            "_change_type",
            "_commit_version",
            "_commit_timestamp",
            "__payload_hash",
            "__deleted_at",
            "__START_AT",
            "__END_AT",
            "__force_delete",
            "__waived",
            "__raw_payload")
        .doesNotHaveDuplicates();
  }

  @Test
  void clashSaysWhatANameClashesWith() {
    assertThat(ReservedNames.clash("__Force_Delete"))
        .contains(
            "'__force_delete' (an operation's decision column (a release or reconcile sets it))");
    assertThat(ReservedNames.clash("Source_File"))
        .contains("'source_file' (bronze's provenance column)");
    assertThat(ReservedNames.clash("_CHANGE_TYPE"))
        .contains("'_change_type' (Delta's change-feed column)");
    assertThat(ReservedNames.clash("__start_at")).contains("'__START_AT' (SCD2's validity column)");
    assertThat(ReservedNames.clash("__my_column"))
        .contains("the prefix '__' (replaysafe's working columns)");
    assertThat(ReservedNames.clash("order_id")).isEqualTo(Optional.empty());
    assertThat(ReservedNames.clash("_source_file")).isEmpty();
    assertThat(ReservedNames.clash("Raw", "raw"))
        .contains("'raw' (this pipeline's rescued-data column)");
  }

  @Test
  void aNewWorkingColumnIsCoveredByThePrefixRule() {
    assertThatThrownBy(() -> ConfigLoader.parse("p", pipeline("__Later STRING", null)))
        .hasMessage(
            "Pipeline file p: source.schema declares column '__Later', a name reserved by the"
                + " ingestion contract: it clashes with the prefix '__' (replaysafe's working"
                + " columns)"
                + LIST);
  }

  @Test
  void theRescuedColumnIsReservedInAnyCaseAndMayNotTakeAReservedName() {
    assertThatThrownBy(() -> ConfigLoader.parse("p", pipeline("EXTRAS STRING", "extras")))
        .hasMessage(
            "Pipeline file p: source.schema declares column 'EXTRAS', a name reserved by the"
                + " ingestion contract: it clashes with 'extras' (this pipeline's rescued-data"
                + " column)"
                + LIST);
    assertThatThrownBy(() -> ConfigLoader.parse("p", pipeline("status STRING", "__waived")))
        .hasMessage(
            "Pipeline file p: source.rescuedDataColumn declares column '__waived', a name reserved"
                + " by the ingestion contract: it clashes with '__waived' (an operation's decision"
                + " column (a release or reconcile sets it))"
                + LIST);
    assertThat(
            ConfigLoader.parse("p", pipeline("status STRING", "extras"))
                .source()
                .schema()
                .fieldNames())
        .containsExactly("order_id", "status", "version");
  }
}
