package io.replaysafe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.s3.EmbeddedS3Server.S3Credentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded endpoint's generated credentials file: unique name, mode 600, whole or absent. */
class S3ServerCredentialsFileTest {
  @TempDir Path dir;

  @Test
  void eachServerGetsItsOwnOwnerOnlyFile() throws Exception {
    String tmp = System.getProperty("java.io.tmpdir");
    System.setProperty("java.io.tmpdir", dir.toString());
    try {
      Path first = S3ServerCommand.writeCredentials(new S3Credentials("ID1", "secret1"), null);
      Path second = S3ServerCommand.writeCredentials(new S3Credentials("ID2", "secret2"), null);
      assertThat(first).isNotEqualTo(second).hasParent(dir);
      assertThat(first.getFileName().toString())
          .startsWith("replaysafe-s3-server-")
          .endsWith(".env");
      for (Path file : new Path[] {first, second}) {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
            .isEqualTo("rw-------");
      }
      assertThat(Files.readString(first))
          .isEqualTo(
              "export AWS_ACCESS_KEY_ID=ID1\nexport AWS_SECRET_ACCESS_KEY=secret1\n"
                  + "export AWS_REGION=us-east-1\n");
      // Only the two results: no temporary file is left behind.
      try (var files = Files.list(dir)) {
        assertThat(files.toList()).containsExactlyInAnyOrder(first, second);
      }
    } finally {
      System.setProperty("java.io.tmpdir", tmp);
    }
  }

  @Test
  void aChosenFileIsReplacedWholeAndMadeOwnerOnly() throws Exception {
    Path chosen = Files.writeString(dir.resolve("creds.env"), "old\n");
    Files.setPosixFilePermissions(chosen, PosixFilePermissions.fromString("rw-r--r--"));
    Path written = S3ServerCommand.writeCredentials(new S3Credentials("ID", "s"), chosen);
    assertThat(written).isEqualTo(chosen);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(chosen)))
        .isEqualTo("rw-------");
    assertThat(Files.readString(chosen)).startsWith("export AWS_ACCESS_KEY_ID=ID\n");
  }
}
