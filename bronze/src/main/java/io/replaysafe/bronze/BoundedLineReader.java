package io.replaysafe.bronze;

import static org.apache.hadoop.fs.Options.OpenFileOptions.FS_OPTION_OPENFILE_SPLIT_END;
import static org.apache.hadoop.fs.Options.OpenFileOptions.FS_OPTION_OPENFILE_SPLIT_START;

import java.io.Closeable;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FutureDataInputStreamBuilder;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.Seekable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.CodecPool;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.io.compress.Decompressor;
import org.apache.hadoop.io.compress.SplitCompressionInputStream;
import org.apache.hadoop.io.compress.SplittableCompressionCodec;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.lib.input.CompressedSplitLineReader;
import org.apache.hadoop.mapreduce.lib.input.SplitLineReader;
import org.apache.hadoop.mapreduce.lib.input.UncompressedSplitLineReader;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * Reads the lines of one part of a file exactly as Hadoop's {@code LineRecordReader} does (which
 * Spark's text source uses): line breaks {@code \n}, {@code \r\n} and {@code \r}; a UTF-8 byte
 * order mark dropped; codecs by file extension; a part starting inside a line leaves that line to
 * the part before, and a part ends with the first line that starts after it. One difference: a line
 * longer than the limit raises {@link LineTooLongException}. Hadoop's own limit ({@code
 * mapreduce.input.linerecordreader.line.maxlength}) drops such a line silently, and without a limit
 * the line is read into memory whole, however long. Here at most the limit plus one byte of a line
 * is held; the rest is read and counted, not kept.
 */
final class BoundedLineReader implements Closeable {
  /**
   * How far one read goes looking for a line's end: well past any line the limit allows (at most 1
   * GiB), so no line within the limit is ever cut, and short of 2 GiB, where Hadoop's reader gives
   * up with "Too many bytes before newline", so a longer line is still reported as too long.
   */
  private static final int READ_THROUGH = Integer.MAX_VALUE - (1 << 24);

  private final String path;
  private final int limit;
  private final boolean compressed;
  private final boolean offsetsKnown;
  private final boolean fromFileStart;
  private final FSDataInputStream fileIn;
  private final SplitLineReader in;
  private final Seekable filePosition;
  private final Text line = new Text();
  private Decompressor decompressor;
  private long end;
  private long pos;
  private long lineNumber;
  private boolean closed;

  private BoundedLineReader(
      Configuration conf, Path file, String path, long start, long length, long limit)
      throws IOException {
    this.path = path;
    // The configuration allows at most 1 GiB: limit + 4 never overflows an int.
    this.limit = Math.toIntExact(limit);
    this.end = start + length;
    FutureDataInputStreamBuilder builder = file.getFileSystem(conf).openFile(file);
    builder.optLong(FS_OPTION_OPENFILE_SPLIT_START, start);
    builder.optLong(FS_OPTION_OPENFILE_SPLIT_END, end);
    FutureIO.propagateOptions(
        builder,
        conf,
        MRJobConfig.INPUT_FILE_OPTION_PREFIX,
        MRJobConfig.INPUT_FILE_MANDATORY_PREFIX);
    fileIn = FutureIO.awaitFuture(builder.build());
    try {
      CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(file);
      compressed = codec != null;
      if (codec instanceof SplittableCompressionCodec splittable) {
        decompressor = CodecPool.getDecompressor(codec);
        SplitCompressionInputStream split =
            splittable.createInputStream(
                fileIn, decompressor, start, end, SplittableCompressionCodec.READ_MODE.BYBLOCK);
        in = new CompressedSplitLineReader(split, conf, null);
        start = split.getAdjustedStart();
        end = split.getAdjustedEnd();
        filePosition = split;
      } else if (codec != null) {
        if (start != 0) {
          throw new IOException(
              "Cannot seek in " + codec.getClass().getSimpleName() + " compressed stream");
        }
        decompressor = CodecPool.getDecompressor(codec);
        in = new SplitLineReader(codec.createInputStream(fileIn, decompressor), conf, null);
        filePosition = fileIn;
      } else {
        fileIn.seek(start);
        in = new UncompressedSplitLineReader(fileIn, conf, null, length);
        filePosition = fileIn;
      }
      fromFileStart = start == 0;
      // Positions count uncompressed bytes, except in a part of a block-compressed file.
      offsetsKnown = fromFileStart || !compressed;
      if (start != 0) {
        // The line that starts before this part belongs to the part before: skip to its end.
        start += in.readLine(new Text(), 0, READ_THROUGH);
      }
      pos = start;
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Opens {@code length} bytes of the file from {@code start} (a part Spark planned, or the whole
   * file).
   *
   * @param path the file as Spark names it (a URI string); named in errors
   */
  static BoundedLineReader open(
      Configuration conf, Path file, String path, long start, long length, long limit)
      throws IOException {
    return new BoundedLineReader(conf, file, path, start, length, limit);
  }

  /**
   * Advances to the next line; false at the end of the part.
   *
   * @throws LineTooLongException when the line is longer than the limit
   */
  boolean next() throws IOException {
    if (!(filePosition() <= end || in.needAdditionalRecordAfterSplit())) {
      return false;
    }
    long lineStart = pos;
    int consumed;
    if (pos == 0) {
      consumed = readFirstLine();
    } else {
      // At most limit + 1 bytes are kept; the rest of a longer line is read through, not kept.
      consumed = in.readLine(line, limit + 1, READ_THROUGH);
      pos += consumed;
    }
    if (consumed == 0) {
      return false;
    }
    lineNumber++;
    if (line.getLength() > limit) {
      throw BronzeErrors.lineTooLong(
          path,
          fromFileStart ? lineNumber : 0,
          offsetsKnown ? lineStart : -1,
          consumed,
          consumed < READ_THROUGH,
          limit);
    }
    return true;
  }

  /** The current line, without its line break; valid until the next call to {@link #next}. */
  Text line() {
    return line;
  }

  /** The first line of the file, without a UTF-8 byte order mark, as LineRecordReader reads it. */
  private int readFirstLine() throws IOException {
    int consumed = in.readLine(line, limit + 4, READ_THROUGH);
    pos += consumed;
    byte[] bytes = line.getBytes();
    int length = line.getLength();
    if (length >= 3
        && bytes[0] == (byte) 0xEF
        && bytes[1] == (byte) 0xBB
        && bytes[2] == (byte) 0xBF) {
      consumed -= 3;
      if (length > 3) {
        line.set(line.copyBytes(), 3, length - 3);
      } else {
        line.clear();
      }
    }
    return consumed;
  }

  private long filePosition() throws IOException {
    return compressed ? filePosition.getPos() : pos;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (in != null) {
        in.close();
      } else {
        fileIn.close();
      }
    } finally {
      if (decompressor != null) {
        CodecPool.returnDecompressor(decompressor);
        decompressor = null;
      }
    }
  }
}
