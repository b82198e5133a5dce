package io.replaysafe.bronze;

import com.univocity.parsers.csv.CsvParser;
import com.univocity.parsers.csv.CsvParserSettings;
import io.replaysafe.common.config.CsvOptions;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PushbackReader;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.spark.sql.catalyst.csv.CSVOptions;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The records of one whole CSV file, tokenized by the parser Spark's CSV reader uses (univocity,
 * with the settings Spark's {@code CSVOptions} makes of {@code header}, {@code sep}, {@code quote},
 * {@code escape} and {@code multiLine=true}), so a quoted value may hold line breaks, and line
 * breaks are {@code \n}, {@code \r\n} or {@code \r} as detected. Codecs by file extension, as for
 * JSON lines; a byte order mark is dropped.
 *
 * <p>Two things Spark's reader does not do. Text that is not valid in {@code encoding} fails the
 * read (Spark's reader puts U+FFFD in its place): the file is then a bad file, never silently
 * altered. And no record is read past {@code maxChars} characters (a line, or the lines of one
 * quoted value): a longer one, or an unterminated quote running on, fails the read with {@link
 * LineTooLongException} instead of being loaded whole into memory. (The parser's own limit, {@code
 * maxCharsPerColumn}, would allocate a buffer of that size for every reader.)
 */
final class CsvRecordReader implements Closeable {
  private final String path;
  private final CsvParser parser;
  private final String encoding;
  private final QuoteTracking input;
  private String[] fields;
  private String text;
  private boolean unterminated;
  private String[] ahead;
  private String aheadText;
  private long records;

  private CsvRecordReader(String path, CsvParser parser, String encoding, QuoteTracking input) {
    this.path = path;
    this.parser = parser;
    this.encoding = encoding;
    this.input = input;
  }

