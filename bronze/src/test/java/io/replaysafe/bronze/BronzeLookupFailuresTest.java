package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10 off S3: the check of a batch's planning is the file system's, not S3's. A local file
 * system whose lookup of one listed file is denied and of another finds nothing (as a file whose
 * directory may not be searched, or one deleted after the listing): both are recorded with the
 * lookup's error and left out of the batch, and the run goes on. (Tests run as root, for whom a
 * file's permissions deny nothing: the denial is the file system's below.)
 */
class BronzeLookupFailuresTest extends SparkTestBase {
  @TempDir Path dir;

  /**
   * The local file system under the scheme {@code lookup:}, failing the lookups of the files named
   * so, but not their listing (as S3 lists a key it then denies, or a file is deleted after).
   */
  public static final class FailingLookups extends RawLocalFileSystem {
    private static final ThreadLocal<Boolean> LISTING = ThreadLocal.withInitial(() -> false);

    @Override
    public URI getUri() {
      return URI.create("lookup:///");
    }

    @Override
    public String getScheme() {
      return "lookup";
    }

    @Override
    public FileStatus getFileStatus(org.apache.hadoop.fs.Path p) throws IOException {
      if (!LISTING.get()) {
        failIfNamed(p);
      }
      return super.getFileStatus(p);
    }

    @Override
    public FileStatus[] listStatus(org.apache.hadoop.fs.Path p) throws IOException {
      failIfNamed(p);
      LISTING.set(true); // the local listing looks each entry up: that is the listing, not a lookup
      try {
        return super.listStatus(p);
      } finally {
        LISTING.set(false);
      }
    }

    private static void failIfNamed(org.apache.hadoop.fs.Path p) throws IOException {
      if (p.getName().startsWith("b-denied")) {
        throw new AccessDeniedException(p.toString(), null, "Permission denied");
      }
      if (p.getName().startsWith("c-vanished")) {
        throw new FileNotFoundException("File " + p + " does not exist");
      }
    }
  }

  @Test
  @Timeout(300) // a guard against a stall
  void recordsLocalFilesDeniedOrGoneWhenLookedUp() throws Exception {
    spark
        .sparkContext()
        .hadoopConfiguration()
        .set("fs.lookup.impl", FailingLookups.class.getName());
    spark.sparkContext().hadoopConfiguration().setBoolean("fs.lookup.impl.disable.cache", true);
    Path landing = Files.createDirectories(dir.resolve("landing"));
    Files.writeString(landing.resolve("a-good.json"), "{\"id\":1}\n{\"id\":2}\n");
    Files.writeString(landing.resolve("b-denied.json"), "{\"id\":3}\n");
    Files.writeString(landing.resolve("c-vanished.json"), "{\"id\":4}\n");
    String source = "lookup://" + landing.toUri().getPath();
    PipelineConfig config =
        ConfigLoader.parse(
            "test",
            "name: lookups\nsource:\n  path: "
                + source
                + "\n  schema: \"id INT\"\nbronze:\n  path: "
                + dir.resolve("bronze")
                + "\n  checkpoint: "
                + dir.resolve("checkpoint")
                + "\n");

    BronzeResult result = BronzeIngest.from(config, spark).execute();

    String denied = "lookup://" + landing.resolve("b-denied.json").toUri().getPath();
    String vanished = "lookup://" + landing.resolve("c-vanished.json").toUri().getPath();
    assertThat(result.unreadableFiles()).containsExactlyInAnyOrder(denied, vanished);
    assertThat(result.files()).isEqualTo(1);
    assertThat(result.rows()).isEqualTo(2);
    BadFiles badFiles = new BadFiles(config, spark);
    assertThat(rows(badFiles.unresolved().selectExpr("path", "error_class", "batch_id", "status")))
        .containsExactly(
            denied + "|" + AccessDeniedException.class.getName() + "|0|open",
            vanished + "|" + FileNotFoundException.class.getName() + "|0|open");

    BronzeResult second = BronzeIngest.from(config, spark).execute();
    assertThat(second.unreadableFiles()).isEmpty();
    assertThat(second.rows()).isZero();
    assertThat(spark.read().format("delta").load(dir.resolve("bronze").toString()).count())
        .isEqualTo(2);
  }
}
