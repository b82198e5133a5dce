package io.replaysafe.common.lease;

import io.replaysafe.common.RetryableException;

/**
 * A holder stopped before a write because it may no longer hold the pipeline's lease: its claim was
 * taken over, or its last confirmed renewal is older than the time to live minus the margin.
 * Retryable (exit code 4): what it committed before stays, and the same command later resumes.
 */
public final class LeaseLostException extends RetryableException {
  private static final long serialVersionUID = 1L;

  LeaseLostException(String message) {
    super(message);
  }
}
