package io.replaysafe.cli;

import io.replaysafe.common.ErrorKind;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.silver.SilverErrors;
import io.replaysafe.silver.ops.Check;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code replaysafe check}: key uniqueness and CHECK constraints on silver. */
@Command(
    name = "check",
    description =
        "Key uniqueness of silver and CHECK constraints (given or on the table): violations"
            + " counted and sampled. Exit 3 when something is violated.")
final class CheckCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(
      names = "--constraint",
      paramLabel = "NAME=PREDICATE",
      description = "A CHECK constraint; repeatable.")
  List<String> constraints;

  @Option(
      names = "--add",
      description = "Add each given constraint that no existing row violates; refuse the others.")
  boolean add;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PipelineConfig pipeline = config.load();
    Map<String, String> given = given(constraints);
    SparkSession spark = ReplaysafeCli.spark(pipeline, "check");
    Supplier<Check.Outcome> check = () -> new Check(pipeline, spark).execute(given, add);
    Check.Outcome o =
        add ? PipelineLease.holding(pipeline, spark, "check --add", check) : check.get();
    PrintWriter out = spec.commandLine().getOut();
    out.println(
        "check "
            + pipeline.name()
            + ": "
            + o.rows()
            + " row(s); "
            + o.duplicateKeys()
            + " key(s) held more than once");
    o.duplicateSample().forEach(d -> out.println("  duplicate key: " + d));
    for (Check.ConstraintResult c : o.constraints()) {
      out.println(
          "constraint "
              + c.name()
              + " ("
              + c.predicate()
              + "): "
              + c.violations()
              + " violating row(s); "
              + c.state());
      c.sample().forEach(s -> out.println("  " + s));
    }
    out.flush();
    return o.clean()
        ? ReplaysafeCli.EXIT_OK
        : o.refused() ? ErrorKind.REJECTED.exitCode() : ReplaysafeCli.EXIT_ALERT;
  }

  /** The {@code --constraint NAME=PREDICATE} values by name, in the order given. */
  private static Map<String, String> given(List<String> constraints) {
    Map<String, String> given = new LinkedHashMap<>();
    for (String c : constraints == null ? List.<String>of() : constraints) {
      int eq = c.indexOf('=');
      if (eq <= 0 || !c.substring(0, eq).matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw SilverErrors.badConstraintArgument(c);
      }
      given.put(c.substring(0, eq), c.substring(eq + 1));
    }
    return given;
  }
}
