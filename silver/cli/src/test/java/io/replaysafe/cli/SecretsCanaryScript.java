package io.replaysafe.cli;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.s3.EmbeddedS3Server.S3Credentials;
import io.replaysafe.common.s3.S3Clients;
import io.replaysafe.jobs.ClusterJob;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The child process of {@link SecretsCanaryTest}: started with the canary as its AWS secret key and
 * session token, it serves the embedded endpoint with those credentials, runs every command (the
 * failing ones too) writing each one's stdout and stderr to files, and copies every object of the
 * store to disk, so that the parent can search all of it for the canary.
 */
public final class SecretsCanaryScript {
  private SecretsCanaryScript() {}

  /**
   * The repository's root, for scripts/spark-submit.sh (the child runs in a temporary directory).
   */
  static final String REPO_ROOT = "replaysafe.repoRoot";

  public static void main(String[] args) throws Exception {
    Path work = Path.of(args[0]);
    String canary = System.getenv("AWS_SECRET_ACCESS_KEY");
    S3Credentials credentials = new S3Credentials(System.getenv("AWS_ACCESS_KEY_ID"), canary);
    List<String> summary = new ArrayList<>();
    try (EmbeddedS3Server server =
        EmbeddedS3Server.start(0, List.of("landing", "lake"), credentials)) {
      S3Client s3 =
          S3Clients.create(new StorageConfig(server.endpoint().toString(), "us-east-1", true));
      s3.putObject(
          b -> b.bucket("landing").key("o/a.json"),
          RequestBody.fromString(
              "{\"id\":1,\"v\":1,\"status\":\"a\"}\n{\"id\":2,\"v\":1,\"status\":\"b\"}\n"
                  + "{\"id\":2,\"v\":1,\"status\":\"c\"}\nnot json\n{\"id\":3,\"v\":2,\"x\":1}\n"));
      String storage =
          "storage: {endpoint: \"" + server.endpoint() + "\", pathStyleAccess: true}\n";
      String rest =
          "source:\n  path: s3a://landing/o/\n  schema: \"id BIGINT, v BIGINT, status STRING\"\n"
              + "bronze:\n  path: s3a://lake/bronze\n  checkpoint: s3a://lake/_ck/bronze\n"
              + "silver:\n  path: s3a://lake/silver\n  checkpoint: s3a://lake/_ck/silver\n"
              + "  keys: [id]\n  sequenceBy: [v]\n  onConflict: quarantine\n"
              + "  onInvalid: quarantine\n";
      Path good = write(work, "good.yaml", "name: canary\n" + storage + rest);
      Path wrongKey =
          write(
              work,
              "wrong-key.yaml",
              "name: canary\nstorage: {endpoint: \""
                  + server.endpoint()
                  + "\", secretAccessKey: "
                  + canary
                  + "}\n"
                  + rest);
      Path wrongShape =
          write(
              work,
              "wrong-shape.yaml",
              "name: canary\nstorage: {pathStyleAccess: " + canary + "}\n" + rest);
      Path inUrl =
          write(
              work,
              "in-url.yaml",
              "name: canary\nstorage: {endpoint: \"http://id:"
                  + canary
                  + "@127.0.0.1:"
                  + server.port()
                  + "\"}\n"
                  + rest);
      Path badYaml =
          write(work, "bad-yaml.yaml", "name: canary\nstorage:\n  endpoint: " + canary + ": [\n");
      Path dead =
          write(
              work,
              "dead-endpoint.yaml",
              "name: canary\nstorage: {endpoint: \"http://127.0.0.1:1\", pathStyleAccess: true}\n"
                  + rest);
      Path keys = write(work, "source-keys.txt", "1\n");

      String g = good.toString();
      cli(work, summary, "bronze", "bronze", "--config", g);
      cli(work, summary, "silver", "silver", "--config", g);
      cli(work, summary, "run", "run", "--config", g, "--json");
      for (String layer : List.of("bronze", "silver", "quarantine", "runs")) {
        cli(work, summary, "export-" + layer, "export", "--config", g, "--layer", layer);
      }
      cli(work, summary, "status", "status", "--config", g, "--json");
      cli(work, summary, "check", "check", "--config", g);
      cli(
          work,
          summary,
          "check-add",
          "check",
          "--config",
          g,
          "--constraint",
          "v_ok=v >= 0",
          "--add");
      cli(work, summary, "repair", "repair", "--config", g, "--keys", "1,2");
      cli(work, summary, "reconcile", "reconcile", "--config", g, "--source-keys", keys.toString());
      cli(work, summary, "quarantine-list", "quarantine", "list", "--config", g);
      String ids =
          Files.readString(work.resolve("quarantine-list.out"))
              .lines()
              .map(l -> l.replaceAll(".*\"quarantine_id\":\"([^\"]+)\".*", "$1"))
              .limit(2)
              .reduce((a, b) -> a + "," + b)
              .orElse("none");
      cli(
          work,
          summary,
          "quarantine-release",
          "quarantine",
          "release",
          "--config",
          g,
          "--ids",
          ids.split(",")[0],
          "--by",
          "t",
          "--reason",
          "canary");
      cli(
          work,
          summary,
          "quarantine-discard",
          "quarantine",
          "discard",
          "--config",
          g,
          "--ids",
          ids.contains(",") ? ids.split(",")[1] : ids,
          "--by",
          "t",
          "--reason",
          "canary");
      cli(
          work,
          summary,
          "reconcile-apply",
          "reconcile",
          "--config",
          g,
          "--source-keys",
          keys.toString(),
          "--apply");
      cli(work, summary, "erase", "erase", "--config", g, "--keys", "1", "--by", "t");
      cli(work, summary, "erase-json", "erase", "--config", g, "--keys", "2", "--json");
      // Failing ones.
      for (Path bad : List.of(wrongKey, wrongShape, inUrl, badYaml)) {
        String name = bad.getFileName().toString().replace(".yaml", "");
        cli(work, summary, name + "-run", "run", "--config", bad.toString(), "--json");
        job(work, summary, name + "-job", ClusterJob.SILVER, "--config", bad.toString(), "--json");
        job(
            work,
            summary,
            name + "-inline",
            ClusterJob.BRONZE,
            "--config-inline",
            Files.readString(bad));
      }
      cli(
          work,
          summary,
          "dead-endpoint-run",
          "run",
          "--config",
          dead.toString(),
          "--json",
          "--timeout",
          "3 minutes");
      job(work, summary, "cluster-bronze", ClusterJob.BRONZE, "--config", g, "--json");
      job(work, summary, "cluster-silver", ClusterJob.SILVER, "--config", g, "--json");
      personalData(work, summary, s3, storage);
      sparkSubmit(
          work,
          summary,
          "spark-submit-cluster-mode",
          "--master",
          "yarn",
          "--deploy-mode",
          "cluster");
      sparkSubmit(work, summary, "spark-submit-kubernetes", "--master", "k8s://https://api:6443");

      // Every object in the store, tables, checkpoints and logs included, as files.
      for (String bucket : List.of("landing", "lake")) {
        for (var object : s3.listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
          // Flat names: S3A's directory markers ("a/b/") would collide with files on disk.
          Path target =
              work.resolve("store").resolve(bucket + "__" + object.key().replace("/", "__"));
          Files.createDirectories(target.getParent());
          Files.write(
              target, s3.getObjectAsBytes(b -> b.bucket(bucket).key(object.key())).asByteArray());
        }
      }
    }
    Files.write(work.resolve("summary.txt"), summary);
    System.exit(0);
  }

