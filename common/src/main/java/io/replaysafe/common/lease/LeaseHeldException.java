package io.replaysafe.common.lease;

import io.replaysafe.common.RetryableException;

/**
 * Another writer holds the pipeline's lease. Retryable (exit code 4): the same command succeeds
 * once the holder has finished, or once its lease expired because it died.
 */
public final class LeaseHeldException extends RetryableException {
  private static final long serialVersionUID = 1L;

  LeaseHeldException(String message) {
    super(message);
  }
}
