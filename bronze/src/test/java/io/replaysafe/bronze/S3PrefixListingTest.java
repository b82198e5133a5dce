package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.replaysafe.common.s3.EmbeddedS3Objects;
import io.replaysafe.common.s3.EmbeddedS3Server;
import io.replaysafe.common.testing.FaultyS3Proxy;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.GlobFilter;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.UnknownStoreException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The landing prefix listed with S3A's own client ({@link S3PrefixListing}) against S3A's listing
 * of the same prefix ({@link ListingDiscovery#listFiles}, what every S3 run used until then), on
 * the embedded endpoint behind the counting proxy, seven keys a page: the same files (path, size,
 * modification time, ETag) in the same order for every kind of key, and the same requests, page by
 * page. A key is named without a {@link Path} only where that is S3A's name for it.
 */
class S3PrefixListingTest {
  private static final String BUCKET = "prefix-listing";
  private static final String V1_BUCKET = "prefix-listing-v1";
  private static final int PAGE = 7;

  /** Keys under {@code in/land}, the root listed, and beside it. */
  private static final List<String> KEYS =
      List.of(
          "in/land",
          "in/land-sibling.json",
          "in/landing/other.json",
          "in/land/a.json",
          "in/land/b.json",
          "in/land/x/y/z/deep.json",
          "in/land/date=2026-12-06/hour=01/part-0.json",
          "in/land/date=2026-12-06/hour=02/part-0.json",
          "in/land/a b.json",
          "in/land/odd dir/inner.json",
          "in/land/pct%20.json",
          "in/land/pct%41.json",
          "in/land/plus+sign.json",
          "in/land/c:d.json",
          "in/land/c:d/e.json",
          "in/land/tilde~.json",
          "in/land/h#1.json",
          "in/land/q?.json",
          "in/land/\u00e9t\u00e9.json",
          "in/land/d\u00e9j\u00e0/x.json",
          "in/land/dir/",
          "in/land/dir/inside.json",
          "in/land/empty/",
          "in/land/_temporary/0/part-0.json",
          "in/land/.hidden",
          "in/land/sub/.hidden.json",
          "in/land/sub/kept.json",
          "in/land/_SUCCESS",
          "in/land/_metadata",
          "in/land/_date=1/f.json",
          "in/land/x._COPYING_",
          "in/land/old_$folder$",
          "in/land/a//b.json",
          "in/land/a///c.json",
          "in/land/trailing./x.json",
          "in/land/.../x.json",
          "in/land/./dot.json",
          "in/land/up/../dotdot.json",
          "in/land/.",
          "in/land/up/..",
          "in/land/UPPER_lower-09.JSON",
          "in/land/x=1.json",
          "in/land/notes.txt",
          "only/markers/",
          "only/markers/inner/");

  private static EmbeddedS3Server server;
  private static FaultyS3Proxy proxy;
  private static FileSystem fs;
  private static FileSystem v1;

  @BeforeAll
  static void start() throws IOException {
    server = EmbeddedS3Server.start(0, List.of(BUCKET, V1_BUCKET));
    proxy = new FaultyS3Proxy(server.endpoint());
    List<String> keys = new ArrayList<>(KEYS);
    // More than a page of keys S3A leaves to Spark's filter, then more than a page of plain ones.
    IntStream.range(0, 2 * PAGE).forEach(i -> keys.add("in/land/many/_temporary/t" + i + ".json"));
    IntStream.range(0, 3 * PAGE).forEach(i -> keys.add("in/land/many/f" + i + ".json"));
    for (String bucket : List.of(BUCKET, V1_BUCKET)) {
      for (String key : keys) {
        // Sizes that differ by key, so that a file given another's size is seen.
        byte[] content = ("{\"key\":\"" + key + "\"}\n").getBytes(StandardCharsets.UTF_8);
        EmbeddedS3Objects.put(server, bucket, key, content);
      }
    }
    fs = FileSystem.get(URI.create("s3a://" + BUCKET + "/"), conf());
    Configuration v1Conf = conf();
    v1Conf.setInt("fs.s3a.list.version", 1);
    v1 = FileSystem.get(URI.create("s3a://" + V1_BUCKET + "/"), v1Conf);
  }

  @AfterAll
  static void stop() throws IOException {
    fs.close();
    v1.close();
    proxy.close();
    server.close();
  }

  private static Configuration conf() {
    Configuration conf = new Configuration();
    conf.set("fs.s3a.endpoint", proxy.endpoint().toString());
    conf.set("fs.s3a.endpoint.region", "us-east-1");
    conf.setBoolean("fs.s3a.path.style.access", true);
    conf.setBoolean("fs.s3a.connection.ssl.enabled", false);
    conf.setInt("fs.s3a.bucket.probe", 0);
    conf.set(
        "fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    conf.set("fs.s3a.access.key", server.credentials().accessKeyId());
    conf.set("fs.s3a.secret.key", server.credentials().secretAccessKey());
    conf.setInt("fs.s3a.paging.maximum", PAGE);
    // A request sent outside S3A's audit span fails: every page is sent within the listing's.
    conf.setBoolean("fs.s3a.audit.reject.out.of.span.operations", true);
    return conf;
  }

  /** What one way of listing handed on, and the requests it sent, in order. */
  private record Listed(List<FileState.Discovered> files, List<String> requests) {}

  private interface Lister {
    void list(List<FileState.Discovered> into) throws IOException;
  }

  private static Listed listed(Lister lister) throws IOException {
    proxy.resetCounts();
    proxy.recordTargets(true);
    List<FileState.Discovered> files = new ArrayList<>();
    lister.list(files);
    proxy.recordTargets(false);
    return new Listed(files, proxy.recordedTargets());
  }

  /** S3A's listing and the direct one of {@code root}: the same files and the same requests. */
  private static List<FileState.Discovered> bothWays(String root, String glob) throws IOException {
    GlobFilter filter = glob == null ? null : new GlobFilter(glob);
    Path base = fs.makeQualified(new Path(root));
    Listed s3a = listed(into -> ListingDiscovery.listFiles(fs, base, filter, into::add));
    boolean[] direct = {false};
    Listed ours = listed(into -> direct[0] = S3PrefixListing.list(fs, base, filter, into::add));

    assertThat(direct[0]).as("listed with S3A's client: " + root).isTrue();
    assertThat(ours.files()).as("the files listed under " + root).isEqualTo(s3a.files());
    assertThat(ours.requests()).as("the requests listing " + root).isEqualTo(s3a.requests());
    return ours.files();
  }

  @Test
  void everyKindOfKeyIsListedAsS3AListsItWithTheSameRequests() throws IOException {
    List<FileState.Discovered> files = bothWays("s3a://" + BUCKET + "/in/land", null);

    assertThat(files)
        .extracting(FileState.Discovered::path)
        .contains(
            "s3a://" + BUCKET + "/in/land/a.json",
            "s3a://" + BUCKET + "/in/land/date=2026-12-06/hour=01/part-0.json",
            "s3a://" + BUCKET + "/in/land/a%20b.json",
            "s3a://" + BUCKET + "/in/land/pct%2520.json",
            "s3a://" + BUCKET + "/in/land/a/b.json",
            "s3a://" + BUCKET + "/in/land/_metadata",
            "s3a://" + BUCKET + "/in/land/many/f20.json")
        .noneMatch(p -> p.contains("_temporary") || p.contains("hidden") || p.contains("COPYING"))
        .noneMatch(p -> p.endsWith("/_SUCCESS") || p.contains("folder") || p.contains("sibling"))
        .noneMatch(p -> p.equals("s3a://" + BUCKET + "/in/land"));
    assertThat(files).allMatch(f -> f.etag() != null && f.size() > 0 && f.modifiedMs() > 0);
    assertThat(files.size()).as("more than a page of files").isGreaterThan(4 * PAGE);
  }

  @Test
  void aGlobAndARootWrittenOtherwiseListTheSame() throws IOException {
    assertThat(bothWays("s3a://" + BUCKET + "/in/land", "*.json")).isNotEmpty();
    assertThat(bothWays("s3a://" + BUCKET + "/in/land", "part-*")).hasSize(2);
    assertThat(bothWays("s3a://" + BUCKET + "/in/land", "nothing*")).isEmpty();
    assertThat(bothWays("s3a://" + BUCKET + "/in/land/", null)).isNotEmpty();
    assertThat(bothWays("s3a://" + BUCKET + "/in/land/odd dir", null)).hasSize(1);
    assertThat(bothWays("s3a://" + BUCKET + "/in/land/c:d", null)).hasSize(1);
    assertThat(bothWays("s3a://" + BUCKET + "/", null)).hasSizeGreaterThan(4 * PAGE);
  }

  /**
   * Where S3A's listing holds no entry it looks the root up: a missing root and a directory of
   * markers list no file, a root that is a file lists as that file, with S3A's requests.
   */
  @Test
  void aRootWithoutEntriesIsLookedUpAsS3ALooksItUp() throws IOException {
    assertThat(bothWays("s3a://" + BUCKET + "/in/missing", null)).isEmpty();
    assertThat(bothWays("s3a://" + BUCKET + "/in/land/empty", null)).isEmpty();
    assertThat(bothWays("s3a://" + BUCKET + "/only", null)).isEmpty();
    assertThat(bothWays("s3a://" + BUCKET + "/in/land/a.json", null))
        .extracting(FileState.Discovered::path)
        .containsExactly("s3a://" + BUCKET + "/in/land/a.json");
    assertThat(bothWays("s3a://" + BUCKET + "/in/land/a.json", "*.txt")).isEmpty();

    proxy.resetCounts();
    assertThat(ListingDiscovery.list(fs.getConf(), new Path("s3a://" + BUCKET + "/in/gone"), null))
        .isEmpty();
    assertThat(proxy.requestsByKind(BUCKET)).isEqualTo(java.util.Map.of("LIST", 2L, "HEAD", 1L));
  }

  /** The run's own entry point lists the same, on S3A's client. */
  @Test
  void theRunsListingIsTheDirectOne() throws IOException {
    Path root = new Path("s3a://" + BUCKET + "/in/land");
    List<FileState.Discovered> s3a = new ArrayList<>();
    ListingDiscovery.listFiles(fs, fs.makeQualified(root), null, s3a::add);

    assertThat(ListingDiscovery.list(fs.getConf(), root, null)).isEqualTo(s3a);
  }

  /** Where the direct listing cannot be S3A's, nothing is asked of the store, and S3A lists. */
  @Test
  void listObjectsVersion1IsListedByS3A() throws IOException {
    Path base = v1.makeQualified(new Path("s3a://" + V1_BUCKET + "/in/land"));
    proxy.resetCounts();
    assertThat(S3PrefixListing.list(v1, base, null, f -> {})).isFalse();
    assertThat(proxy.requests()).isZero();

    List<FileState.Discovered> s3a = new ArrayList<>();
    ListingDiscovery.listFiles(v1, base, null, s3a::add);
    assertThat(s3a).hasSizeGreaterThan(4 * PAGE);
    assertThat(ListingDiscovery.list(v1.getConf(), base, null)).isEqualTo(s3a);
  }

  /** A failed listing fails as S3A's does: the same translated exception, message and all. */
  @Test
  void aFailureIsTranslatedAsS3ATranslatesIt() throws IOException {
    Configuration conf = conf();
    try (FileSystem missing = FileSystem.get(URI.create("s3a://no-such-bucket/"), conf)) {
      Path base = missing.makeQualified(new Path("s3a://no-such-bucket/in"));
      Throwable s3a =
          catchThrowable(() -> ListingDiscovery.listFiles(missing, base, null, f -> {}));
      Throwable ours = catchThrowable(() -> S3PrefixListing.list(missing, base, null, f -> {}));

      assertThat(s3a)
          .isInstanceOf(UnknownStoreException.class)
          .hasMessageContaining("s3a://no-such-bucket/in");
      assertThat(ours).isExactlyInstanceOf(s3a.getClass());
      assertThat(ours.getMessage()).isEqualTo(s3a.getMessage());
    }
  }

  @Test
  void plainKeysAreThoseS3ANamesAsTheyAre() {
    assertThat(S3PrefixListing.plainKey("in/land/date=2026-12-06/hour=01/part-0.json")).isTrue();
    assertThat(S3PrefixListing.plainKey("a/.hidden/x_y-Z.9")).isTrue();
    assertThat(S3PrefixListing.plainKey("a/.../x")).isTrue();
    for (String key :
        List.of(
            "", "/a", "a/", "a//b", "a/./b", "a/../b", ".", "..", "a b", "a%20", "a+b", "c:d", "~",
            "h#1", "q?", "\u00e9", "a\\b")) {
      assertThat(S3PrefixListing.plainKey(key)).as(key).isFalse();
    }
  }
}
