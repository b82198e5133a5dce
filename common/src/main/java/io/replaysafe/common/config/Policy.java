package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;

/** What silver does with a conflicting or invalid row. */
public enum Policy {
  /** Reject the whole batch with a report; nothing is written, the checkpoint does not move. */
  FAIL,
  /** Move the offending rows to the quarantine table with a reason, apply the rest. */
  QUARANTINE;

  @JsonCreator
  public static Policy parse(String value) {
    return switch (value) {
      case "fail" -> FAIL;
      case "quarantine" -> QUARANTINE;
      default ->
          throw ConfigErrors.badValue("policy", value, "is unknown", "use fail or quarantine");
    };
  }
}
