package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 001 ("Your Delta MERGE Is Not a Mind Reader"): normalised keys, exact retries versus
 * contradictions, NULL payloads, invalid keys and sequences, empty input, float payloads.
 */
class Seed001KeyAndPayloadContractTest extends SparkTestBase {
  @TempDir Path dir;

  SilverHarness pipeline(String extra) {
    return new SilverHarness(
        spark,
        dir,
        "key STRING, sequence BIGINT, value STRING",
        "keys: [key]\nkeyNormalization: upper_trim\nsequenceBy: [sequence]\n" + extra);
  }

  static String row(String key, long sequence, String value) {
    return "{\"key\":\""
        + key
        + "\",\"sequence\":"
        + sequence
        + ",\"value\":"
        + (value == null ? "null" : "\"" + value + "\"")
        + "}";
  }

  @Test
  void spacesAndCaseInTheKeyIdentifyTheSameEntity() {
    SilverHarness p = pipeline("");
    p.deliver(row(" a ", 1, "old"), row("A", 2, "new"), row("A", 2, "new"));

    SilverResult result = p.run();

    assertThat(p.silverRows()).containsExactly("A|2|new");
    assertThat(result.batches())
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.exactRetries()).isEqualTo(1);
              assertThat(b.distinctKeys()).isEqualTo(1);
              assertThat(b.supersededInBatch()).isEqualTo(1);
            });
  }

  @Test
  void aFourthRowWithAnotherValueAtTheSameSequenceRejectsTheBatch() {
    SilverHarness p = pipeline("");
    p.deliver(row(" a ", 1, "old"), row("A", 2, "new"), row("A", 2, "new"), row("A", 2, "other"));

    assertThatThrownBy(p::run)
        .isInstanceOf(BatchRejectedException.class)
        .hasMessageContaining("key A sequence 2 has 2 different payloads in batch 0");
    assertThat(p.silverRows()).isEmpty();
  }

  @Test
  void aNullPayloadIsAValueNotADelete() {
    SilverHarness p = pipeline("");
    p.deliver(row("b", 1, null));

    p.run();

    assertThat(p.silverRows()).containsExactly("B|1|null");
  }

  @Test
  void aNullAndATextValueAtTheSameKeyAndSequenceConflict() {
    SilverHarness p = pipeline("");
    p.deliver(row("b", 1, null), row("B", 1, "text"));

    assertThatThrownBy(p::run)
        .isInstanceOf(BatchRejectedException.class)
        .hasMessageContaining("key B sequence 1 has 2 different payloads");
  }

  @Test
  void anEmptyStringAndANullAreDifferentPayloads() {
    SilverHarness p = pipeline("onConflict: quarantine\n");
    p.deliver(row("c", 1, ""), row("c", 1, null));

    p.run();

    assertThat(p.silverRows()).isEmpty();
    assertThat(rows(p.quarantine().select("reason", "key").distinct()))
        .containsExactly("CONFLICT_IN_BATCH|{\"key\":\"C\"}");
  }

  @Test
  void blankKeysAndNegativeSequencesAreInvalid() {
    SilverHarness p = pipeline("onInvalid: quarantine\n");
    p.deliver(row("   ", 1, "x"), row("d", -1, "x"), row("e", 1, "ok"));

    SilverResult result = p.run();

    assertThat(p.silverRows()).containsExactly("E|1|ok");
    assertThat(rows(p.quarantine().select("reason", "raw_key").orderBy("reason")))
        .containsExactly(
            "INVALID_BLANK_KEY|{\"key\":\"   \"}", "INVALID_NEGATIVE_SEQUENCE|{\"key\":\"d\"}");
    assertThat(result.total(BatchReport::invalid)).isEqualTo(2);
  }

  @Test
  void emptyInputChangesNothing() {
    SilverHarness p = pipeline("");
    p.deliver(row("a", 1, "x"));
    p.run();
    var before = p.silverContent();

    p.deliver("", "   ");
    SilverResult result = p.run();

    assertThat(result.batches()).isEmpty();
    assertThat(p.silverContent()).isEqualTo(before);
  }

  @Test
  void theHigherSequenceWinsWhateverTheArrivalOrder() {
    SilverHarness p = pipeline("");
    p.deliver(row("a", 3, "third"), row("a", 1, "first"), row("a", 2, "second"));

    p.run();

    assertThat(p.silverRows()).containsExactly("A|3|third");
  }

  @Test
  void floatsAreRoundedToTheAgreedScaleBeforeHashing() {
    SilverHarness p =
        new SilverHarness(
            spark,
            dir,
            "key STRING, sequence BIGINT, amount DOUBLE",
            "keys: [key]\nsequenceBy: [sequence]\nfloatScale: 6\nonConflict: quarantine\n");
    // 0.1 + 0.2 and 0.3 differ as doubles but are the same amount at scale 6: an exact retry.
    p.deliver(
        "{\"key\":\"a\",\"sequence\":1,\"amount\":0.30000000000000004}",
        "{\"key\":\"a\",\"sequence\":1,\"amount\":0.3}",
        // 0.30 and 0.31 are a real difference: a conflict.
        "{\"key\":\"b\",\"sequence\":1,\"amount\":0.30}",
        "{\"key\":\"b\",\"sequence\":1,\"amount\":0.31}");

    SilverResult result = p.run();

    assertThat(p.silverRows()).singleElement().asString().startsWith("a|1|0.3");
    assertThat(result.total(BatchReport::exactRetries)).isEqualTo(1);
    assertThat(result.total(BatchReport::conflictsInBatch)).isEqualTo(1);
  }
}
