package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every note as reports, the run log's readers and the CLI print it, with its kind. */
class NoteTest {

  static Stream<Arguments> notes() {
    return Stream.of(
        Arguments.of(
            Note.invalid("s3://b/f1.json", "missing key order_id"),
            Note.Kind.INVALID,
            "invalid row in s3://b/f1.json (missing key order_id): quarantined"),
        Arguments.of(
            Note.conflict("key 101 sequence 2 has 2 different payloads in batch 0 (hashes a, b)"),
            Note.Kind.CONFLICT,
            "key 101 sequence 2 has 2 different payloads in batch 0 (hashes a, b): quarantined"),
        Arguments.of(
            Note.ofAction(MergeAction.OLDER, "101", "1", "{\"v\":2}"),
            Note.Kind.OLDER,
            "key 101 sequence 1: older than the stored version {\"v\":2}, ignored"),
        Arguments.of(
            Note.ofAction(MergeAction.OLDER, "101", "1", null),
            Note.Kind.OLDER,
            "key 101 sequence 1: older than the stored version , ignored"),
        Arguments.of(
            Note.ofAction(MergeAction.RETRY, "101", "2", "{\"v\":2}"),
            Note.Kind.RETRY,
            "key 101 sequence 2: exact retry of the stored version, no change"),
        Arguments.of(
            Note.ofAction(MergeAction.DELETE, "101", "3", "{\"v\":2}"),
            Note.Kind.DELETE,
            "key 101 sequence 3: deleted (tombstone kept)"),
        Arguments.of(
            Note.ofAction(MergeAction.TOMBSTONE_ONLY, "7", "1", null),
            Note.Kind.TOMBSTONE_ONLY,
            "key 7 sequence 1: delete of a key silver does not hold, tombstone kept"),
        Arguments.of(
            Note.storedEvents(3),
            Note.Kind.STORED_EVENTS,
            "3 event(s) already in the history: exact retries, no change"),
        Arguments.of(
            Note.truncates(1, "[4]"),
            Note.Kind.TRUNCATE,
            "1 truncate event(s); rows older than [4] removed"),
        Arguments.of(
            Note.more(), Note.Kind.MORE, "... more decisions not listed; the counts are exact"));
  }

  @ParameterizedTest
  @MethodSource("notes")
  void rendersTodaysText(Note note, Note.Kind kind, String text) {
    assertThat(note.kind()).isEqualTo(kind);
    assertThat(note.text()).isEqualTo(text);
    assertThat(note).hasToString(text);
  }

  @Test
  void actionNotesCarryKeyAndSequence() {
    assertThat(Note.ofAction(MergeAction.RETRY, "101", "2", null))
        .extracting(Note::key, Note::sequence)
        .containsExactly("101", "2");
  }

  @Test
  void writesAreNotNoted() {
    for (MergeAction a :
        new MergeAction[] {MergeAction.INSERT, MergeAction.UPDATE, MergeAction.REVIVE}) {
      assertThat(Note.ofAction(a, "1", "1", null)).as(a.name()).isNull();
    }
  }
}
