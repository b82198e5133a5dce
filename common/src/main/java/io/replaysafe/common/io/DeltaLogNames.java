package io.replaysafe.common.io;

/**
 * The names of the files Delta writes once in a table's {@code _delta_log} and never rewrites: a
 * version's commit ({@code 00000000000000000042.json}) and its checksum ({@code
 * 00000000000000000042.crc}), each named by the version in 20 digits. Checkpoints, the {@code
 * _last_checkpoint} pointer and temporary files are none of these.
 */
public final class DeltaLogNames {
  private static final int VERSION_DIGITS = 20;

  private DeltaLogNames() {}

  /** A version's commit: its actions, written once by the writer that won the version. */
  public static boolean isCommit(String name) {
    return versioned(name, ".json");
  }

  /** A version's checksum: the table's size and file count after it, written once. */
  public static boolean isChecksum(String name) {
    return versioned(name, ".crc");
  }

  public static boolean isCommitOrChecksum(String name) {
    return isCommit(name) || isChecksum(name);
  }

  private static boolean versioned(String name, String suffix) {
    if (name.length() != VERSION_DIGITS + suffix.length() || !name.endsWith(suffix)) {
      return false;
    }
    for (int i = 0; i < VERSION_DIGITS; i++) {
      char c = name.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }
}
