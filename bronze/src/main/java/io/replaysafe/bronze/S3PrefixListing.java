package io.replaysafe.bronze;

import static org.apache.hadoop.fs.statistics.StoreStatisticNames.OBJECT_CONTINUE_LIST_REQUEST;
import static org.apache.hadoop.fs.statistics.StoreStatisticNames.OBJECT_LIST_REQUEST;
import static org.apache.hadoop.fs.statistics.StoreStatisticNames.OP_LIST_FILES;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.GlobFilter;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.Invoker;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.S3AInternals;
import org.apache.hadoop.fs.s3a.S3AStore;
import org.apache.hadoop.fs.s3a.S3AUtils;
import org.apache.hadoop.fs.s3a.S3ListRequest;
import org.apache.hadoop.fs.s3a.commit.CommitConstants;
import org.apache.hadoop.fs.s3a.impl.StoreContext;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding;
import org.apache.hadoop.fs.store.audit.AuditSpan;
import org.apache.hadoop.util.VersionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The landing prefix on S3A, listed with the SDK client, request, retries and audit span S3A's own
 * {@code listFiles(root, true)} uses, and each key named without a {@link Path} where S3A's name
 * for it is the key itself. S3A names every listed key through {@code keyToQualifiedPath}: a {@link
 * Path} built from {@code "/" + key} and qualified, two {@link URI}s parsed and normalised by
 * regular expression, about 1 microsecond of our listing's time a file on top of S3A's
 * (bench-discovery: 0.14 s above the bare listing at 100,000 files, 0.06 s at 1,000). A {@linkplain
 * #plainKey plain key} is named here as S3A named the listing's first plain key, with that name's
 * part before the key; any other key is named by S3A. The file is then the one {@code
 * ListingDiscovery.discovered} makes of S3A's status: the same path string, size, modification time
 * in milliseconds and ETag (as S3 sent it, quotes included, as S3A keeps it). {@code
 * S3PrefixListingTest} lists every kind of key both ways and compares.
 *
 * <p>Read from Hadoop 3.5.0's {@code S3AFileSystem.listFiles} and {@code Listing}: one flat
 * ListObjectsV2 of {@code pathToKey(root) + "/"} built by S3A ({@code createListObjectsRequest},
 * {@code fs.s3a.paging.maximum} keys a page), continued page by page, the next page asked for as
 * soon as the last one arrived, on a thread of its own, so at most two pages are held. Of each page
 * S3A keeps the keys that are neither a directory marker (ending in {@code /}), nor an old S3N
 * marker ({@code _$folder$}), nor the listed path itself. Where it kept none at all, S3A looks the
 * root up ({@code getFileStatus}: HEAD, then LIST), and a root that is a file lists as that file, a
 * missing one fails with {@link FileNotFoundException}: so here, the same requests.
 *
 * <p>Each page's request goes through S3A's own {@link Invoker} (its retry policy, {@code
 * fs.s3a.retry.*}) around the SDK client S3A built (its own retries, {@code
 * fs.s3a.attempts.maximum}), counted in S3A's statistics (read operations, {@code
 * object_list_request}), within an audit span of S3A's, and a failure is translated as S3A
 * translates it ({@code listObjects()} and the root's path). What is given up: the listing's own
 * {@code IOStatistics}, which S3A adds to the thread's statistics context when its iterator closes,
 * and its debug logging of each page: the file system's statistics still count every request.
 */
final class S3PrefixListing {
  private static final Logger LOG = LoggerFactory.getLogger(S3PrefixListing.class);

  /**
   * Whether this JVM's S3A is one whose listing this class follows (read in Hadoop 3.5's source),
   * with the internals it uses; false from the first time they turned out to be missing. On Hadoop
   * 3.4 (the previous Spark line), the landing prefix is listed through S3A's {@code listFiles}.
   */
  private static volatile boolean usable = VersionInfo.getVersion().startsWith("3.5.");

  /**
   * The suffix of the old S3N connector's directory markers, which S3A's listing still leaves out
   * (its {@code Constants.S3N_FOLDER_SUFFIX}, deprecated in Hadoop 3.5 but still used there).
   */
  private static final String S3N_DIRECTORY_MARKER = "_$folder$";

  /** The thread each listing's next page is asked for on, as S3A asks on a pool of its own. */
  private static final ExecutorService NEXT_PAGES =
      Executors.newCachedThreadPool(
          new java.util.concurrent.ThreadFactory() {
            private final AtomicInteger threads = new AtomicInteger();

            @Override
            public Thread newThread(Runnable r) {
              Thread t = new Thread(r, "bronze-s3-listing-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            }
          });

  private final S3AFileSystem fs;
  private final S3Client client;
  private final S3AStore store;
  private final Invoker invoker;

  /** The root as S3A qualifies it: the path S3A's listing leaves out. */
  private final Path listed;

  private S3PrefixListing(
      S3AFileSystem fs, S3Client client, S3AStore store, Invoker invoker, Path listed) {
    this.fs = fs;
    this.client = client;
    this.store = store;
    this.invoker = invoker;
    this.listed = listed;
  }

  /**
   * Hands on each data file under {@code base} (qualified) as {@link ListingDiscovery} hands on
   * those of S3A's {@code listFiles(base, true)}, and returns true; returns false having asked
   * nothing of the store where it cannot list the way S3A does: a file system other than {@link
   * S3AFileSystem} itself (a subclass may list otherwise), another Hadoop version, S3A's internals
   * missing, ListObjects version 1 ({@code fs.s3a.list.version}), client-side encryption (S3A lists
   * each file's unpadded size), a root under a magic committer's {@code __magic} directory (whose
   * lookup S3A may answer from memory). Requester-pays buckets and access points are S3A's client
   * and request factory's business, used here as they are.
   */
  static boolean list(
      FileSystem fs, Path base, GlobFilter glob, Consumer<FileState.Discovered> each)
      throws IOException {
    if (!usable || fs.getClass() != S3AFileSystem.class) {
      return false;
    }
    S3PrefixListing listing;
    try {
      listing = of((S3AFileSystem) fs, base);
    } catch (LinkageError | UnsupportedOperationException e) {
      usable = false;
      LOG.debug("S3A's internals are not available here: {} is listed through S3A", base, e);
      return false;
    }
    if (listing == null) {
      return false;
    }
    listing.list(glob, each);
    return true;
  }

  /** The listing of {@code base} with {@code fs}'s own client; null where it cannot be S3A's. */
  private static S3PrefixListing of(S3AFileSystem fs, Path base) {
    Path listed = fs.qualify(base);
    if (listed.toUri().getPath().contains(CommitConstants.MAGIC)) {
      return null;
    }
    S3AInternals internals = fs.getS3AInternals();
    S3AStore store = internals.getStore();
    StoreContext context = store.getStoreContext();
    if (context.isUseListV1() || context.isCSEEnabled()) {
      return null;
    }
    // S3A's own client: its credentials, endpoint, retries and request-payer header. Asking for it
    // logs at debug only (Hadoop 3.5.0), and returns a field: once a listing is enough.
    S3Client client = internals.getAmazonS3Client("bronze listing of the landing prefix");
    if (client == null) {
      return null; // closed: S3A's listing says so in its own words
    }
    return new S3PrefixListing(fs, client, store, context.getInvoker(), listed);
  }

  private void list(GlobFilter glob, Consumer<FileState.Discovered> each) throws IOException {
    int depth = listed.depth();
    // Whether S3A's listing would have held an entry; where none, it looks the root up.
    boolean anyEntry = false;
    // What precedes a plain key in S3A's name for it; null until S3A named one.
    String named = null;
    CompletableFuture<ListObjectsV2Response> next = null;
    // The span S3A's listFiles opens: its audit (the referrer header, out-of-span checks) and the
    // request factory's. Made active on each thread that sends a page, as S3A's listing does.
    try (AuditSpan span = fs.createSpan(OP_LIST_FILES, fs.pathToKey(listed), null)) {
      S3ListRequest request =
          fs.createListObjectsRequest(
              S3AUtils.maybeAddTrailingSlash(fs.pathToKey(listed)), /* no delimiter */ null);
      ListObjectsV2Request first = request.getV2();
      String text = request.toString();
      next = page(span, text, first, OBJECT_LIST_REQUEST);
      boolean firstPage = true;
      while (next != null) {
        CompletableFuture<ListObjectsV2Response> arriving = next;
        ListObjectsV2Response page =
            firstPage
                ? IOStatisticsBinding.trackDuration(
                    store.getDurationTrackerFactory(), OP_LIST_FILES, () -> arrived(arriving))
                : arrived(arriving);
        firstPage = false;
        next =
            Boolean.TRUE.equals(page.isTruncated())
                ? page(
                    span,
                    text,
                    first.toBuilder().continuationToken(page.nextContinuationToken()).build(),
                    OBJECT_CONTINUE_LIST_REQUEST)
                : null;
        for (S3Object object : page.contents()) {
          String key = object.key();
          if (S3AUtils.objectRepresentsDirectory(key) || key.endsWith(S3N_DIRECTORY_MARKER)) {
            continue;
          }
          String path;
          String uriPath;
          Path file = null;
          if (named != null && plainKey(key)) {
            path = named + key;
            uriPath = "/" + key;
          } else {
            file = fs.keyToQualifiedPath(key);
            if (file.equals(listed)) {
              continue;
            }
            URI uri = file.toUri();
            path = uri.toString();
            uriPath = uri.getPath();
            if (named == null && plainKey(key) && path.endsWith("/" + key)) {
              named = path.substring(0, path.length() - key.length());
            }
          }
          anyEntry = true;
          if (ListingDiscovery.counts(uriPath, depth)
              && (glob == null
                  || glob.accept(
                      file != null
                          ? file
                          : new Path(null, null, key.substring(key.lastIndexOf('/') + 1))))) {
            each.accept(
                new FileState.Discovered(
                    path, object.size(), object.lastModified().toEpochMilli(), object.eTag()));
          }
        }
      }
    } finally {
      if (next != null) {
        next.cancel(false);
      }
    }
    if (!anyEntry) {
      FileStatus status;
      try {
        status = fs.getFileStatus(listed);
      } catch (FileNotFoundException missing) {
        return; // no file, as S3A's listing of a missing root fails
      }
      if (status.isFile()
          && ListingDiscovery.counts(status.getPath().toUri().getPath(), depth)
          && ListingDiscovery.matches(glob, status.getPath())) {
        each.accept(ListingDiscovery.discovered(status));
      }
    }
  }

  /** A page as S3A's listing waits for it: an SDK failure translated with the listed path. */
  private ListObjectsV2Response arrived(CompletableFuture<ListObjectsV2Response> page)
      throws IOException {
    return Invoker.onceInTheFuture("listObjects()", listed.toString(), page);
  }

  /** Asks for a page on a listing thread, as S3A's {@code listObjects} does on its pool. */
  private CompletableFuture<ListObjectsV2Response> page(
      AuditSpan span, String text, ListObjectsV2Request request, String statistic) {
    CompletableFuture<ListObjectsV2Response> page = new CompletableFuture<>();
    NEXT_PAGES.execute(
        () -> {
          try {
            span.activate();
            store.incrementReadOperations();
            page.complete(
                invoker.retryUntranslated(
                    text,
                    true,
                    IOStatisticsBinding.trackDurationOfOperation(
                        store.getDurationTrackerFactory(),
                        statistic,
                        () -> client.listObjectsV2(request))));
          } catch (Throwable t) {
            page.completeExceptionally(t);
          }
        });
    return page;
  }

  /**
   * A key that S3A names as it is ({@code keyToQualifiedPath}: {@code "/" + key} in a {@link Path},
   * qualified): names of {@linkplain ListingDiscovery#plain plain characters} joined by single
   * slashes, none of them {@code .} or {@code ..} (which a {@link URI} normalises away). Any other
   * key is named by S3A.
   */
  static boolean plainKey(String key) {
    int start = 0;
    for (int i = 0; i <= key.length(); i++) {
      if (i == key.length() || key.charAt(i) == '/') {
        int length = i - start;
        if (length == 0
            || (length == 1 && key.charAt(start) == '.')
            || (length == 2 && key.charAt(start) == '.' && key.charAt(start + 1) == '.')) {
          return false;
        }
        start = i + 1;
        continue;
      }
      if (!ListingDiscovery.plainChar(key.charAt(i))) {
        return false;
      }
    }
    return true;
  }
}
