package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.LineRecordReader;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bounded reader gives the lines Hadoop's LineRecordReader (Spark's text source) gives, for any
 * split of the file, and refuses a line over the limit instead of dropping or truncating it.
 */
class BoundedLineReaderTest {
  static final Configuration CONF = new Configuration();

  @TempDir Path dir;

  Path write(String name, byte[] content) throws IOException {
    Path file = dir.resolve(name);
    Files.write(file, content);
    return file;
  }

  static List<String> hadoopLines(Path file, long start, long length) throws IOException {
    List<String> lines = new ArrayList<>();
    try (LineRecordReader reader = new LineRecordReader()) {
      reader.initialize(
          new FileSplit(new org.apache.hadoop.fs.Path(file.toUri()), start, length, new String[0]),
          new TaskAttemptContextImpl(
              CONF, new TaskAttemptID(new TaskID(new JobID(), TaskType.MAP, 0), 0)));
      while (reader.nextKeyValue()) {
        lines.add(reader.getCurrentValue().toString());
      }
    }
    return lines;
  }

  static List<String> boundedLines(Path file, long start, long length, long limit)
      throws IOException {
    List<String> lines = new ArrayList<>();
    try (BoundedLineReader reader =
        BoundedLineReader.open(
            CONF,
            new org.apache.hadoop.fs.Path(file.toUri()),
            file.toUri().toString(),
            start,
            length,
            limit)) {
      while (reader.next()) {
        lines.add(reader.line().toString());
      }
    }
    return lines;
  }

  /** Lines of random length with \n, \r\n or \r, sometimes a BOM, sometimes no final break. */
  static byte[] randomContent(Random random) {
    StringBuilder text = new StringBuilder();
    if (random.nextInt(4) == 0) {
      text.append('\uFEFF');
    }
    int lines = random.nextInt(20);
    String[] breaks = {"\n", "\r\n", "\r"};
    for (int i = 0; i < lines; i++) {
      int length = random.nextInt(8) == 0 ? 0 : random.nextInt(30);
      for (int c = 0; c < length; c++) {
        text.append((char) ('a' + random.nextInt(26)));
      }
      if (i < lines - 1 || random.nextBoolean()) {
        text.append(breaks[random.nextInt(breaks.length)]);
      }
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void givesHadoopsLinesForEverySplitOfTheFile() throws IOException {
    Random random = new Random(20261130);
    for (int round = 0; round < 25; round++) {
      byte[] content = randomContent(random);
      Path file = write("f" + round + ".json", content);
      // The limit at the longest line: every line is at or under it, so every line is read.
      long limit =
          Math.max(
              1,
              hadoopLines(file, 0, content.length).stream()
                  .mapToLong(l -> l.getBytes(StandardCharsets.UTF_8).length)
                  .max()
                  .orElse(1));
      int[] splitSizes = {1, 3, 16, 100, Math.max(1, content.length)};
      for (int size : splitSizes) {
        List<String> expected = new ArrayList<>();
        List<String> actual = new ArrayList<>();
        for (long start = 0; start < Math.max(1, content.length); start += size) {
          long length = Math.min(size, Math.max(0, content.length - start));
          expected.addAll(hadoopLines(file, start, length));
          actual.addAll(boundedLines(file, start, length, limit));
        }
        assertThat(actual).as("round %d, split size %d", round, size).isEqualTo(expected);
      }
    }
  }

  @Test
  void readsCompressedFilesAsHadoopDoes() throws IOException {
    byte[] content = randomContent(new Random(7));
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write(content);
    }
    Path file = write("f.json.gz", gz.toByteArray());
    assertThat(boundedLines(file, 0, gz.size(), 1 << 20))
        .isEqualTo(hadoopLines(file, 0, gz.size()))
        .isNotEmpty();
  }

  @Test
  void aLineAtTheLimitIsReadAndOneByteMoreIsRefusedNamingItsNumberAndOffset() throws IOException {
    String at = "a".repeat(100);
    Path file =
        write(
            "long.json",
            ("first\r\n" + at + "\n" + at + "b\nlast\n").getBytes(StandardCharsets.UTF_8));
    String uri = file.toUri().toString();
    List<String> read = new ArrayList<>();
    try (BoundedLineReader reader =
        BoundedLineReader.open(
            CONF, new org.apache.hadoop.fs.Path(file.toUri()), uri, 0, Files.size(file), 100)) {
      assertThatThrownBy(
              () -> {
                while (reader.next()) {
                  read.add(reader.line().toString());
                }
              })
          .isInstanceOf(LineTooLongException.class)
          .hasMessage(
              "Cannot read "
                  + uri
                  + ": line 3 (at byte 108) is 102 bytes long with its line break, more than"
                  + " source.maxLineBytes (100 bytes). Bronze reads no line over that limit, since"
                  + " it holds a line in memory several times over, and it never truncates one: it"
                  + " skips the whole file and records it in the bad files. To ingest the file,"
                  + " raise source.maxLineBytes in the pipeline file (and the heap with it; see the"
                  + " README, Big lines), then run 'replaysafe bad-files retry --paths "
                  + uri
                  + " --by WHO --reason WHY'.");
    }
    assertThat(read).containsExactly("first", at);
    assertThat(boundedLines(file, 0, Files.size(file), 101))
        .containsExactly("first", at, at + "b", "last");
  }

  @Test
  void aLongLineIsRefusedInWhicheverSplitItStartsEvenAtTheEndOfTheFile() throws IOException {
    byte[] content =
        ("x\n".repeat(50) + "y".repeat(5000) + "\n" + "z\n" + "w".repeat(3000))
            .getBytes(StandardCharsets.UTF_8);
    Path file = write("split.json", content);
    long limit = 1000;
    int failures = 0;
    List<String> lines = new ArrayList<>();
    for (long start = 0; start < content.length; start += 64) {
      long length = Math.min(64, content.length - start);
      try {
        lines.addAll(boundedLines(file, start, length, limit));
      } catch (LineTooLongException e) {
        failures++;
        // A split that does not start the file knows the offset, not the line number.
        assertThat(e.getMessage()).containsPattern("a line \\(at byte (100|5103)\\) is");
      }
    }
    assertThat(failures).isEqualTo(2);
    // The lines of the splits that did not fail: no part of a long line among them.
    assertThat(lines).hasSize(33).containsOnly("x");
    // Hadoop's own limit drops the line without a word: what this reader is for.
    Configuration limited = new Configuration(CONF);
    limited.setInt(LineRecordReader.MAX_LINE_LENGTH, 1000);
    List<String> dropped = new ArrayList<>();
    try (LineRecordReader reader = new LineRecordReader()) {
      reader.initialize(
          new FileSplit(
              new org.apache.hadoop.fs.Path(file.toUri()), 0, content.length, new String[0]),
          new TaskAttemptContextImpl(
              limited, new TaskAttemptID(new TaskID(new JobID(), TaskType.MAP, 0), 0)));
      while (reader.nextKeyValue()) {
        dropped.add(reader.getCurrentValue().toString());
      }
    }
    assertThat(dropped).hasSize(51).doesNotContain("y".repeat(5000));
  }
}
