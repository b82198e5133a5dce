package io.replaysafe.common.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.storage.CloseableIterator;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.FaultyS3Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager.CancellableFSDataOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Delta's log over S3A through the log store: a commit or checksum file that a listing of its log
 * named is read with one GET (no HEAD) and, read again, from memory; a log made again at the same
 * path is read anew, never from what its predecessor held; anything no listing named is read by
 * name as Delta's own store reads it. A version's checksum is written without a probe.
 */
class FencedLogStoreS3Test {
  private static EmbeddedS3Server server;
  private static FaultyS3Proxy proxy;
  private static Configuration conf;

  @BeforeAll
  static void start() throws Exception {
    server = EmbeddedS3Server.start(0, List.of("lake"));
    proxy = new FaultyS3Proxy(server.endpoint());
    conf = S3aTestConf.of(proxy.endpoint(), server.credentials());
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
  }

  @AfterAll
  static void stop() throws Exception {
    proxy.close();
    server.close();
  }

  private static Path commit(Path log, long version) {
    return new Path(log, String.format("%020d.json", version));
  }

  private static List<String> list(FencedLogStore store, Path log) throws Exception {
    List<String> names = new ArrayList<>();
    Iterator<FileStatus> listing = store.listFrom(commit(log, 0), conf);
    listing.forEachRemaining(s -> names.add(s.getPath().getName()));
    return names;
  }

  private static List<String> read(FencedLogStore store, Path file) throws Exception {
    List<String> lines = new ArrayList<>();
    try (CloseableIterator<String> it = store.read(file, conf)) {
      it.forEachRemaining(lines::add);
    }
    return lines;
  }

  @Test
  void aListedCommitIsReadWithOneGetThenFromMemory() throws Exception {
    FencedLogStore store = new FencedLogStore(conf);
    Path log = new Path("s3a://lake/read-once/_delta_log");
    store.write(commit(log, 0), List.of("{\"a\":1}", "  {\"b\":2}  ").iterator(), false, conf);
    store.write(commit(log, 1), List.of("{\"c\":3}").iterator(), false, conf);
    assertThat(list(store, log))
        .containsExactly("00000000000000000000.json", "00000000000000000001.json");

    proxy.resetCounts();
    assertThat(read(store, commit(log, 0))).containsExactly("{\"a\":1}", "{\"b\":2}");
    assertThat(proxy.requestsByKind()).containsEntry("GET", 1L).doesNotContainKey("HEAD");
    assertThat(proxy.requests()).isEqualTo(1);

    proxy.resetCounts();
    assertThat(read(store, commit(log, 0))).containsExactly("{\"a\":1}", "{\"b\":2}");
    assertThat(read(store, commit(log, 1))).containsExactly("{\"c\":3}");
    assertThat(read(store, commit(log, 1))).containsExactly("{\"c\":3}");
    assertThat(proxy.requestsByKind()).containsEntry("GET", 1L).doesNotContainKey("HEAD");
  }

  @Test
  void aLogMadeAgainAtTheSamePathIsReadAnew() throws Exception {
    FencedLogStore store = new FencedLogStore(conf);
    Path log = new Path("s3a://lake/made-again/_delta_log");
    store.write(commit(log, 0), List.of("{\"status\":\"old\"}").iterator(), false, conf);
    list(store, log);
    assertThat(read(store, commit(log, 0))).containsExactly("{\"status\":\"old\"}");

    // The table dropped and created again: same path, same length, other content.
    log.getFileSystem(conf).delete(log.getParent(), true);
    store.write(commit(log, 0), List.of("{\"status\":\"new\"}").iterator(), false, conf);
    list(store, log);
    assertThat(read(store, commit(log, 0))).containsExactly("{\"status\":\"new\"}");
  }

  @Test
  void whatNoListingNamedIsReadByName() throws Exception {
    FencedLogStore store = new FencedLogStore(conf);
    Path log = new Path("s3a://lake/unlisted/_delta_log");
    store.write(commit(log, 0), List.of("{\"v\":0}").iterator(), false, conf);
    Path lastCheckpoint = new Path(log, "_last_checkpoint");
    store.write(lastCheckpoint, List.of("{\"version\":0}").iterator(), true, conf);

    proxy.resetCounts();
    assertThat(read(store, commit(log, 0))).containsExactly("{\"v\":0}");
    assertThat(read(store, commit(log, 0))).containsExactly("{\"v\":0}");
    // Not listed: each read asks for the object, then gets it, as Delta's own store does.
    assertThat(proxy.requestsByKind()).containsEntry("HEAD", 2L).containsEntry("GET", 2L);

    list(store, log);
    store.write(lastCheckpoint, List.of("{\"version\":1}").iterator(), true, conf);
    assertThat(read(store, lastCheckpoint)).containsExactly("{\"version\":1}");
  }

  @Test
  void aFrozenLogIsListedOnceUntilThisStoreWritesToIt() throws Exception {
    FencedLogStore store = new FencedLogStore(conf);
    Path table = new Path("s3a://lake/frozen");
    Path log = new Path(table, "_delta_log");
    store.write(commit(log, 0), List.of("{\"v\":0}").iterator(), false, conf);
    try (FrozenListings.Scope frozen = FencedLogStore.freezeListing(table.toString(), conf)) {
      proxy.resetCounts();
      assertThat(list(store, log)).containsExactly("00000000000000000000.json");
      assertThat(list(store, log)).containsExactly("00000000000000000000.json");
      List<String> fromOne = new ArrayList<>();
      store
          .listFrom(commit(log, 1), conf)
          .forEachRemaining(f -> fromOne.add(f.getPath().getName()));
      assertThat(fromOne).isEmpty();
      assertThat(proxy.requestsByKind()).containsEntry("LIST", 1L);

      // Written by another process (none may while the lease is held): not seen while frozen.
      try (var out = log.getFileSystem(conf).create(commit(log, 1))) {
        out.write("{\"v\":1}\n".getBytes(StandardCharsets.UTF_8));
      }
      assertThat(list(store, log)).containsExactly("00000000000000000000.json");
      // Written through this store: listed again.
      store.write(commit(log, 2), List.of("{\"v\":2}").iterator(), false, conf);
      assertThat(list(store, log))
          .containsExactly(
              "00000000000000000000.json",
              "00000000000000000001.json",
              "00000000000000000002.json");
    }
    proxy.resetCounts();
    list(store, log);
    list(store, log);
    assertThat(proxy.requestsByKind()).as("thawed: each listing lists").containsEntry("LIST", 2L);
  }

  @Test
  void aVersionsChecksumIsWrittenWithoutAProbe() throws Exception {
    Path log = new Path("s3a://lake/checksum/_delta_log");
    FencedCheckpointFileManager manager = new FencedCheckpointFileManager(log, conf);
    Path crc = new Path(log, "00000000000000000003.crc");
    proxy.resetCounts();
    try (CancellableFSDataOutputStream out = manager.createAtomic(crc, false)) {
      out.write("{\"numFiles\":1}\n".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(proxy.requestsByKind()).containsEntry("PUT", 1L).doesNotContainKey("HEAD");
    assertThat(proxy.requests()).isEqualTo(1);
    // Any other file of the log still may not be overwritten: the probe stays.
    proxy.resetCounts();
    try (CancellableFSDataOutputStream out =
        manager.createAtomic(new Path(log, "00000000000000000003.checkpoint.parquet"), false)) {
      out.write(new byte[] {1});
    }
    assertThat(proxy.requestsByKind()).containsEntry("HEAD", 1L).containsEntry("PUT", 1L);
  }
}
