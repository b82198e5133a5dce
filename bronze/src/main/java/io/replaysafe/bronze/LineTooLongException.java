package io.replaysafe.bronze;

import io.replaysafe.common.ReplaysafeException;

/**
 * A line longer than {@code source.maxLineBytes}. Raised while a file is read ({@link
 * BoundedLineReader}), inside a Spark task or by {@link BadFiles#check}; {@link BronzeIngest}
 * records the file as a bad file and skips it whole. Built by {@link BronzeErrors#lineTooLong}.
 */
public final class LineTooLongException extends ReplaysafeException {
  private static final long serialVersionUID = 1L;

  private final String path;

  LineTooLongException(String message, String path) {
    super(message);
    this.path = path;
  }

  /** The file, as the reader was given it. */
  public String path() {
    return path;
  }
}
