package io.replaysafe.cli;

import io.replaysafe.bronze.BronzeIngest;
import io.replaysafe.bronze.BronzeResult;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.io.JsonLinesExport;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.s3.S3Clients;
import io.replaysafe.common.spark.SparkSessions;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

@Command(
    name = "demo",
    description =
        "The embedded default: an in-process S3 endpoint, synthetic order events, bronze over s3a."
            + " No cloud account, no Docker, no network.")
final class DemoCommand implements Callable<Integer> {
  static final String LANDING_BUCKET = "landing";
  static final String LAKE_BUCKET = "lake";

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    try (EmbeddedS3Server server =
        EmbeddedS3Server.start(0, List.of(LANDING_BUCKET, LAKE_BUCKET))) {
      server.credentials().installAsSystemProperties();
      out.println("Embedded S3 endpoint on " + server.endpoint() + " (in memory)");
      PipelineConfig pipeline = demoPipeline(server.endpoint().toString());
      StorageConfig storage = pipeline.storage().orElseThrow();
      land(storage, DemoData.firstDelivery(), out);

      SparkSession spark = SparkSessions.getOrCreate("replaysafe-demo");
      BronzeResult bronze = BronzeIngest.from(pipeline, spark).execute();
      out.println(bronze.summary());
      out.println("Bronze rows (JSON lines):");
      JsonLinesExport.write(
          spark.read().format("delta").load(pipeline.bronze().path()),
          List.of(io.replaysafe.common.Columns.SOURCE_FILE),
          out);
      out.flush();
    }
    return ReplaysafeCli.EXIT_OK;
  }

  static PipelineConfig demoPipeline(String endpoint) throws IOException {
    try (InputStream in = DemoCommand.class.getResourceAsStream("demo-orders.yaml")) {
      String yaml =
          new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${endpoint}", endpoint);
      return ConfigLoader.parse("demo-orders.yaml", yaml);
    }
  }

  static void land(StorageConfig storage, Map<String, List<String>> files, PrintWriter out) {
    try (S3Client s3 = S3Clients.create(storage)) {
      for (Map.Entry<String, List<String>> file : files.entrySet()) {
        s3.putObject(
            b -> b.bucket(LANDING_BUCKET).key(file.getKey()),
            RequestBody.fromString(DemoData.body(file.getValue()), StandardCharsets.UTF_8));
        out.println(
            "Landed s3a://"
                + LANDING_BUCKET
                + "/"
                + file.getKey()
                + " ("
                + file.getValue().size()
                + " lines)");
      }
    }
  }
}
