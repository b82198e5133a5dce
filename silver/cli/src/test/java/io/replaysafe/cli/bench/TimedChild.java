package io.replaysafe.cli.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs one command, a fresh JVM, under GNU time, which reports what the kernel accounted to the
 * child and every process it waited for (the launcher's shell and its JVM alike): wall clock, user
 * plus system CPU, and peak resident set. Its standard output and error go to files beside the
 * time's report, kept for a failed run.
 */
final class TimedChild {
  static final String GNU_TIME = "/usr/bin/time";

  /** What one run cost. */
  record Cost(double wallSeconds, double cpuSeconds, long peakRssKiB) {
    double peakRssMiB() {
      return peakRssKiB / 1024.0;
    }
  }

  record Finished(Cost cost, String stdout, int exitCode, Path stderr) {
    /** The last lines of standard error, for a failure's message. */
    String stderrTail(int lines) throws IOException {
      List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }
  }

  private TimedChild() {}

  /**
   * @param environment added to this JVM's environment (credentials travel here, never on a command
   *     line other processes can read)
   * @param unset variables removed from the child's environment
   */
  static Finished run(
      List<String> command,
      Map<String, String> environment,
      List<String> unset,
      Path logs,
      String name)
      throws IOException, InterruptedException {
    Path time = logs.resolve(name + ".time");
    Path out = logs.resolve(name + ".out");
    Path err = logs.resolve(name + ".err");
    List<String> timed =
        new ArrayList<>(List.of(GNU_TIME, "-o", time.toString(), "-f", "%e %U %S %M"));
    timed.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(timed);
    builder.environment().putAll(environment);
    unset.forEach(builder.environment()::remove);
    builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    builder.redirectOutput(out.toFile());
    builder.redirectError(err.toFile());
    int exit = builder.start().waitFor();
    return new Finished(parse(time), Files.readString(out, StandardCharsets.UTF_8), exit, err);
  }

  /** GNU time's last line is the format's; a failed command adds a line before it. */
  private static Cost parse(Path time) throws IOException {
    List<String> lines = Files.readAllLines(time, StandardCharsets.UTF_8);
    String[] fields = lines.get(lines.size() - 1).trim().split("\\s+");
    if (fields.length != 4) {
      throw new IllegalStateException("Cannot read GNU time's report " + time + ": " + lines);
    }
    return new Cost(
        Double.parseDouble(fields[0]),
        Double.parseDouble(fields[1]) + Double.parseDouble(fields[2]),
        Long.parseLong(fields[3]));
  }
}
