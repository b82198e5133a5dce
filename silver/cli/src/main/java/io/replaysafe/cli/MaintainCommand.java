package io.replaysafe.cli;

import io.replaysafe.bronze.BronzeSideTables;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SilverConfig;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.lease.PipelineLease;
import io.replaysafe.silver.ops.Maintain;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code replaysafe maintain}: OPTIMIZE and VACUUM on every table of the pipeline. */
@Command(
    name = "maintain",
    description =
        "OPTIMIZE (--optimize) and VACUUM (--vacuum RETENTION) every Delta table of the pipeline:"
            + " bronze and its side tables, silver and its side tables, under the pipeline's"
            + " lease. A retention shorter than Delta's safety check, silver's lag or"
            + " silver.tombstoneRetention is refused.")
final class MaintainCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--optimize", description = "Compact small files (Delta's OPTIMIZE).")
  boolean optimize;

  @Option(
      names = "--vacuum",
      paramLabel = "RETENTION",
      description = "Remove files no version within RETENTION needs, e.g. '30 days'.")
  String vacuum;

  @Option(names = "--json", description = "Print one JSON object per table (JSON lines).")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (!optimize && vacuum == null) {
      throw CliErrors.nothingToMaintain();
    }
    PipelineConfig pipeline = config.load();
    Duration retention = vacuum == null ? null : SilverConfig.parseDuration("--vacuum", vacuum);
    SparkSession spark = ReplaysafeCli.spark(pipeline, "maintain");
    List<Maintain.TableResult> results =
        PipelineLease.holding(
            pipeline,
            spark,
            "maintain",
            () ->
                new Maintain(pipeline, spark)
                    .execute(BronzeSideTables.of(pipeline), optimize, retention));
    PrintWriter out = spec.commandLine().getOut();
    for (Maintain.TableResult r : results) {
      if (json) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("table", r.table());
        map.put("path", r.path());
        map.put("filesCompacted", r.filesCompacted());
        map.put("filesVacuumed", r.filesVacuumed());
        out.println(Json.compact(map));
      } else {
        out.println(
            r.table()
                + " ("
                + r.path()
                + "):"
                + (r.filesCompacted() == null
                    ? ""
                    : " " + r.filesCompacted() + " file(s) compacted")
                + (r.filesCompacted() != null && retention != null ? "," : "")
                + (retention == null
                    ? ""
                    : " "
                        + (r.filesVacuumed() == null ? "?" : r.filesVacuumed())
                        + " file(s) vacuumed"));
      }
    }
    out.flush();
    return ReplaysafeCli.EXIT_OK;
  }
}
