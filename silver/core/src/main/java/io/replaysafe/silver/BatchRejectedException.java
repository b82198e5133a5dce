package io.replaysafe.silver;

import io.replaysafe.common.ReplaysafeException;

/**
 * A micro-batch broke the contract under an {@code onConflict: fail} or {@code onInvalid: fail}
 * policy. Nothing was written to silver and the checkpoint did not advance, so a rerun after the
 * fix processes the same batch. The message is the full report.
 */
public final class BatchRejectedException extends ReplaysafeException {
  private static final long serialVersionUID = 1L;

  BatchRejectedException(String report) {
    super(report);
  }

  @Override
  public io.replaysafe.common.ErrorKind kind() {
    return io.replaysafe.common.ErrorKind.REJECTED;
  }
}
