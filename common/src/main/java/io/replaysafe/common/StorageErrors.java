package io.replaysafe.common;

/**
 * Errors reading or writing files and object stores (local disk, HDFS, S3): the path, what failed
 * and what to check. A missing or unreadable file the user named is a {@link ConfigException}; a
 * store that fails under a correct configuration is a {@link ReplaysafeException}.
 */
public final class StorageErrors {
  private StorageErrors() {}

  /** Listing a directory or prefix failed. */
  public static ReplaysafeException cannotList(String what, String path, Exception cause) {
    return new ReplaysafeException(
        ErrorMessages.of(
            "Cannot list " + what + " " + path,
            ErrorMessages.firstLine(cause),
            "Check that the path exists and that this process can reach and read it"),
        cause);
  }

  /** A file named on the command line could not be read. */
  public static ConfigException cannotReadGivenFile(String what, Object file, Exception cause) {
    return new ConfigException(
        ErrorMessages.of(
            "Cannot read " + what + " " + file,
            ErrorMessages.firstLine(cause),
            "Check the path and that this process may read it"),
        cause);
  }

  /** A file replaysafe keeps for itself (a checkpoint marker) could not be read or written. */
  public static ReplaysafeException cannotAccess(String what, Object file, Exception cause) {
    return new ReplaysafeException(
        ErrorMessages.of(
            "Cannot read or write " + file + " in " + what,
            ErrorMessages.firstLine(cause),
            "Check that the store is reachable and this process may write there"),
        cause);
  }
}