  /**
   * The personal-data canary ({@code PERSONAL_DATA_CANARY} in the environment) in a valid row, an
   * invalid row, a conflicting row, a rescued field and a corrupt line of a pipeline that rejects
   * invalid rows and conflicts: every command's output names those rows without the value.
   */
  private static void personalData(Path work, List<String> summary, S3Client s3, String storage)
      throws Exception {
    String marker = System.getenv("PERSONAL_DATA_CANARY");
    s3.putObject(
        b -> b.bucket("landing").key("pii/a.json"),
        RequestBody.fromString(
            "{\"id\":1,\"v\":1,\"name\":\""
                + marker
                + "\"}\n"
                + "{\"id\":null,\"v\":1,\"name\":\""
                + marker
                + "\"}\n"
                + "{\"id\":2,\"v\":1,\"name\":\"a "
                + marker
                + "\"}\n"
                + "{\"id\":2,\"v\":1,\"name\":\"b "
                + marker
                + "\"}\n"
                + "{\"id\":3,\"v\":1,\"name\":\"c\",\"note\":\""
                + marker
                + "\"}\n"
                + "not json "
                + marker
                + "\n"));
    Path pii =
        write(
            work,
            "pii.yaml",
            "name: pii\n"
                + storage
                + "source:\n  path: s3a://landing/pii/\n  schema: \"id BIGINT, v BIGINT, name"
                + " STRING\"\n"
                + "bronze:\n  path: s3a://lake/pii/bronze\n  checkpoint: s3a://lake/pii/_ck/bronze\n"
                + "silver:\n  path: s3a://lake/pii/silver\n  checkpoint: s3a://lake/pii/_ck/silver\n"
                + "  keys: [id]\n  sequenceBy: [v]\n");
    String p = pii.toString();
    cli(work, summary, "pii-plan", "plan", "--config", p, "--json");
    cli(work, summary, "pii-plan-text", "plan", "--config", p);
    cli(work, summary, "pii-run", "run", "--config", p, "--json");
    cli(work, summary, "pii-silver", "silver", "--config", p);
    cli(work, summary, "pii-status", "status", "--config", p, "--json");
    cli(work, summary, "pii-status-text", "status", "--config", p);
    cli(work, summary, "pii-export-runs", "export", "--config", p, "--layer", "runs");
    job(work, summary, "pii-cluster-silver", ClusterJob.SILVER, "--config", p, "--json");
  }

