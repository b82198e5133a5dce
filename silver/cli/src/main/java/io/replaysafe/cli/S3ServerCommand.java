package io.replaysafe.cli;

import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.s3.EmbeddedS3Server.S3Credentials;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "s3-server",
    description =
        "Run the embedded S3 endpoint (in memory, loopback only) in the foreground until Ctrl-C.")
final class S3ServerCommand implements Callable<Integer> {
  @Option(
      names = "--port",
      defaultValue = "9000",
      description = "Port (0 = any free port). Default: ${DEFAULT-VALUE}.")
  int port;

  @Option(
      names = "--bucket",
      paramLabel = "NAME",
      description = "Bucket to create; repeatable. Default: landing, lake.")
  List<String> buckets;

  @Option(
      names = "--credentials-file",
      paramLabel = "FILE",
      description =
          "Where generated credentials are written (mode 600) as shell exports, when"
              + " AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set."
              + " Default: a new file with a unique name in the temporary directory.")
  Path credentialsFile;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    String id = System.getenv("AWS_ACCESS_KEY_ID");
    String secret = System.getenv("AWS_SECRET_ACCESS_KEY");
    S3Credentials credentials;
    String where;
    if (id != null && secret != null) {
      credentials = new S3Credentials(id, secret);
      where = "the AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY of this shell";
    } else {
      credentials = S3Credentials.random(new SecureRandom());
      credentialsFile = writeCredentials(credentials, credentialsFile);
      where = "generated; load them with: . " + credentialsFile;
    }
    List<String> names =
        buckets == null || buckets.isEmpty() ? List.of("landing", "lake") : buckets;
    EmbeddedS3Server server = EmbeddedS3Server.start(port, names, credentials);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  stopped.countDown();
                }));
    out.println(
        "Embedded S3 endpoint listening on "
            + server.endpoint()
            + " (IN MEMORY: all data is lost when it stops)");
    out.println("Buckets: " + String.join(", ", names));
    out.println("Access key id " + credentials.accessKeyId() + "; credentials " + where);
    out.println(
        "Pipeline file: storage: {endpoint: "
            + server.endpoint()
            + ", region: us-east-1, pathStyleAccess: true}");
    out.println("AWS CLI: aws --endpoint-url " + server.endpoint() + " s3 ls");
    out.println("Press Ctrl-C to stop.");
    out.flush();
    stopped.await();
    return ReplaysafeCli.EXIT_OK;
  }

  /**
   * Writes the exports to a fresh mode-600 file beside the target and renames it into place, so the
   * secret is never readable by others, not even for a moment, and a reader never sees half a file.
   * The default name is unique: a fixed name in a shared temporary directory could be pre-created
   * or linked by another user.
   */
  static Path writeCredentials(S3Credentials credentials, Path target) throws IOException {
    FileAttribute<Set<PosixFilePermission>> ownerOnly =
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    Path directory =
        target == null
            ? Path.of(System.getProperty("java.io.tmpdir"))
            : target.toAbsolutePath().getParent();
    Path temporary = Files.createTempFile(directory, ".replaysafe-s3-server-", ".tmp", ownerOnly);
    try {
      Files.writeString(
          temporary,
          "export AWS_ACCESS_KEY_ID="
              + credentials.accessKeyId()
              + "\nexport AWS_SECRET_ACCESS_KEY="
              + credentials.secretAccessKey()
              + "\nexport AWS_REGION=us-east-1\n");
      if (target == null) {
        target = Files.createTempFile(directory, "replaysafe-s3-server-", ".env", ownerOnly);
      }
      Files.move(
          temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return target;
    } finally {
      Files.deleteIfExists(temporary);
    }
  }
}
