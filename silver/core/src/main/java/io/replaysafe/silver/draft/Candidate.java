package io.replaysafe.silver.draft;

import java.util.List;

/**
 * A proposed key or sequence: the column(s), the kind of evidence the sample gave, and that
 * evidence in words for the drafted pipeline file.
 */
public record Candidate(List<String> columns, Evidence kind, String evidence) {
  /** What the sample showed about the column(s). */
  public enum Evidence {
    /** A key: every value distinct in the sample. */
    UNIQUE,
    /** A key: repeats, but unique together with a sequence (one row per version). */
    UNIQUE_WITH_SEQUENCE,
    /** A sequence: never decreases within each value of a repeating key, in arrival order. */
    INCREASING_WITHIN_KEY,
    /** A sequence: never decreases in arrival order. */
    INCREASING,
    /** A sequence: decreases in few consecutive rows of arrival order (late or replayed data). */
    MOSTLY_INCREASING,
    /**
     * A change-event key: the only fields of every delete's before image (REPLICA IDENTITY
     * DEFAULT), and {@link #CONSISTENT_KEY} too.
     */
    DELETE_IMAGE_KEY,
    /**
     * A change-event key: set in every row event, never changed by an update, one event per value
     * and log position and, in log order, never created while there nor changed once deleted.
     */
    CONSISTENT_KEY,
    /** A change-event sequence: the connector's log position. */
    LOG_POSITION
  }

  public Candidate {
    columns = List.copyOf(columns);
  }
}
