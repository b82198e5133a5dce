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
