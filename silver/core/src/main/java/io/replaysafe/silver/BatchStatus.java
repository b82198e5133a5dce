package io.replaysafe.silver;

/** What became of a silver batch; the run log stores the name. */
public enum BatchStatus {
  /** Written (clean rows applied, the rest quarantined). */
  APPLIED,
  /** Refused by the policy: nothing written but the run-log row. */
  REJECTED
}
