package io.replaysafe.common.s3;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jclouds.blobstore.BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;

/**
 * Times ListObjectsV2 through the embedded endpoint with 1,000, 10,000 and 100,000 keys in the
 * bucket: the time per 1,000-key page and a full listing of the prefix (as S3A lists it: no
 * delimiter), three times each, and one delimiter page. A measurement run by hand, not a test:
 *
 * <pre>
 *   java -cp TEST_CLASS_PATH io.replaysafe.common.s3.ListingTimings [SIZES]   # e.g. 1000,10000
 * </pre>
 *
 * The objects are put through the store directly: 100,000 PUTs over HTTP would take minutes and are
 * not what is measured.
 */
final class ListingTimings {
  private static final String BUCKET = "timings";
  private static final String PREFIX = "landing/";

  private ListingTimings() {}

  public static void main(String[] args) {
    int[] sizes =
        args.length == 0
            ? new int[] {1_000, 10_000, 100_000}
            : Arrays.stream(args[0].split(",")).mapToInt(Integer::parseInt).toArray();
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of(BUCKET));
        S3Client s3 = client(server)) {
      BlobStore store = server.blobStore();
      int put = 0;
      for (int size : sizes) {
        for (; put < size; put++) {
          store.putBlob(BUCKET, store.blobBuilder(key(put)).payload(new byte[] {1}).build());
        }
        List<Long> pageNanos = new ArrayList<>();
        StringBuilder fulls = new StringBuilder();
        for (int run = 0; run < 3; run++) {
          long start = System.nanoTime();
          int keys = listAll(s3, pageNanos);
          long full = System.nanoTime() - start;
          if (keys != size) {
            throw new IllegalStateException("listed " + keys + " keys, expected " + size);
          }
          fulls.append(run == 0 ? "" : ", ").append(millis(full)).append(" ms");
        }
        long[] sorted = pageNanos.stream().mapToLong(Long::longValue).sorted().toArray();
        long start = System.nanoTime();
        ListObjectsV2Response dirs =
            s3.listObjectsV2(
                ListObjectsV2Request.builder()
                    .bucket(BUCKET)
                    .prefix(PREFIX)
                    .delimiter("/")
                    .build());
        long delimiterPage = System.nanoTime() - start;
        System.out.printf(
            "%,d keys: page (1,000 keys) median %s ms, max %s ms over %d pages; full listing %s;"
                + " delimiter page (%d prefixes) %s ms%n",
            size,
            millis(sorted[sorted.length / 2]),
            millis(sorted[sorted.length - 1]),
            sorted.length,
            fulls,
            dirs.commonPrefixes().size(),
            millis(delimiterPage));
      }
    }
  }

  /** Lists every key under {@link #PREFIX}, adding each page's time to {@code pageNanos}. */
  private static int listAll(S3Client s3, List<Long> pageNanos) {
    int keys = 0;
    String token = null;
    do {
      long start = System.nanoTime();
      ListObjectsV2Response page =
          s3.listObjectsV2(
              ListObjectsV2Request.builder()
                  .bucket(BUCKET)
                  .prefix(PREFIX)
                  .continuationToken(token)
                  .build());
      pageNanos.add(System.nanoTime() - start);
      keys += page.contents().size();
      token = page.nextContinuationToken();
    } while (token != null);
    return keys;
  }

  /** 1,000 keys per directory, as a landing prefix partitioned by arrival. */
  private static String key(int i) {
    return String.format("%sd%03d/f%06d.json", PREFIX, i / 1_000, i);
  }

  private static String millis(long nanos) {
    return String.format("%.1f", nanos / 1e6);
  }

  private static S3Client client(EmbeddedS3Server server) {
    return S3Client.builder()
        .endpointOverride(server.endpoint())
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(
                    server.credentials().accessKeyId(), server.credentials().secretAccessKey())))
        .build();
  }
}
