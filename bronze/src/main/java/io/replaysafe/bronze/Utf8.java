package io.replaysafe.bronze;

/**
 * Strict UTF-8 validation (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF. A
 * line that fails it is kept as a corrupt record with its bytes, never decoded with replacement
 * characters into typed values (two different Latin-1 keys would become the same key).
 */
final class Utf8 {
  private Utf8() {}

  static boolean isValid(byte[] bytes, int offset, int length) {
    int i = offset;
    int end = offset + length;
    while (i < end) {
      int b = bytes[i];
      if (b >= 0) { // ASCII, the common case
        i++;
        continue;
      }
      b &= 0xFF;
      int needed;
      int min;
      if (b >= 0xC2 && b <= 0xDF) {
        needed = 1;
        min = 0x80;
      } else if (b >= 0xE0 && b <= 0xEF) {
        needed = 2;
        min = 0x800;
      } else if (b >= 0xF0 && b <= 0xF4) {
        needed = 3;
        min = 0x10000;
      } else {
        return false; // a continuation byte, C0/C1 (always overlong) or F5..FF
      }
      if (i + needed >= end) {
        return false; // truncated sequence
      }
      int codePoint = b & (0x3F >> needed);
      for (int k = 1; k <= needed; k++) {
        int c = bytes[i + k] & 0xFF;
        if ((c & 0xC0) != 0x80) {
          return false;
        }
        codePoint = (codePoint << 6) | (c & 0x3F);
      }
      if (codePoint < min || codePoint > 0x10FFFF || codePoint >= 0xD800 && codePoint <= 0xDFFF) {
        return false;
      }
      i += needed + 1;
    }
    return true;
  }
}
