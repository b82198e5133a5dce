package io.replaysafe.common;

/**
 * Errors reading or writing files and object stores (local disk, HDFS, S3): the path, what failed
 * and what to check. A missing or unreadable file the user named is a {@link ConfigException}; a
 * store that fails under a correct configuration is a {@link ReplaysafeException}.
 */
public final class StorageErrors {
  private static final String CHECK_PATH_READABLE =
      "Check that the path exists and that this process can reach and read it";
  private static final String CHECK_GIVEN_FILE = "Check the path and that this process may read it";
  private static final String CHECK_STORE_WRITABLE =
      "Check that the store is reachable and this process may write there";

  private StorageErrors() {}

  /** Listing a directory or prefix failed. */
  public static ReplaysafeException cannotList(String what, String path, Exception cause) {
    String problem = "Cannot list " + what + " " + path;
    return new ReplaysafeException(message(problem, cause, CHECK_PATH_READABLE), cause);
  }

  /** A file named on the command line could not be read. */
  public static ConfigException cannotReadGivenFile(String what, Object file, Exception cause) {
    return new ConfigException(
        message("Cannot read " + what + " " + file, cause, CHECK_GIVEN_FILE), cause);
  }

  /** A file replaysafe keeps for itself (a checkpoint marker) could not be read or written. */
  public static ReplaysafeException cannotAccess(String what, Object file, Exception cause) {
    String problem = "Cannot read or write " + file + " in " + what;
    return new ReplaysafeException(message(problem, cause, CHECK_STORE_WRITABLE), cause);
  }

  /** The problem, the cause's first line as the reason, and the fix. */
  private static String message(String problem, Exception cause, String fix) {
    return ErrorMessages.of(problem, ErrorMessages.firstLine(cause), fix);
  }
}
