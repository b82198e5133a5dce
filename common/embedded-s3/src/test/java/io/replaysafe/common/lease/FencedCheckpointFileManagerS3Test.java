package io.replaysafe.common.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.FaultyS3Proxy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager.CancellableFSDataOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint file manager on S3A writes in place with an abortable stream, not by rename: a
 * file is visible only once closed, a cancelled one never, one that exists is not overwritten
 * unless asked, and a checkpoint file costs 2 requests (a HEAD and the PUT) instead of the rename's
 * 10 to 12.
 */
class FencedCheckpointFileManagerS3Test {
  private static EmbeddedS3Server server;
  private static FaultyS3Proxy proxy;
  private static Configuration conf;

  @BeforeAll
  static void start() throws Exception {
    server = EmbeddedS3Server.start(0, List.of("lake"));
    proxy = new FaultyS3Proxy(server.endpoint());
    conf = S3aTestConf.of(proxy.endpoint(), server.credentials());
    // This test's own file system instances, not the JVM's cached ones.
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
  }

  @AfterAll
  static void stop() throws Exception {
    proxy.close();
    server.close();
  }

  @Test
  void aFileIsWrittenInPlaceVisibleOnceClosedAndNeverOverwrittenUnlessAsked() throws Exception {
    Path dir = new Path("s3a://lake/ck-written/offsets");
    FencedCheckpointFileManager manager = new FencedCheckpointFileManager(dir, conf);
    FileSystem fs = dir.getFileSystem(conf);
    Path file = new Path(dir, "0");

    proxy.resetCounts();
    CancellableFSDataOutputStream out = manager.createAtomic(file, false);
    out.write("v1".getBytes(StandardCharsets.UTF_8));
    assertThat(fs.exists(file)).as("visible before close").isFalse();
    proxy.resetCounts();
    out.close();
    assertThat(proxy.requestsByKind()).containsEntry("PUT", 1L).doesNotContainKey("DELETE");
    assertThat(read(fs, file)).isEqualTo("v1");
    // Nothing named like a temporary file next to it: no rename happened.
    assertThat(fs.listStatus(dir)).hasSize(1);

    assertThatThrownBy(() -> manager.createAtomic(file, false))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(read(fs, file)).isEqualTo("v1");

    try (CancellableFSDataOutputStream again = manager.createAtomic(file, true)) {
      again.write("v2".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(read(fs, file)).isEqualTo("v2");
  }

  @Test
  void aCancelledFileNeverBecomesVisible() throws Exception {
    Path dir = new Path("s3a://lake/ck-cancelled/commits");
    FencedCheckpointFileManager manager = new FencedCheckpointFileManager(dir, conf);
    FileSystem fs = dir.getFileSystem(conf);
    Path file = new Path(dir, "3");
    CancellableFSDataOutputStream out = manager.createAtomic(file, false);
    out.write("half".getBytes(StandardCharsets.UTF_8));
    out.cancel();
    out.close(); // after cancel: nothing
    assertThat(fs.exists(file)).isFalse();
    // And it can be written afterwards.
    try (CancellableFSDataOutputStream retry = manager.createAtomic(file, false)) {
      retry.write("whole".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(read(fs, file)).isEqualTo("whole");
  }

  @Test
  void aCheckpointFileCostsItsProbeAndItsPut() throws Exception {
    Path dir = new Path("s3a://lake/ck-cost/commits");
    FencedCheckpointFileManager manager = new FencedCheckpointFileManager(dir, conf);
    proxy.resetCounts();
    try (CancellableFSDataOutputStream out = manager.createAtomic(new Path(dir, "7"), false)) {
      out.write("{}".getBytes(StandardCharsets.UTF_8));
    }
    // HEAD: is there a file by that name (S3A's own create would ask for a directory too, with a
    // LIST); then the PUT.
    assertThat(proxy.requestsByKind()).containsEntry("HEAD", 1L).containsEntry("PUT", 1L);
    assertThat(proxy.requests()).isEqualTo(2);
  }

  @Test
  void itsOwnDirectoryIsFoundWithOneRequestAndEverythingElseAsBefore() throws Exception {
    Path dir = new Path("s3a://lake/ck-exists/offsets");
    FencedCheckpointFileManager manager = new FencedCheckpointFileManager(dir, conf);
    assertThat(manager.exists(dir)).isFalse();
    manager.mkdirs(dir);
    try (CancellableFSDataOutputStream out = manager.createAtomic(new Path(dir, "0"), false)) {
      out.write("{}".getBytes(StandardCharsets.UTF_8));
    }
    proxy.resetCounts();
    assertThat(manager.exists(dir)).isTrue();
    assertThat(proxy.requests()).isEqualTo(1);
    assertThat(manager.exists(new Path(dir, "0"))).isTrue();
    proxy.resetCounts();
    assertThat(manager.exists(new Path(dir, "1"))).isFalse();
    assertThat(proxy.requests()).as("a batch file: one HEAD, no LIST").isEqualTo(1);
    // A file by the directory's name is found too.
    Path file = new Path("s3a://lake/ck-exists/metadata");
    try (CancellableFSDataOutputStream out = manager.createAtomic(file, false)) {
      out.write("{}".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(new FencedCheckpointFileManager(file, conf).exists(file)).isTrue();
    Path missing = new Path("s3a://lake/ck-exists/commits");
    proxy.resetCounts();
    assertThat(new FencedCheckpointFileManager(missing, conf).exists(missing)).isFalse();
    assertThat(proxy.requests()).isEqualTo(2);
  }

  @Test
  void aListedLogAnswersFromItsListingWithTheManagersOwnWritesAndDeletes() throws Exception {
    Path dir = new Path("s3a://lake/ck-listed/offsets");
    FileSystem fs = dir.getFileSystem(conf);
    FencedCheckpointFileManager writer = new FencedCheckpointFileManager(dir, conf);
    for (String batch : List.of("0", "1")) {
      try (CancellableFSDataOutputStream out = writer.createAtomic(new Path(dir, batch), false)) {
        out.write(("batch " + batch).getBytes(StandardCharsets.UTF_8));
      }
    }
    // As Spark's log at a query's start: a new manager, which lists once.
    FencedCheckpointFileManager manager = new FencedCheckpointFileManager(dir, conf);
    proxy.resetCounts();
    assertThat(names(manager.list(dir))).containsExactlyInAnyOrder("0", "1");
    assertThat(proxy.requests()).as("the listing").isEqualTo(1);

    proxy.resetCounts();
    assertThat(names(manager.list(dir))).containsExactlyInAnyOrder("0", "1");
    assertThat(manager.exists(dir)).isTrue();
    assertThat(manager.exists(new Path(dir, "1"))).isTrue();
    assertThat(manager.exists(new Path(dir, "2"))).isFalse();
    assertThatThrownBy(() -> manager.createAtomic(new Path(dir, "1"), false))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(proxy.requests()).as("answered from the listing").isZero();
    assertThat(read(fs, new Path(dir, "1"))).as("nothing overwritten").isEqualTo("batch 1");

    proxy.resetCounts();
    try (var in = manager.open(new Path(dir, "0"))) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("batch 0");
    }
    assertThat(proxy.requestsByKind()).as("a listed file: one GET").isEqualTo(Map.of("GET", 1L));

    proxy.resetCounts();
    try (CancellableFSDataOutputStream out = manager.createAtomic(new Path(dir, "2"), false)) {
      out.write("batch 2".getBytes(StandardCharsets.UTF_8));
    }
    CancellableFSDataOutputStream cancelled = manager.createAtomic(new Path(dir, "3"), false);
    cancelled.cancel();
    manager.delete(new Path(dir, "0"));
    assertThat(names(manager.list(dir))).containsExactlyInAnyOrder("1", "2");
    assertThat(manager.exists(new Path(dir, "2"))).isTrue();
    assertThat(manager.exists(new Path(dir, "0"))).isFalse();
    assertThat(manager.exists(new Path(dir, "3"))).isFalse();
    assertThat(names(fs.listStatus(dir)))
        .as("the store agrees")
        .containsExactlyInAnyOrder("1", "2");
    try (var in = manager.open(new Path(dir, "2"))) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("batch 2");
    }
  }

  @Test
  void onlyAQuerysOffsetAndCommitLogsAreListedOnce() throws Exception {
    Path dir = new Path("s3a://lake/ck-listed/sources/0");
    FencedCheckpointFileManager manager = new FencedCheckpointFileManager(dir, conf);
    try (CancellableFSDataOutputStream out = manager.createAtomic(new Path(dir, "0"), false)) {
      out.write("{}".getBytes(StandardCharsets.UTF_8));
    }
    manager.list(dir);
    proxy.resetCounts();
    manager.list(dir);
    assertThat(proxy.requests()).as("listed again").isEqualTo(1);
  }

  @Test
  void aFileFoundByExistsIsOpenedWithOneGet() throws Exception {
    Path dir = new Path("s3a://lake/ck-found");
    FencedCheckpointFileManager manager = new FencedCheckpointFileManager(dir, conf);
    Path metadata = new Path(dir, "metadata");
    try (CancellableFSDataOutputStream out = manager.createAtomic(metadata, false)) {
      out.write("{\"id\":\"q\"}".getBytes(StandardCharsets.UTF_8));
    }
    proxy.resetCounts();
    assertThat(manager.exists(metadata)).isTrue();
    try (var in = manager.open(metadata)) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"q\"}");
    }
    assertThat(proxy.requestsByKind()).isEqualTo(Map.of("HEAD", 1L, "GET", 1L));
    assertThat(manager.exists(new Path(dir, "missing"))).isFalse();
  }

  private static List<String> names(org.apache.hadoop.fs.FileStatus[] statuses) {
    return java.util.Arrays.stream(statuses).map(s -> s.getPath().getName()).toList();
  }

  private static String read(FileSystem fs, Path file) throws Exception {
    try (var in = fs.open(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
