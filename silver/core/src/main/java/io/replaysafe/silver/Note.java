package io.replaysafe.silver;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * One notable decision of a batch, in words for reports and logs ({@link #text}), with its kind so
 * that code can tell decisions apart without reading the words. JSON carries the text.
 *
 * @param key the key as reports print it, or null when the note is not about one key
 * @param sequence the sequence as reports print it, or null
 * @param text the note as printed: "key 101 sequence 1: exact retry of the stored version, ..."
 */
public record Note(Kind kind, String key, String sequence, @JsonValue String text) {

  /** What a note is about. */
  public enum Kind {
    /** An invalid row, quarantined. */
    INVALID,
    /** A key whose payloads conflict (in the batch or with the stored version), quarantined. */
    CONFLICT,
    /** A latest version older than the stored one, ignored. */
    OLDER,
    /** An exact retry of the stored version. */
    RETRY,
    /** A delete of a live key; the tombstone is kept. */
    DELETE,
    /** A delete of a key silver does not hold; the tombstone is kept. */
    TOMBSTONE_ONLY,
    /** Events of a history batch that the history already holds. */
    STORED_EVENTS,
    /** Truncate events applied. */
    TRUNCATE,
    /** Events of erased keys, ignored. */
    ERASED,
    /** More notes than a report lists. */
    MORE
  }

  public Note {
    java.util.Objects.requireNonNull(kind, "kind");
    java.util.Objects.requireNonNull(text, "text");
  }

  static Note invalid(String sourceFile, String message) {
    return new Note(
        Kind.INVALID,
        null,
        null,
        "invalid row in " + sourceFile + " (" + message + "): quarantined");
  }

  /** {@code description} is the quarantine's conflict description of one key. */
  static Note conflict(String description) {
    return new Note(Kind.CONFLICT, null, null, description + ": quarantined");
  }

  /**
   * The note of a plan's decision, or null for an action that is not noted (an insert, an update or
   * a revive). {@code storedSequence} is the stored sequence as JSON, or null.
   */
  static Note ofAction(MergeAction action, String key, String sequence, String storedSequence) {
    String at = "key " + key + " sequence " + sequence + ": ";
    return switch (action) {
      case OLDER ->
          new Note(
              Kind.OLDER,
              key,
              sequence,
              at
                  + "older than the stored version "
                  + (storedSequence == null ? "" : storedSequence)
                  + ", ignored");
      case RETRY ->
          new Note(Kind.RETRY, key, sequence, at + "exact retry of the stored version, no change");
      case DELETE -> new Note(Kind.DELETE, key, sequence, at + "deleted (tombstone kept)");
      case TOMBSTONE_ONLY ->
          new Note(
              Kind.TOMBSTONE_ONLY,
              key,
              sequence,
              at + "delete of a key silver does not hold, tombstone kept");
      default -> null;
    };
  }

  /** The actions a plan notes, one note per key. */
  static final MergeAction[] NOTED = {
    MergeAction.OLDER, MergeAction.RETRY, MergeAction.DELETE, MergeAction.TOMBSTONE_ONLY
  };

  static Note storedEvents(long events) {
    return new Note(
        Kind.STORED_EVENTS,
        null,
        null,
        events + " event(s) already in the history: exact retries, no change");
  }

  static Note truncates(long events, Object watermark) {
    return new Note(
        Kind.TRUNCATE,
        null,
        null,
        events + " truncate event(s); rows older than " + watermark + " removed");
  }

  /** Counted only: an erased key is not named again in a log. */
  static Note erased(long events) {
    return new Note(
        Kind.ERASED,
        null,
        null,
        events + " event(s) of erased keys at or before their erased sequence: ignored");
  }

  static Note more() {
    return new Note(Kind.MORE, null, null, "... more decisions not listed; the counts are exact");
  }

  @Override
  public String toString() {
    return text;
  }
}
