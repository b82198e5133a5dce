package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every command of the CLI, found by walking its command tree, is either a writer (it refuses to
 * start, exit 4 naming the holder, while another writer holds the pipeline's lease), a reader (it
 * runs while the lease is held and never asks for it) or works on no pipeline's tables. A new
 * command that is in none of the three lists fails this test until someone decides which it is.
 */
class CommandLeaseTest extends SparkTestBase {
  @TempDir Path dir;

  /** Writing commands (a flag can make a reading command write), with arguments that parse. */
  private static Map<String, List<String>> writers(String config, String keys) {
    Map<String, List<String>> w = new LinkedHashMap<>();
    w.put("bronze", List.of("bronze", "--config", config));
    w.put("bronze --promote-rescued", List.of("bronze", "--config", config, "--promote-rescued"));
    w.put("silver", List.of("silver", "--config", config));
    w.put("run", List.of("run", "--config", config));
    w.put("repair", List.of("repair", "--config", config, "--keys", "1"));
    w.put(
        "reconcile --apply",
        List.of("reconcile", "--config", config, "--source-keys", keys, "--apply"));
    w.put("erase", List.of("erase", "--config", config, "--keys", "1", "--by", "t"));
    w.put("maintain", List.of("maintain", "--config", config, "--optimize"));
    w.put(
        "check --add",
        List.of("check", "--config", config, "--constraint", "positive=id > 0", "--add"));
    for (String action : List.of("release", "discard")) {
      w.put(
          "quarantine " + action,
          List.of(
              "quarantine",
              action,
              "--config",
              config,
              "--ids",
              "q1",
              "--by",
              "t",
              "--reason",
              "r"));
    }
    for (String action : List.of("retry", "dismiss")) {
      w.put(
          "bad-files " + action,
          List.of(
              "bad-files",
              action,
              "--config",
              config,
              "--paths",
              "p",
              "--by",
              "t",
              "--reason",
              "r"));
    }
    return w;
  }

  private static Map<String, List<String>> readers(String config, String keys) {
    Map<String, List<String>> r = new LinkedHashMap<>();
    r.put("export", List.of("export", "--config", config, "--layer", "silver"));
    r.put("status", List.of("status", "--config", config));
    r.put("check", List.of("check", "--config", config));
    r.put("reconcile", List.of("reconcile", "--config", config, "--source-keys", keys));
    r.put("quarantine list", List.of("quarantine", "list", "--config", config));
    r.put("bad-files list", List.of("bad-files", "list", "--config", config));
    r.put("plan", List.of("plan", "--config", config));
    r.put("files", List.of("files", "--config", config));
    return r;
  }

  /**
   * Commands that write no existing pipeline's tables: init writes a new pipeline file; demo and
   * rehearse build a lake of their own and run the commands above on it; s3-server serves one; help
   * prints the reference.
   */
  private static final Set<String> NO_PIPELINE =
      Set.of("init", "demo", "rehearse", "s3-server", "help");

  @Test
  void everyWritingCommandRefusesWhileAnotherWriterHoldsTheLeaseAndNoReaderNeedsIt()
      throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Files.writeString(landing.resolve("a.json"), "{\"id\":1,\"v\":1}\n{\"id\":2,\"v\":1}\n");
    Path file =
        Files.writeString(
            dir.resolve("p.yaml"),
            "name: p\nsource:\n  path: "
                + landing
                + "\n  schema: \"id BIGINT, v BIGINT\"\nbronze:\n  path: "
                + dir.resolve("bronze")
                + "\n  checkpoint: "
                + dir.resolve("_ck/bronze")
                + "\nsilver:\n  path: "
                + dir.resolve("silver")
                + "\n  checkpoint: "
                + dir.resolve("_ck/silver")
                + "\n  keys: [id]\n  sequenceBy: [v]\n");
    String config = file.toString();
    String keys = Files.writeString(dir.resolve("keys.txt"), "1\n2\n").toString();
    assertThat(CliRunner.run("run", "--config", config).exitCode()).isZero();

    Map<String, List<String>> writers = writers(config, keys);
    Map<String, List<String>> readers = readers(config, keys);
    Set<String> classified = new TreeSet<>(NO_PIPELINE);
    for (String name : writers.keySet()) {
      classified.add(name.split(" --")[0]);
    }
    for (String name : readers.keySet()) {
      classified.add(name);
    }
    assertThat(classified).as("every command of the CLI, classified").isEqualTo(commands());

    List<String> report = new ArrayList<>();
    try (PipelineLease holder =
        PipelineLease.acquire(ConfigLoader.load(file), new Configuration(), "the test's writer")) {
      for (var w : writers.entrySet()) {
        CliRunner.Outcome o = CliRunner.run(w.getValue().toArray(String[]::new));
        report.add(w.getKey() + " -> " + o.exitCode());
        assertThat(o.err())
            .as(w.getKey())
            .contains(
                "replaysafe: Cannot start '"
                    + w.getKey()
                    + "': another writer holds this pipeline's lease "
                    + dir.resolve("bronze_lease")
                    + ": host ")
            .contains("command 'the test's writer'");
      }
      for (var r : readers.entrySet()) {
        CliRunner.Outcome o = CliRunner.run(r.getValue().toArray(String[]::new));
        report.add(r.getKey() + " -> " + o.exitCode());
        assertThat(o.err()).as(r.getKey()).doesNotContain("lease");
      }
      assertThat(holder.claim().command()).isEqualTo("the test's writer");
    }
    assertThat(report)
        .containsExactly(
            "bronze -> 4",
            "bronze --promote-rescued -> 4",
            "silver -> 4",
            "run -> 4",
            "repair -> 4",
            "reconcile --apply -> 4",
            "erase -> 4",
            "maintain -> 4",
            "check --add -> 4",
            "quarantine release -> 4",
            "quarantine discard -> 4",
            "bad-files retry -> 4",
            "bad-files dismiss -> 4",
            "export -> 0",
            "status -> 0",
            "check -> 0",
            "reconcile -> 0",
            "quarantine list -> 0",
            "bad-files list -> 0",
            "plan -> 0",
            "files -> 0");
  }

  /** The CLI's commands as typed: leaves of the tree ("quarantine release"), help left out. */
  private static Set<String> commands() {
    CommandLine root =
        ReplaysafeCli.commandLine(
            new PrintStream(PrintStream.nullOutputStream()),
            new PrintStream(PrintStream.nullOutputStream()));
    Set<String> names = new TreeSet<>();
    collect(root, "", names);
    return names;
  }

  private static void collect(CommandLine command, String prefix, Set<String> names) {
    for (var sub : command.getSubcommands().entrySet()) {
      String name = prefix + sub.getKey();
      if (sub.getValue().getCommandSpec().userObject() instanceof CommandLine.HelpCommand) {
        continue;
      }
      if (sub.getValue().getSubcommands().isEmpty()) {
        names.add(name);
      } else {
        collect(sub.getValue(), name + " ", names);
      }
    }
  }
}
