package io.replaysafe.rehearsal;

import com.fasterxml.jackson.databind.SerializationFeature;
import io.replaysafe.common.io.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What each rehearsal step did and why its assertions passed or failed; as Markdown and JSON. */
public final class RehearsalReport {
  public static final String PASSED = "PASSED";
  public static final String FAILED = "FAILED";

  /** One assertion: what was checked, whether it held, and why. */
  public record Assertion(String name, boolean passed, String reason) {}

  /** One step, filled in while it runs. */
  public static final class Step {
    final int number;
    final String name;
    final String description;
    final List<String> inputFiles = new ArrayList<>();
    final List<String> runIds = new ArrayList<>();
    final List<String> checkpoints = new ArrayList<>();
    final List<String> notes = new ArrayList<>();
    final List<Assertion> assertions = new ArrayList<>();
    List<String> expectedSilverRows = List.of();
    List<String> actualSilverRows = List.of();
    List<String> quarantineRows = List.of();
    double seconds;

    Step(int number, String name, String description) {
      this.number = number;
      this.name = name;
      this.description = description;
    }

    void check(String what, boolean passed, String reason) {
      assertions.add(new Assertion(what, passed, reason));
    }

    public String name() {
      return name;
    }

    public boolean passed() {
      return !assertions.isEmpty() && assertions.stream().allMatch(Assertion::passed);
    }

    public String status() {
      return passed() ? PASSED : FAILED;
    }

    public double seconds() {
      return seconds;
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("number", number);
      m.put("name", name);
      m.put("status", status());
      m.put("description", description);
      m.put("inputFiles", inputFiles);
      m.put("runIds", runIds);
      m.put("checkpoints", checkpoints);
      m.put("expectedSilverRows", expectedSilverRows);
      m.put("actualSilverRows", actualSilverRows);
      m.put("quarantineRows", quarantineRows);
      List<Map<String, Object>> checks = new ArrayList<>();
      for (Assertion a : assertions) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("name", a.name());
        c.put("status", a.passed() ? PASSED : FAILED);
        c.put("reason", a.reason());
        checks.add(c);
      }
      m.put("assertions", checks);
      m.put("notes", notes);
      m.put("seconds", Math.round(seconds * 10) / 10.0);
      return m;
    }
  }

  private final String backend;
  private final String pipeline;
  private final List<Step> steps = new ArrayList<>();

  RehearsalReport(String backend, String pipeline) {
    this.backend = backend;
    this.pipeline = pipeline;
  }

  void add(Step step) {
    steps.add(step);
  }

  public List<Step> steps() {
    return List.copyOf(steps);
  }

  public boolean passed() {
    return !steps.isEmpty() && steps.stream().allMatch(Step::passed);
  }

  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rehearsal", "seed-004");
    m.put("backend", backend);
    m.put("pipeline", pipeline);
    m.put("status", passed() ? PASSED : FAILED);
    m.put("steps", steps.stream().map(Step::toMap).toList());
    return m;
  }

  public String toJson() throws IOException {
    return Json.mapper().writer(SerializationFeature.INDENT_OUTPUT).writeValueAsString(toMap());
  }

  public String toMarkdown() {
    StringBuilder sb = new StringBuilder();
    sb.append("# replaysafe rehearsal (seed 004)\n\n")
        .append("- backend: ")
        .append(backend)
        .append("\n- pipeline: ")
        .append(pipeline)
        .append("\n- result: **")
        .append(passed() ? PASSED : FAILED)
        .append("** (")
        .append(steps.stream().filter(Step::passed).count())
        .append(" of ")
        .append(steps.size())
        .append(" steps passed)\n\n| # | step | status | seconds |\n| --- | --- | --- | --- |\n");
    for (Step s : steps) {
      sb.append("| ")
          .append(s.number)
          .append(" | ")
          .append(s.name)
          .append(" | ")
          .append(s.status())
          .append(" | ")
          .append(String.format("%.1f", s.seconds))
          .append(" |\n");
    }
    for (Step s : steps) {
      sb.append("\n## Step ")
          .append(s.number)
          .append(": ")
          .append(s.name)
          .append(" — ")
          .append(s.status())
          .append("\n\n")
          .append(s.description)
          .append("\n\n");
      list(sb, "Input files", s.inputFiles);
      list(sb, "Run ids", s.runIds);
      list(sb, "Checkpoints", s.checkpoints);
      list(
          sb, "Expected silver rows (order_id|source_version|status|amount)", s.expectedSilverRows);
      list(sb, "Actual silver rows", s.actualSilverRows);
      list(sb, "Quarantine rows (key|sequence|status|file)", s.quarantineRows);
      sb.append("Assertions:\n\n");
      for (Assertion a : s.assertions) {
        sb.append("- ")
            .append(a.passed() ? PASSED : FAILED)
            .append(" ")
            .append(a.name())
            .append(": ")
            .append(a.reason())
            .append('\n');
      }
      if (!s.notes.isEmpty()) {
        sb.append('\n');
        list(sb, "Notes", s.notes);
      }
    }
    return sb.toString();
  }

  private static void list(StringBuilder sb, String title, List<String> items) {
    sb.append(title).append(":");
    if (items.isEmpty()) {
      sb.append(" none\n\n");
      return;
    }
    sb.append("\n\n");
    for (String item : items) {
      sb.append("- `").append(item).append("`\n");
    }
    sb.append('\n');
  }

  /** Writes report.md and report.json into {@code dir} (created if needed). */
  public void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("report.md"), toMarkdown(), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("report.json"), toJson() + "\n", StandardCharsets.UTF_8);
  }
}
