package io.replaysafe.cli;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.silver.ops.KeySelection;
import io.replaysafe.silver.ops.Reconcile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code replaysafe reconcile}: silver against a source-of-truth key extract. */
@Command(
    name = "reconcile",
    description =
        "Compare a source-of-truth key extract with silver; report keys silver holds that the"
            + " source does not, and with --apply delete them through tombstones.")
final class ReconcileCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(
      names = "--source-keys",
      required = true,
      paramLabel = "FILE",
      description = "One key per line.")
  Path sourceKeys;

  @Option(
      names = "--apply",
      description = "Delete the missing keys (tombstones keep them deleted).")
  boolean apply;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PipelineConfig pipeline = config.load();
    SparkSession spark = ReplaysafeCli.spark(pipeline, "reconcile");
    Supplier<Reconcile.Outcome> reconcile =
        () ->
            new Reconcile(pipeline, spark)
                .execute(KeySelection.of(null, sourceKeys), sourceKeys.toString(), apply);
    Reconcile.Outcome o =
        apply
            ? PipelineLease.holding(pipeline, spark, "reconcile --apply", reconcile)
            : reconcile.get();
    PrintWriter out = spec.commandLine().getOut();
    out.println(
        "reconcile "
            + pipeline.name()
            + ": silver holds "
            + o.silverKeys()
            + " key(s), the source "
            + o.sourceKeys()
            + "; "
            + o.missingAtSource()
            + " key(s) in silver are missing at the source"
            + (o.applied()
                ? " and were deleted (tombstones kept)"
                : apply ? "" : " (report only; --apply deletes them)"));
    o.sample().forEach(k -> out.println("  missing at source: " + k));
    out.flush();
    return ReplaysafeCli.EXIT_OK;
  }
}
