package io.replaysafe.common;

/**
 * Base of every error replaysafe raises on purpose. Messages follow one rule: say what failed, why,
 * and how to fix it, naming the file, key, column or path involved. Never put credentials in one.
 */
public class ReplaysafeException extends RuntimeException {
  public ReplaysafeException(String message) {
    super(message);
  }

  public ReplaysafeException(String message, Throwable cause) {
    super(message, cause);
  }

  /** What kind of failure this is; {@link ErrorKind#of} turns it into the exit code. */
  public ErrorKind kind() {
    return ErrorKind.FAILURE;
  }
}
