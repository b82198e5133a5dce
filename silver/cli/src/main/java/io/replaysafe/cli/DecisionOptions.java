package io.replaysafe.cli;

import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Who decided and why: the {@code --by} and {@code --reason} options every recorded decision
 * (quarantine release and discard, bad-file retry and dismiss) shares.
 */
final class DecisionOptions {
  @Option(names = "--by", required = true, description = "Who decided.")
  String by;

  @Option(names = "--reason", required = true, description = "Why (recorded on the rows).")
  String reason;

  /** The entries of a comma-separated option value ("a, b,,c": a, b and c). */
  static List<String> list(String commaSeparated) {
    return Arrays.stream(commaSeparated.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .toList();
  }
}
