package io.replaysafe.silver;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * A small file read whole with the status a listing gave: S3A then sends one GET, without the HEAD
 * it sends first to learn a file's length, nor a second GET at its end.
 */
final class WholeFileRead {
  private WholeFileRead() {}

  static byte[] read(FileSystem fs, FileStatus file) throws IOException {
    byte[] bytes = new byte[Math.toIntExact(file.getLen())];
    try (FSDataInputStream in = open(fs, file)) {
      in.readFully(0, bytes);
    }
    return bytes;
  }

  private static FSDataInputStream open(FileSystem fs, FileStatus file) throws IOException {
    try {
      return FutureIO.awaitFuture(
          fs.openFile(file.getPath())
              .withFileStatus(file)
              .opt(Options.OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY, "whole-file")
              .build());
    } catch (IllegalArgumentException | UnsupportedOperationException statusNotTaken) {
      // A store that takes no status, or one whose path differs in form: a plain open.
      return fs.open(file.getPath());
    }
  }
}
