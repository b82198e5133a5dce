package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.FaultyS3Proxy;
import io.replaysafe.common.testing.S3LandingZone;
import io.replaysafe.common.testing.SparkTestBase;
import io.replaysafe.common.testing.SystemProperties;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listing's ranges (issue 26, {@link ListedRanges}): a run passes over the ranges of its
 * listing that a committed run recorded as held, and looks up only the rest. Here a range holds
 * four files on average, so 200 files cross about fifty ranges. What must hold: an idle look asks
 * the file state about nothing; a new file is looked up with its range only and ingested once; a
 * file changed in place, a file too old for {@code maxFileAge}, a batch not committed, a record of
 * another file state or one cut short all lead back to the file state, never to a file skipped; and
 * over generated landings, overwrites and removals, bronze equals that of a run without ranges.
 */
class ListedRangesTest extends SparkTestBase {
  private static final long T = 1_700_000_000_000L;

  /** The files landed first: about fifty ranges of four. */
  private static final int FILES = 200;

  /**
   * The most files a landed file can put back into the lookup: its range, and the ranges cut at
   * eight files after it up to the next file that ends a range by its hash (one in four), which a
   * landed file shifts. Forty files in a row none of which ends a range by its hash: about once in
   * 100,000 landings ((3/4)^40).
   */
  private static final long DISTURBED = 40;

  @TempDir Path dir;
  @RegisterExtension final SystemProperties properties = new SystemProperties();

  @BeforeEach
  void smallRanges() {
    properties.set(ListedRanges.RANGE_FILES_PROPERTY, "4");
  }

  private PipelineConfig config(String name, String options) {
    return ConfigLoader.parse(
        "test",
        "name: "
            + name
            + "\nsource:\n  path: "
            + dir.resolve("landing")
            + "\n  schema: \"order_id BIGINT, status STRING\"\n"
            + options
            + "bronze:\n  path: "
            + dir.resolve(name + "-bronze")
            + "\n  checkpoint: "
            + dir.resolve(name + "-checkpoint")
            + "\n");
  }

  private PipelineConfig config() {
    return config("orders", "");
  }

