package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.replaysafe.common.io.Hashing;
import java.nio.charset.StandardCharsets;

/**
 * What messages, summaries, {@code --json}, the run log and {@code status} may say about a row. By
 * default they carry keys, sequences, payload hashes, bronze versions and file references, never
 * payload values: those are personal data more often than not, and logs are copied to places (a
 * scheduler's history, a ticket) with no access control. The quarantine table keeps the raw
 * payload: it is a table, with the lake's access control.
 *
 * @param showValues true on a development pipeline: rejection reports also show each row's payload,
 *     cut to {@link #SHOWN_PREFIX_CHARS} characters (a corrupt line included)
 */
public record EvidenceConfig(boolean showValues) {
  /** How much of a row's payload a report shows when values are shown. */
  public static final int SHOWN_PREFIX_CHARS = 200;

  public static final EvidenceConfig DEFAULT = new EvidenceConfig(false);

  /**
   * How a report names one row's payload (raw JSON, a corrupt line, rescued data): by default
   * {@code "row hash 3f2a9c01ab12"}, the first 12 hex digits of its SHA-256, which finds it in
   * bronze or the quarantine table and says nothing of its values; with {@link #showValues}, the
   * hash then the payload's first {@link #SHOWN_PREFIX_CHARS} characters.
   */
  public String show(String payload) {
    String text = payload == null ? "" : payload;
    String hash = "row hash " + Hashing.sha256Hex(text.getBytes(StandardCharsets.UTF_8), 12);
    if (!showValues) {
      return hash;
    }
    return hash
        + ": "
        + (text.length() > SHOWN_PREFIX_CHARS
            ? text.substring(0, SHOWN_PREFIX_CHARS) + "..."
            : text);
  }

  @JsonCreator
  public static EvidenceConfig of(
      @Help(
              value =
                  "true (development pipelines only): reports, messages and the run log show payload values, cut to 200 characters; false: keys, sequences, payload hashes and files only.",
              defaultValue = "false")
          @JsonProperty("showValues")
          Boolean showValues) {
    return new EvidenceConfig(showValues != null && showValues);
  }
}