  /**
   * Opens the file and starts parsing it.
   *
   * @param path the file as Spark names it, for messages
   * @param maxChars the longest record read ({@code source.maxLineBytes}, as characters)
   */
  static CsvRecordReader open(
      Configuration conf, Path file, String path, CsvOptions options, long maxChars)
      throws IOException {
    InputStream in = file.getFileSystem(conf).open(file);
    try {
      CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(file);
      if (codec != null) {
        in = codec.createInputStream(in);
      }
      Charset charset = Charset.forName(options.encoding());
      Reader reader =
          new InputStreamReader(
              in,
              charset
                  .newDecoder()
                  .onMalformedInput(CodingErrorAction.REPORT)
                  .onUnmappableCharacter(CodingErrorAction.REPORT));
      Reader text;
      try {
        text = withoutByteOrderMark(reader);
      } catch (CharacterCodingException e) {
        throw notDecodable(path, options.encoding(), e);
      }
      QuoteTracking tracked = new QuoteTracking(text, options, maxChars, path);
      CsvParser parser = new CsvParser(settings(options));
      CsvRecordReader records = new CsvRecordReader(path, parser, options.encoding(), tracked);
      try {
        parser.beginParsing(tracked); // reads the first buffer
      } catch (RuntimeException e) {
        throw records.failure(e);
      }
      return records;
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  /** Spark's parser settings for these options, reading multi-line values. */
  static CsvParserSettings settings(CsvOptions options) {
    Map<String, String> spark = new HashMap<>(options.sparkOptions());
    spark.put("multiLine", "true");
    CSVOptions csv =
        new CSVOptions(
            scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(spark)),
            false,
            "UTC");
    return csv.asParserSettings();
  }

  /** Java's UTF-8 decoder keeps a byte order mark as U+FEFF; it is not part of the header. */
  private static Reader withoutByteOrderMark(Reader reader) throws IOException {
    PushbackReader in = new PushbackReader(reader, 1);
    int first = in.read();
    if (first >= 0 && first != '\uFEFF') {
      in.unread(first);
    }
    return in;
  }

  /**
   * Reads the next record; false at the end of the file. When the file ends inside a quoted value
   * (known once the parser has read to the end, which it must have to return that value), each
   * record's text is kept and the next record read ahead, so that the last one can be told apart.
   */
  boolean next() throws IOException {
    if (ahead != null) {
      fields = ahead;
      text = aheadText;
      ahead = null;
      aheadText = null;
    } else {
      fields = parse();
      text = null;
    }
    unterminated = false;
    if (fields == null) {
      return false;
    }
    records++;
    if (input.endsInsideQuote()) {
      if (text == null) {
        text = currentText();
      }
      String[] after = parse();
      if (after == null) {
        unterminated = true;
      } else {
        ahead = after;
        aheadText = currentText();
      }
    }
    return true;
  }

  private String[] parse() throws IOException {
    try {
      return parser.parseNext();
    } catch (RuntimeException e) { // univocity's TextParsingException, or a failed read
      throw failure(e);
    }
  }

  /** The record's fields, as Spark's tokenizer gives them. */
  String[] fields() {
    return fields;
  }

  /** The record's number in the file, from 1 (the header, when there is one, is 1). */
  long recordNumber() {
    return records;
  }

  /**
   * True when the record is the file's last and its last value opens a quote the file never closes:
   * the parser read the rest of the file as that value. (A quote left open in another column leaves
   * the record too few fields.)
   */
  boolean unterminatedQuote() {
    return unterminated;
  }

  /** The record's text as it was in the file, without its line break: the corrupt record. */
  String text() {
    return text != null ? text : currentText();
  }

  private String currentText() {
    String content = parser.getContext().currentParsedContent();
    if (content == null) {
      return "";
    }
    int end = content.length();
    if (end > 0 && content.charAt(end - 1) == '\n') {
      end--;
    }
    if (end > 0 && content.charAt(end - 1) == '\r') {
      end--;
    }
    return content.substring(0, end);
  }

  /**
   * What a failed parse means: text that does not decode, a record over the limit (thrown), or an
   * error of the parser or of the read, with the file named.
   */
  private IOException failure(RuntimeException e) {
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof LineTooLongException tooLong) {
        throw tooLong;
      }
      if (t instanceof CharacterCodingException) {
        IOException bad = notDecodable(path, encoding, t);
        bad.addSuppressed(e);
        return bad;
      }
      if (t instanceof IOException io) {
        return io; // a failed read, as Spark's readers throw it (a FileNotFoundException stays one)
      }
    }
    return new IOException("Cannot parse " + path + " as CSV: " + e.getMessage(), e);
  }

  /**
   * Text the file's encoding does not decode. No record number: the parser decodes ahead of the
   * records it returns. Without a cause, so that the bad-files table records this message.
   */
  private static IOException notDecodable(String path, String encoding, Throwable decoding) {
    return new IOException(
        path
            + " is not valid "
            + encoding
            + " text: "
            + decoding
            + ". Bronze never alters text it cannot decode: set source.options.encoding to the"
            + " files' character set, then run 'replaysafe bad-files retry'.");
  }

  @Override
  public void close() {
    parser.stopParsing();
  }

  /**
   * The characters as the parser reads them, followed through the quoting rules on the way (one
   * comparison or two per character, nothing kept): at the end, whether the file ended inside a
   * quoted value, and all along, how long the current record is. A quote opens a quoted value only
   * at a value's start (after a delimiter or a line break); inside, a doubled quote or an escaped
   * character does not close it. A line break outside quotes ends a record.
   */
  static final class QuoteTracking extends java.io.FilterReader {
    private final String sep;
    private final char quote;
    private final char escape;
    private final long limit;
    private final String path;
    private long recordChars;
    private boolean quoted;
    private boolean escaped;
    private boolean quoteSeen; // inside a quoted value, the character before was a quote
    private boolean valueStart = true;
    private int sepMatched;
    private boolean ended;

    QuoteTracking(Reader in, CsvOptions options, long limit, String path) {
      super(in);
      this.sep = options.sep();
      this.quote = options.quote();
      this.escape = options.escape();
      this.limit = limit;
      this.path = path;
    }

    /** True once the whole input was read and it ended inside a quoted value. */
    boolean endsInsideQuote() {
      return ended && quoted && !quoteSeen;
    }

    @Override
    public int read() throws IOException {
      int c = super.read();
      if (c < 0) {
        ended = true;
      } else {
        follow((char) c);
      }
      return c;
    }

    @Override
    public int read(char[] buffer, int offset, int length) throws IOException {
      int n = super.read(buffer, offset, length);
      if (n < 0) {
        ended = true;
      }
      for (int i = 0; i < n; i++) {
        follow(buffer[offset + i]);
      }
      return n;
    }

    private void follow(char c) {
      recordChars++; // back to 0 at a line break outside quotes, which is not counted
      track(c);
      if (recordChars > limit) {
        throw BronzeErrors.csvRecordTooLong(path, limit);
      }
    }

    private void track(char c) {
      if (quoted) {
        if (escaped) {
          escaped = false;
        } else if (quoteSeen) {
          quoteSeen = false;
          if (c != quote) { // the quote before closed the value
            quoted = false;
            outside(c);
          }
        } else if (c == quote) {
          quoteSeen = true; // closes the value, unless another quote follows
        } else if (c == escape) {
          escaped = true;
        }
        return;
      }
      outside(c);
    }

    private void outside(char c) {
      if (valueStart && c == quote) {
        quoted = true;
        valueStart = false;
        sepMatched = 0;
        return;
      }
      if (c == '\n' || c == '\r') {
        valueStart = true;
        sepMatched = 0;
        recordChars = 0;
        return;
      }
      sepMatched = c == sep.charAt(sepMatched) ? sepMatched + 1 : (c == sep.charAt(0) ? 1 : 0);
      if (sepMatched == sep.length()) {
        valueStart = true;
        sepMatched = 0;
      } else {
        valueStart = false;
      }
    }
  }
}
