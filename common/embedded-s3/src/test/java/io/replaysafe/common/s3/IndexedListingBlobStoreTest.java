package io.replaysafe.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.TransientApiMetadata;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.domain.BlobMetadata;
import org.jclouds.blobstore.domain.MultipartPart;
import org.jclouds.blobstore.domain.MultipartUpload;
import org.jclouds.blobstore.domain.PageSet;
import org.jclouds.blobstore.domain.StorageMetadata;
import org.jclouds.blobstore.domain.StorageType;
import org.jclouds.blobstore.options.CopyOptions;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.jclouds.blobstore.options.PutOptions;
import org.jclouds.io.ContentMetadata;
import org.jclouds.io.Payloads;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link IndexedListingBlobStore} against jclouds' transient store, differentially: the same
 * operations go to an independent transient store and through the index to its own transient
 * delegate, and every listing must be the same element for element. Against its own delegate the
 * comparison is total (the metadata are the same objects' down to the modification time); against
 * the independent store it is everything but the times the two stores stamped.
 */
class IndexedListingBlobStoreTest {
  private static final String BUCKET = "lake";
  private static final String OTHER = "other";

  /** Keys whose listings differ in the ways S3A and jclouds care about. */
  private static final List<String> SPECIAL_KEYS =
      List.of(
          "a",
          "a/",
          "a-b",
          "a/b",
          "a/b/",
          "a/b/c",
          "a/b/c/",
          "a/b/c/d.json",
          "a/bc",
          "a/b-c",
          "a//b",
          "a/b//",
          "/",
          "/lead",
          "b/",
          "b/x/",
          "b/x/y/z.json",
          "c/d/e/f/g",
          "ü/ñ",
          "ü/",
          "日本/データ.json",
          "😀/😀",
          "a/😀/b",
          "x",
          "x\uffff",
          "x\uffff/y",
          " space/ key",
          "plus+sign/%20",
          "dir_$folder$");

  private static final List<String> SEGMENTS =
      List.of("a", "b", "a-b", "c.json", "ü", "日本", "😀", "x y", "d");

  private BlobStoreContext plainContext;
  private BlobStoreContext indexedContext;

  /** An independent transient store that gets the same operations. */
  private BlobStore plain;

  /** The transient store under the index. */
  private BlobStore delegate;

  private IndexedListingBlobStore indexed;

  /** The keys put so far (some since removed), to draw prefixes and markers from. */
  private final TreeSet<String> seen = new TreeSet<>();

  private final List<Upload> openUploads = new ArrayList<>();

  @BeforeEach
  void setUp() {
    plainContext = transientContext();
    indexedContext = transientContext();
    plain = plainContext.getBlobStore();
    delegate = indexedContext.getBlobStore();
    indexed = new IndexedListingBlobStore(delegate);
    plain.createContainerInLocation(null, BUCKET);
    indexed.createContainerInLocation(null, BUCKET);
  }

  @AfterEach
  void tearDown() {
    plainContext.close();
    indexedContext.close();
  }

  @Test
  void randomOperationsThenListingsAreTheTransientStores() {
    Random random = new Random(20_240_611L);
    SPECIAL_KEYS.forEach(key -> put(key, random));
    for (int round = 0; round < 12; round++) {
      for (int op = 0; op < 60; op++) randomOperation(random);
      // Uploads in progress show as blobs with random ids, which differ between the two stores:
      // only the index's own delegate can be compared while there are any.
      for (int i = 0; i < 200; i++) assertSameListing(randomOptions(random), false);
      for (int i = 0; i < 15; i++) assertSameWalk(randomOptions(random), 1 + random.nextInt(7));
      while (!openUploads.isEmpty()) finishUpload(openUploads.get(0), random);
      for (int i = 0; i < 200; i++) assertSameListing(randomOptions(random), true);
      for (int i = 0; i < 15; i++) assertSameWalk(randomOptions(random), 1 + random.nextInt(7));
    }
  }

  @Test
  void directoryMarkersAndCommonPrefixesAreListedAsTheTransientStoreListsThem() {
    Random random = new Random(1L);
    for (String key : List.of("a", "a-b", "a/", "a/b", "a/b/c", "empty/")) {
      put(key, random);
    }
    // A blob named like a common prefix (S3A's directory marker) is listed in its place.
    assertThat(names(indexed.list(BUCKET, new ListContainerOptions().delimiter("/"))))
        .containsExactly("BLOB a", "BLOB a-b", "BLOB a/", "BLOB empty/");
    assertThat(names(indexed.list(BUCKET, new ListContainerOptions().prefix("a/").delimiter("/"))))
        .containsExactly("BLOB a/", "BLOB a/b", "RELATIVE_PATH a/b/");
    assertThat(
            names(indexed.list(BUCKET, new ListContainerOptions().prefix("empty/").delimiter("/"))))
        .containsExactly("BLOB empty/");
    assertThat(names(indexed.list(BUCKET, new ListContainerOptions().prefix("a").recursive())))
        .containsExactly("BLOB a", "BLOB a-b", "BLOB a/", "BLOB a/b", "BLOB a/b/c");

    indexed.removeBlob(BUCKET, "a/");
    assertThat(names(indexed.list(BUCKET, new ListContainerOptions().delimiter("/"))))
        .containsExactly("BLOB a", "BLOB a-b", "RELATIVE_PATH a/", "BLOB empty/");

    PageSet<? extends StorageMetadata> first =
        indexed.list(BUCKET, new ListContainerOptions().delimiter("/").maxResults(2));
    assertThat(names(first)).containsExactly("BLOB a", "BLOB a-b");
    assertThat(first.getNextMarker()).isEqualTo("a-b");
    PageSet<? extends StorageMetadata> second =
        indexed.list(
            BUCKET, new ListContainerOptions().delimiter("/").maxResults(2).afterMarker("a-b"));
    assertThat(names(second)).containsExactly("RELATIVE_PATH a/", "BLOB empty/");
    assertThat(second.getNextMarker()).isNull();
    // A marker inside a common prefix passes the whole prefix, as the transient store does.
    assertThat(
            names(
                indexed.list(BUCKET, new ListContainerOptions().delimiter("/").afterMarker("a/b"))))
        .containsExactly("BLOB empty/");
    assertSameListing(new ListContainerOptions().delimiter("/").afterMarker("a/b"), true);
  }

  @Test
  void optionsErrorsAndMissingContainersAreTheTransientStores() {
    put("a/b", new Random(2L));
    assertSameListing(new ListContainerOptions().prefix("a").inDirectory("a"), true);
    assertSameListing(new ListContainerOptions().recursive().delimiter("/"), true);
    assertSameListing(new ListContainerOptions().inDirectory("a").delimiter("/"), true);
    assertThat(outcome(() -> indexed.list("missing", new ListContainerOptions())))
        .isEqualTo(outcome(() -> plain.list("missing", new ListContainerOptions())))
        .startsWith("org.jclouds.blobstore.ContainerNotFoundException");
  }

  @Test
  void containerOperationsKeepTheIndexTheStores() {
    Random random = new Random(3L);
    SPECIAL_KEYS.forEach(key -> put(key, random));
    both(store -> store.createContainerInLocation(null, OTHER));
    both(store -> store.copyBlob(BUCKET, "a/b/c", OTHER, "copied/c", CopyOptions.NONE));
    assertSameListing(OTHER, new ListContainerOptions().recursive(), true);
    Boolean deleted = both(store -> store.deleteContainerIfEmpty(OTHER));
    assertThat(deleted).isFalse();
    both(
        store -> {
          store.createDirectory(OTHER, "made");
          return null;
        });
    assertSameListing(OTHER, new ListContainerOptions().recursive(), true);
    both(
        store -> {
          store.deleteDirectory(OTHER, "copied");
          return null;
        });
    assertSameListing(OTHER, new ListContainerOptions().recursive(), true);
    both(
        store -> {
          store.deleteContainer(OTHER);
          return null;
        });
    assertSameListing(OTHER, new ListContainerOptions(), true);
    both(store -> store.createContainerInLocation(null, OTHER));
    assertThat(names(indexed.list(OTHER, new ListContainerOptions().recursive()))).isEmpty();

    both(
        store -> {
          store.clearContainer(BUCKET, new ListContainerOptions().prefix("a/").recursive());
          return null;
        });
    assertSameListing(new ListContainerOptions().recursive(), true);
    both(
        store -> {
          store.clearContainer(BUCKET);
          return null;
        });
    assertThat(names(indexed.list(BUCKET, new ListContainerOptions().recursive()))).isEmpty();
    assertSameListing(new ListContainerOptions().recursive(), true);
  }

  @Test
  void aStoreOverADelegateWithContentsIndexesThem() {
    Random random = new Random(4L);
    SPECIAL_KEYS.forEach(key -> put(key, random));
    // A container the index has not seen yet is listed by the delegate: no stale answer.
    delegate.createContainerInLocation(null, OTHER);
    delegate.putBlob(OTHER, delegate.blobBuilder("behind/the/back").payload("x").build());
    assertThat(names(indexed.list(OTHER, new ListContainerOptions().recursive())))
        .containsExactly("BLOB behind/the/back");

    IndexedListingBlobStore fresh = new IndexedListingBlobStore(delegate);
    for (ListContainerOptions options :
        List.of(
            new ListContainerOptions().recursive(),
            new ListContainerOptions().delimiter("/"),
            new ListContainerOptions().prefix("a/").delimiter("/").maxResults(3))) {
      assertThat(listing(fresh.list(BUCKET, options), true))
          .isEqualTo(listing(delegate.list(BUCKET, options), true));
    }
    assertThat(names(fresh.list(OTHER, new ListContainerOptions().delimiter("/"))))
        .containsExactly("RELATIVE_PATH behind/");
  }

  @Test
  void aCommonPrefixSpelledLikeTheTransientStoresSentinelIsListed() {
    // LocalBlobStore marks "no common prefix" with the string NO_PREFIX and so drops a real one of
    // that name with its keys; the index lists it, as S3 does.
    indexed.putBlob(BUCKET, indexed.blobBuilder("NO_PREFIX/x").payload("x").build());
    assertThat(names(indexed.list(BUCKET, new ListContainerOptions().delimiter("/"))))
        .containsExactly("RELATIVE_PATH NO_PREFIX/");
  }

  @Test
  void multipartUploadsInProgressCompletedInPartAndAbortedListAsTheStoreListsThem() {
    put("data/x", new Random(5L));
    MultipartUpload kept =
        indexed.initiateMultipartUpload(
            BUCKET, blobMetadata(indexed, "data/big"), new PutOptions());
    MultipartUpload dropped =
        indexed.initiateMultipartUpload(
            BUCKET, blobMetadata(indexed, "data/gone"), new PutOptions());
    List<MultipartPart> parts = new ArrayList<>();
    for (int part = 1; part <= 3; part++) {
      parts.add(
          indexed.uploadMultipartPart(
              kept,
              part,
              Payloads.newByteArrayPayload(("part " + part).getBytes(StandardCharsets.UTF_8))));
      indexed.uploadMultipartPart(dropped, part, Payloads.newByteArrayPayload(new byte[part]));
    }
    // The transient store keeps an upload's stub and parts as blobs, and lists them.
    assertThat(names(indexed.list(BUCKET, new ListContainerOptions().recursive())))
        .hasSize(1 + 2 * 4);
    assertSameListing(new ListContainerOptions().recursive(), false);

    // Completed with two of its three parts: the third stays behind, as in the transient store.
    indexed.completeMultipartUpload(kept, parts.subList(0, 2));
    indexed.abortMultipartUpload(dropped);
    List<String> left = names(indexed.list(BUCKET, new ListContainerOptions().recursive()));
    assertThat(left).hasSize(3).contains("BLOB data/big", "BLOB data/x");
    assertThat(left.get(0)).startsWith("BLOB .mpus-" + kept.id() + "-data/big-3");
    assertSameListing(new ListContainerOptions().recursive(), false);
    assertSameListing(new ListContainerOptions().delimiter("/"), false);
    assertThat(
            indexed
                .list(BUCKET, new ListContainerOptions().prefix("data/big"))
                .iterator()
                .next()
                .getSize())
        .isEqualTo(12L);
  }

  @Test
  void racingWritesOfTheSameKeysLeaveTheIndexAsTheStore() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        writers.add(
            pool.submit(
                () -> {
                  Random random = new Random(thread);
                  for (int i = 0; i < 1_000; i++) {
                    String key = "k/" + random.nextInt(8);
                    if (random.nextInt(4) == 0) {
                      indexed.removeBlob(BUCKET, key);
                    } else {
                      byte[] content = ("writer " + thread + " write " + i).getBytes();
                      indexed.putBlob(BUCKET, indexed.blobBuilder(key).payload(content).build());
                    }
                  }
                }));
      }
      for (Future<?> writer : writers) {
        writer.get();
      }
    } finally {
      pool.shutdownNow();
    }
    ListContainerOptions all = new ListContainerOptions().recursive();
    assertThat(listing(indexed.list(BUCKET, all), true))
        .isEqualTo(listing(delegate.list(BUCKET, all), true));
  }

  // ---- operations, applied to both stores ----

  private void randomOperation(Random random) {
    int dice = random.nextInt(100);
    if (dice < 35 || seen.isEmpty()) {
      put(random.nextInt(4) == 0 ? pick(SPECIAL_KEYS, random) : randomKey(random), random);
    } else if (dice < 50) {
      put(pick(seen, random), random); // an overwrite, or a put again after a removal
    } else if (dice < 63) {
      String key = pick(seen, random);
      both(
          store -> {
            store.removeBlob(BUCKET, key);
            return null;
          });
    } else if (dice < 66) {
      String key = randomKey(random) + "-never-put";
      both(
          store -> {
            store.removeBlob(BUCKET, key);
            return null;
          });
    } else if (dice < 71) {
      List<String> keys = new ArrayList<>();
      for (int i = random.nextInt(5); i >= 0; i--) keys.add(pick(seen, random));
      both(
          store -> {
            store.removeBlobs(BUCKET, keys);
            return null;
          });
    } else if (dice < 80) {
      String from = pick(seen, random);
      String to = random.nextBoolean() ? pick(seen, random) : randomKey(random);
      if (plain.blobExists(BUCKET, from)) {
        seen.add(to);
        both(store -> store.copyBlob(BUCKET, from, BUCKET, to, CopyOptions.NONE));
      }
    } else if (dice < 85) {
      String key = random.nextBoolean() ? pick(seen, random) : randomKey(random);
      openUploads.add(
          new Upload(
              plain.initiateMultipartUpload(BUCKET, blobMetadata(plain, key), new PutOptions()),
              indexed.initiateMultipartUpload(
                  BUCKET, blobMetadata(indexed, key), new PutOptions())));
    } else if (dice < 94) {
      if (!openUploads.isEmpty()) {
        Upload upload = pick(openUploads, random);
        int partNumber = upload.plainParts.size() + 1;
        byte[] content = randomContent(random);
        upload.plainParts.add(
            plain.uploadMultipartPart(
                upload.plain, partNumber, Payloads.newByteArrayPayload(content)));
        upload.indexedParts.add(
            indexed.uploadMultipartPart(
                upload.indexed, partNumber, Payloads.newByteArrayPayload(content)));
      }
    } else if (!openUploads.isEmpty()) {
      finishUpload(pick(openUploads, random), random);
    }
  }

  /** Completes {@code upload} with all its parts, or aborts it. */
  private void finishUpload(Upload upload, Random random) {
    openUploads.remove(upload);
    if (random.nextInt(4) == 0) {
      plain.abortMultipartUpload(upload.plain);
      indexed.abortMultipartUpload(upload.indexed);
      return;
    }
    seen.add(upload.plain.blobName());
    assertThat(indexed.completeMultipartUpload(upload.indexed, upload.indexedParts))
        .isEqualTo(plain.completeMultipartUpload(upload.plain, upload.plainParts));
  }

  private void put(String key, Random random) {
    seen.add(key);
    byte[] content = randomContent(random);
    String contentType = random.nextBoolean() ? "application/json" : null;
    Map<String, String> user = random.nextInt(3) == 0 ? Map.of("Owner", "bronze") : Map.of();
    both(
        store -> {
          var builder = store.blobBuilder(key).userMetadata(user).payload(content);
          if (contentType != null) builder.contentType(contentType);
          return store.putBlob(BUCKET, builder.build());
        });
  }

  /** Applies {@code operation} to the independent store and to the index; both must agree. */
  private <T> T both(Function<BlobStore, T> operation) {
    T expected = operation.apply(plain);
    T actual = operation.apply(indexed);
    assertThat(actual).isEqualTo(expected);
    return actual;
  }

  private static BlobMetadata blobMetadata(BlobStore store, String key) {
    Blob blob = store.blobBuilder(key).payload(new byte[0]).contentType("text/plain").build();
    return blob.getMetadata();
  }

  // ---- listings ----

  private ListContainerOptions randomOptions(Random random) {
    var options = new ListContainerOptions();
    boolean dir = random.nextInt(10) == 0;
    if (dir) {
      String directory = randomPrefix(random);
      if (!directory.equals("/")) options.inDirectory(directory);
    } else if (random.nextInt(5) != 0) {
      options.prefix(randomPrefix(random));
    }
    boolean recursive = random.nextInt(3) == 0;
    if (recursive) options.recursive();
    if (!dir && !recursive) {
      int delimiter = random.nextInt(10);
      if (delimiter < 6) options.delimiter("/");
      else if (delimiter == 6) options.delimiter("-");
      else if (delimiter == 7) options.delimiter("b/");
      else if (delimiter == 8) options.delimiter("");
    }
    if (random.nextInt(50) == 0) options.delimiter("/"); // sometimes invalid with the rest
    if (random.nextInt(3) != 0) options.afterMarker(randomMarker(random));
    if (random.nextInt(4) != 0) {
      // Mostly a page smaller than the listing, sometimes 0, sometimes larger.
      options.maxResults(random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(seen.size() + 2));
    }
    if (random.nextBoolean()) options.withDetails();
    return options;
  }

  /** Prefixes in and between keys: whole keys, keys cut anywhere, keys with a slash added. */
  private String randomPrefix(Random random) {
    String key = pick(seen, random);
    return switch (random.nextInt(6)) {
      case 0 -> "";
      case 1 -> key;
      case 2 -> key + "/";
      case 3 -> key.contains("/") ? key.substring(0, key.lastIndexOf('/') + 1) : key;
      case 4 -> randomKey(random);
      default -> key.substring(0, random.nextInt(key.length() + 1));
    };
  }

  private String randomMarker(Random random) {
    String key = pick(seen, random);
    return switch (random.nextInt(6)) {
      case 0 -> key;
      case 1 -> key + "0";
      case 2 -> key.substring(0, random.nextInt(key.length() + 1));
      case 3 -> key.contains("/") ? key.substring(0, key.indexOf('/') + 1) : key + "/";
      case 4 -> randomKey(random);
      default -> "";
    };
  }

  private void assertSameListing(ListContainerOptions options, boolean withIndependentStore) {
    assertSameListing(BUCKET, options, withIndependentStore);
  }

  private void assertSameListing(
      String container, ListContainerOptions options, boolean withIndependentStore) {
    assertThat(outcome(() -> listing(indexed.list(container, options), true)))
        .as("%s against the index's delegate", options)
        .isEqualTo(outcome(() -> listing(delegate.list(container, options), true)));
    if (withIndependentStore) {
      assertThat(outcome(() -> listing(indexed.list(container, options), false)))
          .as("%s against an independent store", options)
          .isEqualTo(outcome(() -> listing(plain.list(container, options), false)));
    }
  }

  /** Follows the next markers from the start with pages of {@code pageSize}, as S3A pages. */
  private void assertSameWalk(ListContainerOptions options, int pageSize) {
    if (options.getDir() != null && options.getPrefix() != null
        || (options.getDir() != null || options.isRecursive()) && options.getDelimiter() != null) {
      return; // rejected: assertSameListing covers the errors
    }
    assertThat(walk(indexed, options, pageSize))
        .as("%s in pages of %d", options, pageSize)
        .isEqualTo(walk(delegate, options, pageSize));
  }

  private static List<Listing> walk(BlobStore store, ListContainerOptions options, int pageSize) {
    List<Listing> pages = new ArrayList<>();
    ListContainerOptions page = options.clone().maxResults(pageSize);
    while (true) {
      Listing listing = listing(store.list(BUCKET, page), true);
      pages.add(listing);
      if (listing.nextMarker() == null) return pages;
      assertThat(pages).as("pages of %s", options).hasSizeLessThan(10_000);
      page = page.clone().afterMarker(listing.nextMarker());
    }
  }

  private record Listing(List<String> elements, String nextMarker) {}

  private static Listing listing(PageSet<? extends StorageMetadata> page, boolean withTimes) {
    List<String> elements = new ArrayList<>();
    page.forEach(element -> elements.add(describe(element, withTimes)));
    return new Listing(elements, page.getNextMarker());
  }

  /** Everything a listing's element says (but the modification time, unless asked). */
  private static String describe(StorageMetadata element, boolean withTimes) {
    var text =
        new StringBuilder()
            .append(element.getClass().getSimpleName())
            .append(' ')
            .append(element.getType())
            .append(' ')
            .append(element.getName())
            .append(" size=")
            .append(element.getSize())
            .append(" etag=")
            .append(element.getETag())
            .append(" user=")
            .append(new TreeMap<>(element.getUserMetadata()))
            .append(" tier=")
            .append(element.getTier())
            .append(" id=")
            .append(element.getProviderId())
            .append(" uri=")
            .append(element.getUri())
            .append(" location=")
            .append(element.getLocation())
            .append(" created=")
            .append(element.getCreationDate());
    if (withTimes) {
      text.append(" modified=").append(element.getLastModified());
    }
    if (element instanceof BlobMetadata blob) {
      ContentMetadata content = blob.getContentMetadata();
      text.append(" container=")
          .append(blob.getContainer())
          .append(" publicUri=")
          .append(blob.getPublicUri())
          .append(" contentType=")
          .append(content.getContentType())
          .append(" length=")
          .append(content.getContentLength())
          .append(" md5=")
          .append(content.getContentMD5AsHashCode())
          .append(" disposition=")
          .append(content.getContentDisposition())
          .append(" encoding=")
          .append(content.getContentEncoding())
          .append(" language=")
          .append(content.getContentLanguage())
          .append(" cacheControl=")
          .append(content.getCacheControl())
          .append(" expires=")
          .append(content.getExpires());
    }
    return text.toString();
  }

  private static List<String> names(PageSet<? extends StorageMetadata> page) {
    List<String> names = new ArrayList<>();
    for (StorageMetadata element : page) {
      assertThat(element.getType()).isIn(StorageType.BLOB, StorageType.RELATIVE_PATH);
      names.add(element.getType() + " " + element.getName());
    }
    return names;
  }

  /** The value, or the exception's class and message: both stores must fail alike. */
  private static String outcome(Supplier<Object> call) {
    try {
      return String.valueOf(call.get());
    } catch (RuntimeException e) {
      return e.getClass().getName() + ": " + e.getMessage();
    }
  }

  // ---- data ----

  private static String randomKey(Random random) {
    var key = new StringBuilder();
    for (int depth = 1 + random.nextInt(4); depth > 0; depth--) {
      key.append(pick(SEGMENTS, random)).append(depth > 1 ? "/" : "");
    }
    return random.nextInt(4) == 0 ? key + "/" : key.toString();
  }

  /** Empty, all zeroes (which the transient store keeps apart), or a few text bytes. */
  private static byte[] randomContent(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> new byte[0];
      case 1 -> new byte[1 + random.nextInt(9)];
      default -> ("content " + random.nextInt(1_000)).getBytes(StandardCharsets.UTF_8);
    };
  }

  private static <T> T pick(Collection<T> from, Random random) {
    List<T> list = from instanceof List<T> l ? l : new ArrayList<>(from);
    return list.get(random.nextInt(list.size()));
  }

  private static BlobStoreContext transientContext() {
    return ContextBuilder.newBuilder(new TransientApiMetadata()).build(BlobStoreContext.class);
  }

  /** One multipart upload, begun in both stores (their ids differ). */
  private static final class Upload {
    final MultipartUpload plain;
    final MultipartUpload indexed;
    final List<MultipartPart> plainParts = new ArrayList<>();
    final List<MultipartPart> indexedParts = new ArrayList<>();

    Upload(MultipartUpload plain, MultipartUpload indexed) {
      this.plain = plain;
      this.indexed = indexed;
    }
  }
}
