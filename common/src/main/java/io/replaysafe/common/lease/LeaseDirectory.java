package io.replaysafe.common.lease;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.RunErrors;
import io.replaysafe.common.io.Json;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BulkDelete;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * Where the claims are stored: the lease directory, one JSON object per claim version named {@code
 * <id>.v<version>.json}, on the pipeline's own store through Hadoop's FileSystem, so one code path
 * serves a local disk and {@code s3a://}. Every version is a new object, never an overwrite: a
 * renewal can then not recreate a claim another writer deleted. It knows nothing of who wins;
 * {@link PipelineLease} decides that.
 */
final class LeaseDirectory {
  static final String SUFFIX = ".json";

  /** A claim being written on a local disk (see {@link #createWhole}): never read as a claim. */
  static final String TEMP_SUFFIX = ".tmp";

  static final Duration ABANDONED_AFTER = Duration.ofMinutes(10);

  /** hadoop-aws 3.5's createFile option for {@code If-None-Match: *}; other stores ignore it. */
  static final String CONDITIONAL_CREATE = "fs.option.create.conditional.overwrite";

  private static final ObjectMapper JSON = Json.mapper();

  private final FileSystem fs;
  private final Path dir;

  private LeaseDirectory(FileSystem fs, Path dir) {
    this.fs = fs;
    this.dir = dir;
  }

  static LeaseDirectory open(String location, Configuration hadoop) {
    Path dir = new Path(location);
    FileSystem fs;
    try {
      fs = dir.getFileSystem(hadoop);
    } catch (IOException e) {
      throw LeaseErrors.cannotOpen(location, e);
    }
    if (fs instanceof LocalFileSystem local) {
      fs = local.getRaw(); // no .crc side files next to the claims
    }
    return new LeaseDirectory(fs, dir);
  }

  Path path() {
    return dir;
  }

  Path fileOf(LeaseClaim claim) {
    return new Path(dir, claim.id() + ".v" + claim.version() + SUFFIX);
  }

  /** A claim and the object it is stored in. */
  record Stored(Path file, LeaseClaim claim) {
    /** The object's name: what another writer watches for a change. */
    String name() {
      return file.getName();
    }
  }

  /** Every claim in the directory (none when it does not exist yet). */
  List<Stored> claims() {
    return claims(null);
  }

  /**
   * The same for the writer of {@code mine}: the objects of its own claim ({@code <id>.v<n>.json})
   * are listed with {@code mine} as their claim, not read. Its lease decisions ask only which of
   * its own objects are there, never what they say, so a GET of each (two per renewal, three as it
   * takes the lease) would only read back what it wrote; no other writer writes under its id.
   */
  List<Stored> claims(LeaseClaim mine) {
    FileStatus[] statuses;
    try {
      statuses = fs.listStatus(dir);
    } catch (FileNotFoundException e) {
      return List.of();
    } catch (IOException e) {
      throw LeaseErrors.cannotList(dir, e);
    }
    List<Stored> claims = new ArrayList<>();
    for (FileStatus status : statuses) {
      String name = status.getPath().getName();
      if (status.isFile() && name.endsWith(TEMP_SUFFIX)) {
        deleteAbandoned(status);
        continue;
      }
      if (!status.isFile() || !name.endsWith(SUFFIX)) {
        continue;
      }
      if (mine != null && name.startsWith(mine.id() + ".v")) {
        claims.add(new Stored(status.getPath(), mine));
        continue;
      }
      // Empty: withdrawn between the listing and the read.
      read(status).ifPresent(c -> claims.add(new Stored(status.getPath(), c)));
    }
    return claims;
  }

  /**
   * A claim as stored. One being overwritten may read as empty or cut on a local disk for a moment:
   * it is read again, and if still unreadable counts as a live claim by an unknown holder, with the
   * file's modification time as its heartbeat.
   */
  private Optional<LeaseClaim> read(FileStatus status) {
    for (int attempt = 0; attempt < 3; attempt++) {
      // The listing's status saves a request, but names the version listed: a claim rewritten
      // since (claiming -> held, a heartbeat) then fails S3A's version check. Retries re-open.
      try (InputStream in = attempt == 0 ? open(status) : fs.open(status.getPath())) {
        return Optional.of(JSON.readValue(in.readAllBytes(), LeaseClaim.class));
      } catch (FileNotFoundException e) {
        return Optional.empty();
      } catch (IOException e) {
        sleep(50);
      }
    }
    String name = status.getPath().getName();
    return Optional.of(
        LeaseClaim.unreadable(
            name.substring(0, name.length() - SUFFIX.length()),
            status.getPath().toString(),
            Instant.ofEpochMilli(status.getModificationTime())));
  }

  private InputStream open(FileStatus status) throws IOException {
    try {
      return fs.openFile(status.getPath())
          .withFileStatus(status)
          .opt("fs.option.openfile.read.policy", "whole-file")
          .build()
          .get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted reading " + status.getPath());
    }
  }

  /**
   * Writes {@code claim} as a new object (never over another one, where the store can refuse that:
   * local disk, AWS S3; the embedded endpoint overwrites, which the names' uniqueness makes moot).
   */
  void create(LeaseClaim claim) {
    Path file = fileOf(claim);
    try {
      byte[] bytes = JSON.writeValueAsBytes(claim);
      if (fs instanceof RawLocalFileSystem local && createWhole(local, file, bytes)) {
        return;
      }
      FSDataOutputStreamBuilder<?, ?> builder = fs.createFile(file);
      builder.overwrite(false).recursive();
      builder.opt(CONDITIONAL_CREATE, true);
      // The name is unique: S3A's probes for an existing file or directory there are waste.
      builder.opt("fs.s3a.create.performance", true);
      try (OutputStream out = builder.build()) {
        out.write(bytes);
      }
    } catch (IOException e) {
      throw LeaseErrors.cannotWriteClaim(file, e);
    }
  }

  /**
   * On a local disk, a claim is written whole under a temporary name and then linked to its own. A
   * create-then-write left an empty claim when the process was killed between the two, and an
   * unreadable claim counts as held by an unknown writer until it has stayed unchanged for its time
   * to live: every restart after such a kill waited minutes. A hard link, unlike a rename, fails
   * where the name exists, so a claim is still never written over another. False where the file
   * system has no hard links; the caller then creates the claim in place.
   */
  private static boolean createWhole(RawLocalFileSystem local, Path file, byte[] bytes)
      throws IOException {
    java.nio.file.Path target = local.pathToFile(file).toPath();
    Files.createDirectories(target.getParent());
    java.nio.file.Path temp =
        target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + TEMP_SUFFIX);
    Files.write(temp, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    CrashPoints.maybeCrash(CrashPoints.LEASE_CLAIM_MID_WRITE);
    try {
      Files.createLink(target, temp);
      return true;
    } catch (UnsupportedOperationException e) {
      return false;
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Temporary files of {@link #createWhole} left by a process killed between its two steps: those
   * older than {@link #ABANDONED_AFTER} (a claim is written in microseconds) are deleted.
   */
  private void deleteAbandoned(FileStatus status) {
    long age = System.currentTimeMillis() - status.getModificationTime();
    if (age > ABANDONED_AFTER.toMillis()) {
      delete(status.getPath());
    }
  }

  /**
   * Deletes a claim, best effort. Through the file system's bulk delete, which deletes the object
   * and nothing else: on S3A one DELETE, where {@code delete(file, false)} first asks what the path
   * is (HEAD) and afterwards whether its parent needs a directory marker (LIST), three requests
   * each time a renewal replaces a claim and when the lease is released. A claim is always a file
   * here, and the directory's listing tolerates its absence ({@link #claims}).
   */
  void delete(Path file) {
    try (BulkDelete bulk = fs.createBulkDelete(file.getParent())) {
      bulk.bulkDelete(List.of(file));
      return;
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      // Not in bulk: the plain delete below.
    }
    try {
      fs.delete(file, false);
    } catch (IOException e) {
      // A dead claim left behind is deleted by the next writer; a withdrawn one of ours expires.
    }
  }

  /** Sleeps between attempts; an interrupt ends the attempt to take the lease. */
  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw RunErrors.interrupted("taking the writer's lease", e);
    }
  }
}
