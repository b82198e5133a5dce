package io.replaysafe.bronze;

import io.replaysafe.common.CrashPoints;
import io.replaysafe.common.io.DirectPut;
import io.replaysafe.common.io.Hashing;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a listing run knows of its listing before it asks the file state (issue 26): the listing is
 * cut into ranges where it stands, each range's files hashed into one digest, and a range whose
 * digest a run recorded as settled (every file in it, with the same size, modification time and
 * ETag, held by a committed batch) is not looked up again. An idle run over a prefix of any size
 * then asks the file state nothing, and holds one range at a time, not a lookup chunk of up to
 * 100,000 files (17 MiB of an idle run at 100,000 files); a run with one new file looks up the one
 * range it fell into.
 *
 * <p>The ranges are cut by content, not by count: a file ends its range when the low bits of its
 * path's hash are zero (one file in {@link #rangeFiles()} on average), or when the range reaches
 * twice that many files. A file landing, or one gone, changes the one range it falls into, and the
 * ranges around it keep their digests. The cut follows the listing's order: S3's (by key) and a
 * local directory's (as the file system keeps it) do not change for the files already there.
 *
 * <p>Why it cannot skip a new file: a digest is SHA-256 over the range's files (their path, size,
 * modification time and ETag), and is recorded only when each of those files was held by a batch up
 * to one the run saw committed, found so by the file state ({@link #notHeld}) or planned by this
 * run ({@link #planned}). A file held by a committed batch is held for good: the file state forgets
 * only batches that were never planned. A file too old for {@code maxFileAge}, or left for a later
 * batch, keeps its range unsettled, so it is looked up every run, as before. The record names the
 * file state it was made for (its Delta table id), so a new file state starts from nothing, and
 * ends in a SHA-256 of its own bytes, so a record cut short by a crash is not read (the run then
 * looks everything up, once).
 *
 * <p>Kept at {@code <checkpoint>/}{@value #FILE}: one small file (16 bytes per range, about 6 KB
 * for 100,000 files), read once per run and written only when it changes, at the run's end ({@link
 * #committed}). A listing of no more than two ranges' worth of files (512 by default) neither reads
 * nor writes it: the lookup of that few files is small, and on S3 the record would cost the run a
 * HEAD, a GET and a PUT.
 */
final class ListedRanges {
  private static final Logger LOG = LoggerFactory.getLogger(ListedRanges.class);

  static final String FILE = "listed_ranges";

  /**
   * The system property that sets the files in a range on average (a power of two, {@value
   * #RANGE_FILES_DEFAULT} by default; tests set it low to cross ranges with few files); 0 turns the
   * ranges off (every listed file is looked up, as before them).
   */
  static final String RANGE_FILES_PROPERTY = "replaysafe.bronze.listedRangeFiles";

  static final int RANGE_FILES_DEFAULT = 256;

  private static final int MAGIC = 0x52534c52; // "RSLR"
  private static final int FORMAT = 2;
  private static final byte[] SEED = "replaysafe listed range v2".getBytes(StandardCharsets.UTF_8);

  private final Configuration conf;
  private final Path file;
  private final int cutMask;
  private final int maxFiles;

  /** The ranges known to be settled, for the next listing; null until the record was read. */
  private Digests known;

  /** The file state the known ranges are of; null before it exists. */
  private String tableId;

  /** What the record holds, so that an unchanged one is not written again; null when none. */
  private Digests recorded;

  /** The latest listing's ranges; null before the first. */
  private Listing listing;

  private ListedRanges(Configuration conf, Path file, int rangeFiles) {
    this.conf = conf;
    this.file = file;
    this.cutMask = rangeFiles - 1;
    this.maxFiles = 2 * rangeFiles;
  }

  /** The ranges of the checkpoint's listings, or empty when the ranges are turned off. */
  static Optional<ListedRanges> of(Configuration conf, String checkpoint) {
    int rangeFiles = rangeFiles();
    return rangeFiles == 0
        ? Optional.empty()
        : Optional.of(new ListedRanges(conf, new Path(checkpoint, FILE), rangeFiles));
  }

  static int rangeFiles() {
    int n = Integer.getInteger(RANGE_FILES_PROPERTY, RANGE_FILES_DEFAULT);
    if (n < 0 || Integer.bitCount(Math.max(n, 1)) != 1) {
      throw new IllegalArgumentException(
          RANGE_FILES_PROPERTY + " must be 0 or a power of two, not " + n);
    }
    return n;
  }

  /**
   * Lists through {@code listing} and hands on to {@code each} the files of every range not known
   * to be settled; the files of a known range are passed over. What it handed on must be decided by
   * the file state, and the answer given to {@link #notHeld}, before any range of this listing is
   * recorded as settled.
   *
   * @param state the file state's version the lookup asks (its table id decides whether the record
   *     is of this file state)
   * @param byName whether files are known by name only ({@code fileNameOnly}): part of each digest
   */
  void undecided(
      Consumer<Consumer<FileState.Discovered>> listing,
      FileState.Version state,
      boolean byName,
      Consumer<FileState.Discovered> each) {
    Listing current = new Listing();
    this.listing = current;
    Cutter cutter = new Cutter(current, byName, each);
    // A listing of up to two ranges' worth of files is handed on whole, as before the ranges: its
    // lookup is small, and the record is then neither read nor written (on S3 a HEAD, a GET and a
    // PUT a run).
    List<FileState.Discovered> head = new ArrayList<>();
    listing.accept(
        f -> {
          if (current.large) {
            cutter.accept(f);
            return;
          }
          head.add(f);
          if (head.size() > maxFiles) {
            current.large = true;
            readOnce(state.tableId());
            head.forEach(cutter);
            head.clear();
          }
        });
    if (!current.large) {
      head.forEach(each);
      current.handedOn = head.size();
      return;
    }
    cutter.end();
    current.listed = true;
  }

  /** Cuts a listing into ranges as its files come, and decides each range as it ends. */
  private final class Cutter implements Consumer<FileState.Discovered> {
    private final Listing current;
    private final byte seed;
    private final Consumer<FileState.Discovered> each;
    private final MessageDigest range = Hashing.sha256();
    // A path's length, then a file's size, modification time and ETag length: at most 20 bytes.
    private final ByteBuffer numbers = ByteBuffer.allocate(20);
    private final List<FileState.Discovered> open = new ArrayList<>();

    Cutter(Listing current, boolean byName, Consumer<FileState.Discovered> each) {
      this.current = current;
      this.seed = (byte) (byName ? 1 : 0);
      this.each = each;
      range.update(SEED);
      range.update(seed);
    }

    @Override
    public void accept(FileState.Discovered f) {
      digest(range, numbers, f);
      open.add(f);
      if ((cutHash(f.path()) & cutMask) == 0 || open.size() >= maxFiles) {
        current.close(range, open, known, each);
        range.update(SEED);
        range.update(seed);
      }
    }

    void end() {
      if (!open.isEmpty()) {
        current.close(range, open, known, each);
      }
    }
  }

  /**
   * The file state's answer for what {@link #undecided} handed on: {@code fresh} are the files no
   * planned batch holds (before {@code maxFileAge} drops any); every other file it handed on is
   * held.
   */
  void notHeld(List<FileState.Discovered> fresh) {
    Listing current = listing;
    if (current == null || !current.listed || current.decided) {
      return;
    }
    Map<Long, List<String>> freshByHash = new HashMap<>();
    for (FileState.Discovered f : fresh) {
      long first = memberHash(f);
      freshByHash.computeIfAbsent(first, k -> new ArrayList<>(1)).add(f.path());
      current.plannedIn.put(f.path(), -1L);
    }
    if (!freshByHash.isEmpty()) {
      for (int i = 0; i < current.memberHashes.size(); i++) {
        List<String> paths = freshByHash.get(current.memberHashes.get(i));
        if (paths != null) {
          // A 64-bit hash two files share puts each in both ranges: more lookups, nothing skipped.
          current
              .freshByRange
              .computeIfAbsent(current.memberRanges.get(i), r -> new ArrayList<>())
              .addAll(paths);
        }
      }
    }
    current.memberHashes = null;
    current.memberRanges = null;
    current.decided = true;
    LOG.info(
        "Listing of {} file(s) in {} range(s): {} in ranges known to be held, not looked up; {}"
            + " looked up in the file state, {} of them new",
        current.passedOver + current.handedOn,
        current.ranges,
        current.passedOver,
        current.handedOn,
        fresh.size());
  }

  /** {@code paths} were planned into {@code batch}. */
  void planned(long batch, List<String> paths) {
    Listing current = listing;
    if (current == null) {
      return;
    }
    for (String p : paths) {
      current.plannedIn.replace(p, batch);
    }
  }

  /**
   * Every batch up to {@code lastCommitted} committed (a continuous query, each trigger): the next
   * listing passes over the ranges settled by then. Nothing is written.
   */
  void release(long lastCommitted) {
    // A small listing cut no ranges: what is known stands for the next large one.
    if (listing != null && listing.listed) {
      known = listing.settled(lastCommitted);
    }
  }

  /**
   * The run's batches up to {@code lastCommitted} committed: the latest listing's settled ranges
   * are recorded, when they differ from the record, for the file state {@code tableIdNow} gives
   * when none was known at the listing (the file state a first run created).
   */
  void committed(long lastCommitted, Optional<String> tableIdNow) {
    Listing current = listing;
    if (current == null || !current.listed) {
      return;
    }
    Digests settled = current.settled(lastCommitted);
    known = settled;
    String id = tableId != null ? tableId : tableIdNow.orElse(null);
    if (id == null || (settled.equals(recorded) && id.equals(tableId))) {
      return;
    }
    try {
      write(id, settled);
      recorded = settled;
      tableId = id;
    } catch (IOException e) {
      // A record not written costs the next run its lookups, and loses nothing.
      LOG.warn("Could not record the listed ranges at {}: {}", file, e.toString());
    }
    // Crash matrix only: the listing's settled ranges recorded.
    CrashPoints.maybeCrash(CrashPoints.BRONZE_AFTER_LISTED_RANGES);
  }

  /** What the latest listing found, for tests and the log. */
  Optional<Counts> lastListing() {
    return Optional.ofNullable(listing).map(l -> new Counts(l.ranges, l.passedOver, l.handedOn));
  }

  /** A listing's ranges, and the files passed over (in known ranges) and handed on to a lookup. */
  record Counts(int ranges, long passedOver, long handedOn) {}

  /**
   * Where ranges are cut: a hash of the path alone, so a file changed in place (its digest changes)
   * leaves the cuts where they were. Not a secure hash, and need not be: a producer who names files
   * so that none ends a range only makes ranges of {@code maxFiles}; what decides whether a range
   * is known is its SHA-256.
   */
  private static int cutHash(String path) {
    int h = path.hashCode(); // murmur3's finalizer spreads String's hash over the low bits
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }

  /**
   * Adds one file to a range's digest: its path, size, modification time and ETag, each path and
   * ETag preceded by its length, so that no two lists of files give the same bytes. One SHA-256
   * over the range, not one per file: a listed file costs its bytes' hashing and nothing more.
   */
  private static void digest(MessageDigest range, ByteBuffer numbers, FileState.Discovered f) {
    byte[] path = f.path().getBytes(StandardCharsets.UTF_8);
    byte[] etag = f.etag() == null ? null : f.etag().getBytes(StandardCharsets.UTF_8);
    numbers.clear();
    numbers.putInt(path.length);
    range.update(numbers.array(), 0, 4);
    range.update(path);
    numbers.clear();
    numbers.putLong(f.size()).putLong(f.modifiedMs()).putInt(etag == null ? -1 : etag.length);
    range.update(numbers.array(), 0, 20);
    if (etag != null) {
      range.update(etag);
    }
  }

  /**
   * A 64-bit hash of a file handed on to the file state, to find the range of each file it found
   * not held. Not a secure hash, and need not be: files that share one put each other's range among
   * those not settled (more lookups the next run), never the reverse.
   */
  private static long memberHash(FileState.Discovered f) {
    long h = f.path().hashCode();
    h = h * 0x9E3779B97F4A7C15L + f.size();
    h = h * 0x9E3779B97F4A7C15L + f.modifiedMs();
    h = h * 0x9E3779B97F4A7C15L + (f.etag() == null ? 0 : f.etag().hashCode());
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return h;
  }

  /** Reads the record once; a record of another file state, or not whole, is known as nothing. */
  private void readOnce(String stateTableId) {
    if (known != null) {
      if (stateTableId != null && !stateTableId.equals(tableId)) {
        if (tableId != null) {
          known = Digests.EMPTY; // another file state than the one the known ranges are of
        }
        tableId = stateTableId; // else the one this run created: what it settled stands
      }
      return;
    }
    known = Digests.EMPTY;
    tableId = stateTableId;
    if (stateTableId == null) {
      return; // no file state yet: every file is new, nothing recorded applies
    }
    Optional<Record> read = read();
    if (read.isEmpty()) {
      return;
    }
    recorded = read.get().digests();
    if (!stateTableId.equals(read.get().tableId())) {
      LOG.info(
          "The listed ranges at {} are of another file state ({}, not {}): every file is looked up",
          file,
          read.get().tableId(),
          stateTableId);
      recorded = null;
      return;
    }
    known = read.get().digests();
  }

  record Record(String tableId, Digests digests) {}

  private Optional<Record> read() {
    byte[] bytes;
    try {
      FileSystem fs = file.getFileSystem(conf);
      try (InputStream in = fs.open(file)) {
        bytes = in.readAllBytes();
      }
    } catch (FileNotFoundException missing) {
      return Optional.empty();
    } catch (IOException e) {
      LOG.warn("Could not read the listed ranges at {}: {}", file, e.toString());
      return Optional.empty();
    }
    Optional<Record> parsed = parse(bytes);
    ByteBuffer head = ByteBuffer.wrap(bytes);
    // The format the record names after its magic number; one that names none is taken as this
    // format's, cut short.
    int format = bytes.length >= 8 && head.getInt(0) == MAGIC ? head.getInt(4) : FORMAT;
    if (parsed.isEmpty() && format != FORMAT) {
      // Format 1 (before one digest per range) hashed each file apart: its digests match none.
      LOG.info(
          "The listed ranges at {} are of format {}, not {}: every file is looked up once, and the"
              + " ranges are recorded anew",
          file,
          format,
          FORMAT);
      return parsed;
    }
    if (parsed.isEmpty()) {
      LOG.warn("The listed ranges at {} are not whole (a write cut short?): ignored", file);
    }
    return parsed;
  }

  /** The record in {@code bytes}, or empty when they are not one whole record of this format. */
  static Optional<Record> parse(byte[] bytes) {
    if (bytes.length < 32) {
      return Optional.empty();
    }
    byte[] body = Arrays.copyOf(bytes, bytes.length - 32);
    byte[] trailer = Arrays.copyOfRange(bytes, bytes.length - 32, bytes.length);
    if (!MessageDigest.isEqual(Hashing.sha256().digest(body), trailer)) {
      return Optional.empty();
    }
    try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(body))) {
      if (in.readInt() != MAGIC || in.readInt() != FORMAT) {
        return Optional.empty();
      }
      String id = in.readUTF();
      int n = in.readInt();
      if (n < 0 || (long) n * 16 != in.available()) {
        return Optional.empty();
      }
      long[] pairs = new long[2 * n];
      for (int i = 0; i < pairs.length; i++) {
        pairs[i] = in.readLong();
      }
      return Optional.of(new Record(id, Digests.of(pairs)));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  static byte[] format(String id, Digests digests) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeInt(FORMAT);
      out.writeUTF(id);
      out.writeInt(digests.size());
      for (long v : digests.pairs) {
        out.writeLong(v);
      }
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory", e);
    }
    byte[] body = bytes.toByteArray();
    byte[] whole = Arrays.copyOf(body, body.length + 32);
    System.arraycopy(Hashing.sha256().digest(body), 0, whole, body.length, 32);
    return whole;
  }

  /**
   * Writes the record whole: on S3 one PUT, which replaces the object at once; elsewhere under a
   * temporary name, then renamed over the record. Either way a reader finds the old record, the new
   * one, or (a rename that could not replace) none, never part of one.
   */
  private void write(String id, Digests digests) throws IOException {
    byte[] bytes = format(id, digests);
    FileSystem fs = file.getFileSystem(conf);
    String scheme = fs.getUri().getScheme();
    if ("s3a".equals(scheme) || "s3".equals(scheme)) {
      try (OutputStream out = DirectPut.create(fs, file)) {
        out.write(bytes);
      }
      return;
    }
    if (fs instanceof LocalFileSystem local) {
      fs = local.getRaw(); // no .crc beside the record: its own trailer checks it
    }
    Path temporary = new Path(file.getParent(), "." + FILE + "." + System.nanoTime() + ".tmp");
    try (OutputStream out = fs.create(temporary, true)) {
      out.write(bytes);
    }
    if (!fs.rename(temporary, file)) {
      fs.delete(file, false);
      if (!fs.rename(temporary, file)) {
        fs.delete(temporary, false);
        throw new IOException("could not rename " + temporary + " to " + file);
      }
    }
  }

  /** One listing's ranges as they were decided. */
  private static final class Listing {
    /** The digests of the ranges passed over (known settled). */
    private final LongList matched = new LongList();

    /** The digests of the ranges handed on, two longs per range, by range number. */
    private final LongList unknown = new LongList();

    /** Each handed-on file's {@link #memberHash} and range number, until decided. */
    private LongList memberHashes = new LongList();

    private IntList memberRanges = new IntList();

    /** Each file the file state found not held: the batch this run planned it into, or -1. */
    private final Map<String, Long> plannedIn = new HashMap<>();

    /** The files not held, by the range number they were handed on in. */
    private final Map<Integer, List<String>> freshByRange = new HashMap<>();

    private int ranges;
    private long passedOver;
    private long handedOn;

    /** More files than a small listing: cut into ranges, the record read. */
    private boolean large;

    private boolean listed;
    private boolean decided;

    /** Ends the open range: passed over when known, else each file handed on. */
    void close(
        MessageDigest range,
        List<FileState.Discovered> open,
        Digests known,
        Consumer<FileState.Discovered> each) {
      ByteBuffer d = ByteBuffer.wrap(range.digest());
      long high = d.getLong();
      long low = d.getLong();
      ranges++;
      if (known.contains(high, low)) {
        matched.add(high);
        matched.add(low);
        passedOver += open.size();
      } else {
        int number = unknown.size() / 2;
        unknown.add(high);
        unknown.add(low);
        for (FileState.Discovered f : open) {
          memberHashes.add(memberHash(f));
          memberRanges.add(number);
        }
        handedOn += open.size();
        for (FileState.Discovered f : open) {
          each.accept(f);
        }
      }
      open.clear();
    }

    /**
     * The ranges every file of which is held by a batch up to {@code lastCommitted}: those passed
     * over, and, once the file state decided the rest, those whose files not held were all planned
     * into such a batch.
     */
    Digests settled(long lastCommitted) {
      LongList settled = new LongList();
      settled.addAll(matched);
      if (decided) {
        for (int r = 0; r < unknown.size() / 2; r++) {
          List<String> fresh = freshByRange.getOrDefault(r, List.of());
          boolean all = true;
          for (String p : fresh) {
            long batch = plannedIn.getOrDefault(p, -1L);
            if (batch < 0 || batch > lastCommitted) {
              all = false;
              break;
            }
          }
          if (all) {
            settled.add(unknown.get(2 * r));
            settled.add(unknown.get(2 * r + 1));
          }
        }
      }
      return Digests.of(settled.toArray());
    }
  }

  /** A set of 128-bit digests, as sorted pairs of longs: 16 bytes each, searched in place. */
  static final class Digests {
    static final Digests EMPTY = new Digests(new long[0]);
    private final long[] pairs;

    private Digests(long[] pairs) {
      this.pairs = pairs;
    }

    static Digests of(long[] pairs) {
      int n = pairs.length / 2;
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> compare(pairs, 2 * a, pairs[2 * b], pairs[2 * b + 1]));
      long[] sorted = new long[2 * n];
      int kept = 0;
      for (int i : order) {
        long high = pairs[2 * i];
        long low = pairs[2 * i + 1];
        if (kept == 0 || sorted[2 * kept - 2] != high || sorted[2 * kept - 1] != low) {
          sorted[2 * kept] = high;
          sorted[2 * kept + 1] = low;
          kept++;
        }
      }
      return new Digests(Arrays.copyOf(sorted, 2 * kept));
    }

    int size() {
      return pairs.length / 2;
    }

    boolean contains(long high, long low) {
      int lo = 0;
      int hi = size() - 1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int c = compare(pairs, 2 * mid, high, low);
        if (c < 0) {
          lo = mid + 1;
        } else if (c > 0) {
          hi = mid - 1;
        } else {
          return true;
        }
      }
      return false;
    }

    private static int compare(long[] pairs, int at, long high, long low) {
      int c = Long.compare(pairs[at], high);
      return c != 0 ? c : Long.compare(pairs[at + 1], low);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Digests d && Arrays.equals(pairs, d.pairs);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(pairs);
    }
  }

  /** A growable list of longs, without a box per value. */
  private static final class LongList {
    private long[] values = new long[16];
    private int size;

    void add(long v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    void addAll(LongList other) {
      for (int i = 0; i < other.size; i++) {
        add(other.values[i]);
      }
    }

    long get(int i) {
      return values[i];
    }

    int size() {
      return size;
    }

    void clear() {
      size = 0;
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }

  /** A growable list of ints, without a box per value. */
  private static final class IntList {
    private int[] values = new int[16];
    private int size;

    void add(int v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    int get(int i) {
      return values[i];
    }
  }
}