  private void land(String relative, int orderId, long modifiedMs) throws IOException {
    Path file = dir.resolve("landing").resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, "{\"order_id\":" + orderId + ",\"status\":\"Created\"}\n");
    Files.setLastModifiedTime(file, FileTime.fromMillis(modifiedMs));
  }

  private void landMany() throws IOException {
    for (int i = 0; i < FILES; i++) {
      land(String.format("d%d/f%03d.json", i % 3, i), i, T + i * 1_000L);
    }
  }

  /**
   * A run's look at the landing as {@link FirstLook} takes it: a fresh listing discovery of the
   * run's kind against the file state's latest version, after the last committed batch.
   */
  private record Look(List<String> fresh, ListedRanges.Counts counts, ListingDiscovery listing) {}

  private Look look(PipelineConfig config) throws IOException {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    FileState state = FileState.of(spark, config.bronze().checkpoint());
    Map<String, String> options = config.source().options().sparkOptions();
    ListingDiscovery listing = new ListingDiscovery(conf, config.source().path(), options, state);
    long lastCommitted =
        FileSourceLog.lastCommittedBatch(conf, config.bronze().checkpoint()).orElse(-1);
    List<String> fresh =
        NewFiles.among(listing, lastCommitted, state.latest(), BatchLimits.of(options)).stream()
            .map(f -> f.path().substring(f.path().lastIndexOf('/') + 1))
            .sorted()
            .toList();
    return new Look(fresh, listing.lastListing().orElseThrow(), listing);
  }

  private long ingest(PipelineConfig config) {
    return BronzeIngest.from(config, spark).execute().files();
  }

  /** Bronze's rows as file name and order, sorted. */
  private List<String> bronze(PipelineConfig config) {
    return rows(
        spark
            .read()
            .format("delta")
            .load(config.bronze().path())
            .selectExpr("regexp_extract(source_file_name, '[^/]+$', 0) AS name", "order_id")
            .orderBy("order_id", "name"));
  }

  private Path record(PipelineConfig config) {
    return Path.of(config.bronze().checkpoint()).resolve(ListedRanges.FILE);
  }

  @Test
  void anIdleLookAsksNothingAndANewFileIsLookedUpWithItsRangeOnly() throws IOException {
    PipelineConfig config = config();
    landMany();
    assertThat(ingest(config)).isEqualTo(FILES);
    assertThat(record(config)).exists();

    Look idle = look(config);

    assertThat(idle.fresh()).isEmpty();
    assertThat(idle.counts().passedOver()).isEqualTo(FILES);
    assertThat(idle.counts().handedOn()).isZero();
    assertThat(idle.counts().ranges()).isGreaterThan(20);

    land("d1/late.json", 99, T - 86_400_000L); // older than every file ingested
    Look one = look(config);

    assertThat(one.fresh()).containsExactly("late.json");
    // The new file's range and the cuts it shifts, never the listing.
    assertThat(one.counts().handedOn()).isBetween(1L, DISTURBED);
    assertThat(one.counts().passedOver()).isEqualTo(FILES + 1 - one.counts().handedOn());

    assertThat(ingest(config)).isEqualTo(1);
    assertThat(bronze(config)).hasSize(FILES + 1).contains("late.json|99");
    Look after = look(config);
    assertThat(after.fresh()).isEmpty();
    assertThat(after.counts().handedOn()).isZero();
    assertThat(after.counts().passedOver()).isEqualTo(FILES + 1);
  }

  /**
   * {@code replaysafe status} lists as a run does: the ranges recorded as held are counted as
   * ingested without a lookup, a new file and its range are looked up, and the record is read,
   * never written.
   */
  @Test
  void statusWithTheRecordedRangesFindsWhatALookupOfEveryFileFindsAndWritesNothing()
      throws IOException {
    PipelineConfig config = config();
    landMany();
    assertThat(ingest(config)).isEqualTo(FILES);
    land("d2/late.json", 77, T - 86_400_000L);
    byte[] record = Files.readAllBytes(record(config));
    long modified = Files.getLastModifiedTime(record(config)).toMillis();

    PendingFiles pending = PendingFiles.of(spark, config);

    assertThat(pending.files())
        .extracting(f -> f.path().substring(f.path().lastIndexOf('/') + 1))
        .containsExactly("late.json");
    assertThat(pending.alreadyIngested()).isEqualTo(FILES);
    assertThat(pending.tooOld()).isZero();
    assertThat(Files.readAllBytes(record(config))).isEqualTo(record);
    assertThat(Files.getLastModifiedTime(record(config)).toMillis()).isEqualTo(modified);
    // The same answer without the ranges: every listed file looked up.
    properties.set(ListedRanges.RANGE_FILES_PROPERTY, "0");
    PendingFiles without = PendingFiles.of(spark, config);
    assertThat(without.files()).isEqualTo(pending.files());
    assertThat(without.alreadyIngested()).isEqualTo(FILES);
  }

  @Test
  void aFileChangedInPlaceIsLookedUpAgainAndNotIngestedTwice() throws IOException {
    PipelineConfig config = config();
    landMany();
    ingest(config);

    // The same path, new content and modification time: its range's digest changes.
    land("d2/f005.json", 500, T + 100_000L);
    Look changed = look(config);

    // Cut on the path alone: the changed file's own range, at most eight files.
    assertThat(changed.counts().handedOn()).isBetween(1L, 8L);
    assertThat(changed.fresh()).as("the file state holds its path").isEmpty();
    assertThat(ingest(config)).isZero();
    // Looked up and found held: its range is settled, and the next look passes over it.
    assertThat(look(config).counts().handedOn()).isZero();
    assertThat(bronze(config)).hasSize(FILES).doesNotContain("f005.json|500");
  }

  @Test
  void aFileTooOldForMaxFileAgeKeepsItsRangeLookedUp() throws IOException {
    PipelineConfig config = config("aged", "  options: {maxFileAge: \"1d\"}\n");
    landMany();
    assertThat(ingest(config)).isEqualTo(FILES);

    land("d0/ancient.json", 77, T - 10L * 86_400_000L);
    assertThat(ingest(config)).as("too old: not ingested").isZero();

    // Dropped for its age, not held: its range is looked up again at every run.
    Look again = look(config);
    assertThat(again.fresh()).isEmpty(); // dropped again
    assertThat(again.counts().handedOn()).isBetween(1L, DISTURBED);
    ingest(config);
    assertThat(look(config).counts().handedOn()).isEqualTo(again.counts().handedOn());
    assertThat(bronze(config)).hasSize(FILES);
  }

  @Test
  void aRangeWhoseNewFileIsInNoCommittedBatchIsNotRecorded() throws IOException {
    PipelineConfig config = config();
    landMany();
    ingest(config);
    land("d1/new.json", 41, T + 50_000L);

    Look look = look(config);
    assertThat(look.fresh()).containsExactly("new.json");
    String path =
        dir.resolve("landing/d1/new.json").toUri().toString().replace("file:///", "file:/");
    // Planned into batch 1, as a run stopped before that batch committed: the run saw batch 0.
    look.listing().planned(1, List.of(path), List.of());
    look.listing().committed(0);

    Look next = look(config);
    assertThat(next.fresh()).containsExactly("new.json");
    assertThat(next.counts().handedOn()).isBetween(1L, DISTURBED);
  }

  @Test
  void aRecordOfAnotherFileStateOrCutShortIsNotUsed() throws IOException {
    PipelineConfig config = config();
    landMany();
    ingest(config);
    byte[] whole = Files.readAllBytes(record(config));
    ListedRanges.Record read = ListedRanges.parse(whole).orElseThrow();
    assertThat(read.digests().size()).isGreaterThan(3);

    Files.write(record(config), ListedRanges.format("another-file-state", read.digests()));
    Look other = look(config);
    assertThat(other.counts().passedOver()).isZero();
    assertThat(other.counts().handedOn()).isEqualTo(FILES);
    assertThat(other.fresh()).isEmpty();

    Files.write(record(config), Arrays.copyOf(whole, whole.length - 1));
    assertThat(ListedRanges.parse(Files.readAllBytes(record(config)))).isEmpty();
    Look cut = look(config);
    assertThat(cut.counts().passedOver()).isZero();
    assertThat(cut.fresh()).isEmpty();

    // A whole record of the earlier format (one SHA-256 per file), even holding digests that
    // would match today's ranges, is not used: its ranges were hashed otherwise.
    byte[] formatOne = ListedRanges.format(read.tableId(), read.digests());
    java.nio.ByteBuffer.wrap(formatOne).putInt(4, 1);
    byte[] body = Arrays.copyOf(formatOne, formatOne.length - 32);
    System.arraycopy(
        io.replaysafe.common.io.Hashing.sha256().digest(body), 0, formatOne, body.length, 32);
    Files.write(record(config), formatOne);
    assertThat(ListedRanges.parse(formatOne)).isEmpty();
    Look earlier = look(config);
    assertThat(earlier.counts().passedOver()).isZero();
    assertThat(earlier.fresh()).isEmpty();

    // The next run writes the record whole again, for this file state.
    assertThat(ingest(config)).isZero();
    assertThat(ListedRanges.parse(Files.readAllBytes(record(config))).orElseThrow().tableId())
        .isEqualTo(read.tableId());
    assertThat(look(config).counts().passedOver()).isEqualTo(FILES);
  }

  @Test
  void theRecordRoundTripsAndRejectsEveryCutAndFlippedByte() {
    ListedRanges.Digests digests = ListedRanges.Digests.of(new long[] {5, 1, -3, 7, 5, 1, 0, 0});
    assertThat(digests.size()).isEqualTo(3);
    assertThat(digests.contains(-3, 7)).isTrue();
    assertThat(digests.contains(5, 2)).isFalse();
    byte[] bytes = ListedRanges.format("id-1", digests);
    ListedRanges.Record back = ListedRanges.parse(bytes).orElseThrow();
    assertThat(back.tableId()).isEqualTo("id-1");
    assertThat(back.digests()).isEqualTo(digests);
    for (int cut = 0; cut < bytes.length; cut++) {
      assertThat(ListedRanges.parse(Arrays.copyOf(bytes, cut))).as("cut at %d", cut).isEmpty();
    }
    for (int i = 0; i < bytes.length; i++) {
      byte[] flipped = bytes.clone();
      flipped[i] ^= 0x10;
      assertThat(ListedRanges.parse(flipped)).as("byte %d flipped", i).isEmpty();
    }
  }

  /**
   * Generated rounds of landings (new names, names between old ones, old modification times),
   * overwrites and removals (as {@code cleanSource} removes): after each round, a pipeline with
   * ranges holds exactly the bronze of a pipeline without them over the same landing, and every
   * file landed under a new name is in it once.
   */
  @Test
  void overGeneratedRoundsBronzeEqualsARunWithoutRanges() throws IOException {
    PipelineConfig ranged = config("ranged", "");
    PipelineConfig plain = config("plain", "");
    Random random = new Random(26);
    TreeMap<String, Integer> landed = new TreeMap<>();
    int next = 0;
    for (int round = 0; round < 7; round++) {
      int landings = round == 0 ? 30 : random.nextInt(6);
      for (int i = 0; i < landings; i++) {
        String name = String.format("d%d/g%03d.json", random.nextInt(3), random.nextInt(1000));
        if (!landed.containsKey(name)) {
          land(name, next, T + random.nextInt(100_000));
          landed.put(name, next++);
        }
      }
      if (round > 0 && random.nextBoolean()) {
        String old = pick(landed, random);
        land(old, 10_000 + round, T + 200_000L + round); // overwritten: not ingested again
      }
      if (round > 0 && random.nextBoolean()) {
        Files.deleteIfExists(dir.resolve("landing").resolve(pick(landed, random)));
      }
      ingest(ranged);
      properties.set(ListedRanges.RANGE_FILES_PROPERTY, "0");
      try {
        ingest(plain);
      } finally {
        System.setProperty(ListedRanges.RANGE_FILES_PROPERTY, "4");
      }
      assertThat(bronze(ranged)).as("round %d", round).isEqualTo(bronze(plain));
    }
    List<String> expected = new ArrayList<>();
    landed.forEach((name, order) -> expected.add(name.substring(3) + "|" + order));
    assertThat(bronze(ranged)).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(Files.exists(record(plain))).as("no record without ranges").isFalse();
    assertThat(look(ranged).counts().handedOn()).isZero();
  }

  private static String pick(TreeMap<String, Integer> landed, Random random) {
    List<String> names = new ArrayList<>(landed.keySet());
    return names.get(random.nextInt(names.size()));
  }

  /**
   * On S3, through the counting proxy: an idle run over forty files reads the record (a HEAD and a
   * GET) and not the file state's data, and writes nothing; a run with a new file writes the record
   * once, with one PUT and no probe.
   */
  @Test
  void onS3AnIdleRunReadsTheRecordAndNotTheFileState() throws Exception {
    String bucket = "listed-ranges";
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of(bucket));
        FaultyS3Proxy proxy = new FaultyS3Proxy(server.endpoint())) {
      server.credentials().installAsSystemProperties();
      S3LandingZone landing =
          new S3LandingZone(
              StorageConfig.of(server.endpoint().toString(), "us-east-1", true), bucket, "landing");
      for (int i = 0; i < 40; i++) {
        landing.put(
            String.format("f%02d.json", i),
            ("{\"order_id\":" + i + "}\n").getBytes(StandardCharsets.UTF_8));
      }
      PipelineConfig config =
          ConfigLoader.parse(
              "test",
              "name: ranged\nstorage:\n  endpoint: "
                  + proxy.endpoint()
                  + "\n  region: us-east-1\n  pathStyleAccess: true\n"
                  + "source:\n  path: s3a://"
                  + bucket
                  + "/landing/\n  schema: \"order_id BIGINT\"\n"
                  + "bronze:\n  path: s3a://"
                  + bucket
                  + "/bronze\n  checkpoint: s3a://"
                  + bucket
                  + "/checkpoint\n");
      assertThat(ingest(config)).isEqualTo(40);
      String record = "/" + bucket + "/checkpoint/" + ListedRanges.FILE;

      proxy.resetCounts();
      proxy.recordTargets(true);
      assertThat(ingest(config)).isZero();
      List<String> idle = proxy.recordedTargets();

      assertThat(idle)
          .filteredOn(r -> r.endsWith(record))
          .containsExactly("HEAD " + record, "GET " + record);
      assertThat(idle)
          .as("the file state's data is not read")
          .noneMatch(r -> r.startsWith("GET /" + bucket + "/checkpoint/file_state/part-"));

      landing.put("f40.json", "{\"order_id\":40}\n".getBytes(StandardCharsets.UTF_8));
      proxy.resetCounts();
      proxy.recordTargets(true);
      assertThat(ingest(config)).isEqualTo(1);
      // Written once, without a probe. (Its read is not pinned here: the proxy may count a read's
      // GET after the run, when the stream is drained.)
      assertThat(proxy.recordedTargets())
          .filteredOn(r -> r.endsWith(record) && !r.startsWith("GET "))
          .containsExactly("HEAD " + record, "PUT " + record);
    }
  }

  @Test
  void rangesAreOffWithZeroAndOnlyPowersOfTwoAreTaken() {
    properties.set(ListedRanges.RANGE_FILES_PROPERTY, "0");
    assertThat(ListedRanges.of(new Configuration(), dir.toString())).isEqualTo(Optional.empty());
    System.setProperty(ListedRanges.RANGE_FILES_PROPERTY, "6");
    org.assertj.core.api.Assertions.assertThatThrownBy(ListedRanges::rangeFiles)
        .hasMessageContaining("power of two");
  }
}
