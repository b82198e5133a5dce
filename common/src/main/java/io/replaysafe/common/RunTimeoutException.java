package io.replaysafe.common;

/** A run exceeded its {@code --timeout} and was stopped; exit code {@link ErrorKind#TIMEOUT}. */
public final class RunTimeoutException extends ReplaysafeException {
  private static final long serialVersionUID = 1L;

  public RunTimeoutException(String message) {
    super(message);
  }

  @Override
  public ErrorKind kind() {
    return ErrorKind.TIMEOUT;
  }
}
