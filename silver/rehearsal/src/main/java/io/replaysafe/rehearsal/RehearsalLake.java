package io.replaysafe.rehearsal;

import static org.apache.spark.sql.functions.col;

import io.replaysafe.common.Columns;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.s3.S3Clients;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The rehearsal's hands on the lake: it lands source objects, deletes the bronze checkpoint, and
 * reads the bronze, silver and quarantine tables back as plain lines to compare.
 */
final class RehearsalLake {
  private final PipelineConfig pipeline;
  private final SparkSession spark;
  private final String landingBucket;
  private final String landingPrefix;

  RehearsalLake(PipelineConfig pipeline, SparkSession spark) {
    this.pipeline = pipeline;
    this.spark = spark;
    URI source = URI.create(pipeline.source().path());
    this.landingBucket = source.getHost();
    String prefix = source.getPath().replaceFirst("^/", "");
    this.landingPrefix = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
  }

  /** Writes {@code lines} as one JSON-lines object under the landing path. */
  void land(RehearsalReport.Step step, String name, List<String> lines) {
    String key = landingPrefix + name;
    try (S3Client s3 = S3Clients.create(pipeline.storage().orElseThrow())) {
      s3.putObject(
          b -> b.bucket(landingBucket).key(key),
          RequestBody.fromString(String.join("\n", lines) + "\n", StandardCharsets.UTF_8));
    }
    step.inputFiles.add("s3a://" + landingBucket + "/" + key + " (" + lines.size() + " lines)");
  }

  void deleteBronzeCheckpoint(RehearsalReport.Step step) throws IOException {
    org.apache.hadoop.fs.Path checkpoint =
        new org.apache.hadoop.fs.Path(pipeline.bronze().checkpoint());
    FileSystem fs = checkpoint.getFileSystem(spark.sparkContext().hadoopConfiguration());
    boolean deleted = fs.delete(checkpoint, true);
    step.check(
        "bronze checkpoint deleted",
        deleted && !fs.exists(checkpoint),
        deleted ? checkpoint + " no longer exists" : "nothing was deleted at " + checkpoint);
  }

  /** Silver as sorted "order_id|source_version|status|amount" lines. */
  List<String> silverRows() {
    Dataset<Row> silver = spark.read().format("delta").load(pipeline.requireSilver().path());
    return lines(
        silver.selectExpr(
            "concat_ws('|', cast(order_id as string), cast(source_version as string),"
                + " coalesce(status, 'null'), coalesce(cast(amount as string), 'null'))"));
  }

  /** Quarantine as sorted "key|sequence|status|file name" lines. */
  List<String> quarantineRows() {
    Dataset<Row> q = spark.read().format("delta").load(pipeline.requireSilver().quarantinePath());
    return lines(
        q.selectExpr(
            "concat_ws('|', key, sequence, coalesce(get_json_object(raw_payload, '$.status'),"
                + " 'null'), element_at(split(source_file, '/'), -1))"));
  }

  /** Bronze rows from the named source file, or all of them when {@code fileName} is null. */
  long bronzeRows(String fileName) {
    Dataset<Row> bronze = spark.read().format("delta").load(pipeline.bronze().path());
    if (fileName != null) {
      bronze = bronze.where(col(Columns.SOURCE_FILE_NAME).equalTo(fileName));
    }
    return bronze.count();
  }

  private static List<String> lines(Dataset<Row> oneColumn) {
    return oneColumn.collectAsList().stream().map(r -> r.getString(0)).sorted().toList();
  }
}
