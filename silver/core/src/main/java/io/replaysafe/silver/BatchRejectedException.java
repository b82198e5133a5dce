package io.replaysafe.silver;

import io.replaysafe.common.ReplaysafeException;

/**
 * A micro-batch broke the contract under an {@code onConflict: fail} or {@code onInvalid: fail}
 * policy. Nothing was written to silver and the checkpoint did not advance, so a rerun after the
 * fix processes the same batch. The message is the full report.
 */
public final class BatchRejectedException extends ReplaysafeException {
  private static final long serialVersionUID = 1L;

  private final java.util.Set<Rejection.Reason> reasons;

  BatchRejectedException(String report) {
    this(report, java.util.Set.of());
  }

  BatchRejectedException(String report, java.util.Set<Rejection.Reason> reasons) {
    super(report);
    this.reasons = java.util.Set.copyOf(reasons);
  }

  /**
   * The contract rules the batch broke under a {@code fail} policy; empty for a rejection of
   * another kind (bronze changed under silver).
   */
  public java.util.Set<Rejection.Reason> reasons() {
    return reasons;
  }

  @Override
  public io.replaysafe.common.ErrorKind kind() {
    return io.replaysafe.common.ErrorKind.REJECTED;
  }
}
