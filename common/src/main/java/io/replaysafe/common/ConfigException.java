package io.replaysafe.common;

/** The pipeline file or a command-line argument is wrong; the CLI maps it to exit code 2. */
public final class ConfigException extends ReplaysafeException {
  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public ErrorKind kind() {
    return ErrorKind.CONFIGURATION;
  }
}
