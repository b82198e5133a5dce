package io.replaysafe.cli;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.jobs.DryRun;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The dry run: what the next run would ingest, rescue, quarantine or reject; writes nothing. */
@Command(
    name = "plan",
    description =
        "Dry run, writing nothing: the files bronze would ingest next, a parse of a sample of them"
            + " with the bronze parser, and the silver contract's checks on that sample. Exit 0"
            + " when the sample is clean, 3 when it would rescue, quarantine or reject something.")
final class PlanCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--json", description = "Print the plan as one JSON object.")
  boolean json;

  @Option(
      names = "--sample",
      paramLabel = "N",
      description =
          "Parse at most N of the pending files (the first ones bronze takes), and no more than"
              + " 64 MiB beyond the first file (default: ${DEFAULT-VALUE}).")
  int sampleFiles = DryRun.SAMPLE_FILES_DEFAULT;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    ReplaysafeCli.requireAtLeastOne(spec, "--sample", sampleFiles);
    PipelineConfig pipeline = config.load();
    DryRun.Result plan =
        DryRun.of(
            ReplaysafeCli.spark(pipeline, "plan"),
            pipeline,
            sampleFiles,
            DryRun.SAMPLE_BYTES_DEFAULT);
    PrintWriter out = spec.commandLine().getOut();
    out.println(json ? PlanReport.json(plan) : PlanReport.text(plan));
    out.flush();
    return plan.clean() ? ReplaysafeCli.EXIT_OK : ReplaysafeCli.EXIT_ALERT;
  }
}
