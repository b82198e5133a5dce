package io.replaysafe.common;

/**
 * Errors reading or writing files, object stores (local disk, HDFS, S3) and the tables in them, and
 * of the embedded S3 endpoint: the path, what failed and what to check. A missing or unreadable
 * file the user named is a {@link ConfigException}; a store that fails under a correct
 * configuration is a {@link ReplaysafeException}.
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

  /**
   * A table's schema changed in a way replaysafe cannot follow in place (a column's type changed
   * outside replaysafe).
   *
   * @param changes the refused changes, described and joined with {@code "; "}
   */
  public static ReplaysafeException cannotEvolveTable(String what, String path, String changes) {
    return new ReplaysafeException(
        "Cannot evolve "
            + what
            + " "
            + path
            + " to the pipeline's schema: "
            + changes
            + ". Only added nullable columns and widened types are applied in place; the"
            + " table's schema was probably changed outside replaysafe. Restore it, or write"
            + " this pipeline to a new table.");
  }

  /** The embedded S3 endpoint ({@code replaysafe s3-server}, the rehearsal's) did not start. */
  public static ReplaysafeException cannotStartEmbeddedS3(int port, Exception cause) {
    return new ReplaysafeException(
        "Cannot start the embedded S3 endpoint on 127.0.0.1:"
            + port
            + ": "
            + cause.getMessage()
            + ". Choose another --port, or 0 for a free one",
        cause);
  }

  /** The embedded S3 endpoint did not stop. */
  public static ReplaysafeException cannotStopEmbeddedS3(Exception cause) {
    return new ReplaysafeException(
        "Cannot stop the embedded S3 endpoint: " + cause.getMessage(), cause);
  }
}
