package io.replaysafe.common.io;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** replaysafe's one hashing helper: SHA-256, as hex, for fingerprints and contract revisions. */
public final class Hashing {
  private Hashing() {}

  /** The SHA-256 of {@code bytes} as lower-case hex, cut to its first {@code hexChars} digits. */
  public static String sha256Hex(byte[] bytes, int hexChars) {
    if (hexChars < 1 || hexChars > 64) {
      throw new IllegalArgumentException("A SHA-256 has 1 to 64 hex digits, not " + hexChars);
    }
    return HexFormat.of().formatHex(sha256().digest(bytes)).substring(0, hexChars);
  }

  /** A new SHA-256 digest, for a caller that hashes many pieces. */
  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }
}
