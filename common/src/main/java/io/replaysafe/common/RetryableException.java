package io.replaysafe.common;

/**
 * A failure that is expected to pass: the store throttled or dropped a request, or another writer
 * holds the pipeline's lease. Exit code {@link ErrorKind#RETRYABLE}: run the same command later.
 */
public class RetryableException extends ReplaysafeException {
  private static final long serialVersionUID = 1L;

  public RetryableException(String message) {
    super(message);
  }

  public RetryableException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public ErrorKind kind() {
    return ErrorKind.RETRYABLE;
  }
}