  /**
   * scripts/spark-submit.sh forwarding this process's AWS variables (the canary) with {@code
   * options}, through a stand-in Spark installation whose spark-submit would record everything it
   * was given in spark-home/submitted.txt.
   */
  private static void sparkSubmit(Path work, List<String> summary, String name, String... options)
      throws Exception {
    Path home = work.resolve("spark-home");
    Path submit = Files.createDirectories(home.resolve("bin")).resolve("spark-submit");
    Files.createDirectories(home.resolve("jars"));
    Files.writeString(home.resolve("jars/delta-spark_2.13-4.4.0.jar"), "");
    Files.writeString(home.resolve("jars/hadoop-aws-3.5.0.jar"), "");
    Files.writeString(
        submit,
        "#!/usr/bin/env bash\n{ echo \"$@\"; env; } > \"" + home.resolve("submitted.txt") + "\"\n");
    submit.toFile().setExecutable(true);
    Path jar = Files.writeString(work.resolve("cluster.jar"), "");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty(REPO_ROOT), "scripts", "spark-submit.sh").toString());
    command.addAll(List.of(options));
    command.addAll(List.of("silver", "--config", "p.yaml"));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectOutput(work.resolve(name + ".out").toFile())
            .redirectError(work.resolve(name + ".err").toFile());
    builder.environment().put("SPARK_HOME", home.toString());
    builder.environment().put("REPLAYSAFE_CLUSTER_JAR", jar.toString());
    builder.environment().put("REPLAYSAFE_FORWARD_AWS_ENV", "1");
    summary.add(name + " " + builder.start().waitFor());
  }

  private static Path write(Path work, String name, String text) throws Exception {
    return Files.writeString(work.resolve(name), text);
  }

  private static void cli(Path work, List<String> summary, String name, String... args)
      throws Exception {
    try (PrintStream out = stream(work, name + ".out");
        PrintStream err = stream(work, name + ".err")) {
      int code = ReplaysafeCli.commandLine(out, err).execute(args);
      summary.add(name + " " + code);
    }
  }

  private static void job(
      Path work, List<String> summary, String name, ClusterJob job, String... args)
      throws Exception {
    try (PrintStream out = stream(work, name + ".out");
        PrintStream err = stream(work, name + ".err")) {
      summary.add(name + " " + job.run(args, out, err).exitCode());
    }
  }

  private static PrintStream stream(Path work, String name) throws Exception {
    return new PrintStream(
        new FileOutputStream(work.resolve(name).toFile()), true, StandardCharsets.UTF_8);
  }
}
