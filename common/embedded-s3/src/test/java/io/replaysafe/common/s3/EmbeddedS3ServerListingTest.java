package io.replaysafe.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * ListObjectsV2 through the embedded endpoint (S3Proxy over the indexed transient store) with the
 * AWS SDK: pages, continuation tokens, start-after, delimiters, and listings after overwrites,
 * deletes and a multipart upload.
 */
class EmbeddedS3ServerListingTest {
  private static final String BUCKET = "landing";
  private static final List<String> KEYS =
      List.of(
          "data-old/x",
          "data/2024/01/a.json",
          "data/2024/01/b.json",
          "data/2024/02/c.json",
          "data/readme",
          "empty/",
          "top");

  private static final int PART_SIZE = 5 * 1024 * 1024;

  private static EmbeddedS3Server server;
  private static S3Client s3;

  @BeforeAll
  static void start() {
    server = EmbeddedS3Server.start(0, List.of(BUCKET));
    s3 =
        S3Client.builder()
            .endpointOverride(server.endpoint())
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(
                        server.credentials().accessKeyId(),
                        server.credentials().secretAccessKey())))
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .build();
    // Reversed, so the listing's order is the store's and not the order of the puts.
    for (int i = KEYS.size() - 1; i >= 0; i--) {
      String key = KEYS.get(i);
      put(key, key.endsWith("/") ? "" : "content of " + key);
    }
  }

  @AfterAll
  static void stop() {
    s3.close();
    server.close();
  }

  @Test
  void theEndpointsStoreListsFromTheIndex() {
    assertThat(server.blobStore()).isInstanceOf(IndexedListingBlobStore.class);
  }

  @Test
  void pagesWithoutADelimiterFollowTheContinuationTokens() {
    ListObjectsV2Response first = list(b -> b.prefix("data/").maxKeys(2));
    assertThat(keys(first)).containsExactly("data/2024/01/a.json", "data/2024/01/b.json");
    assertThat(first.isTruncated()).isTrue();
    assertThat(first.nextContinuationToken()).isEqualTo("data/2024/01/b.json");

    ListObjectsV2Response second =
        list(b -> b.prefix("data/").maxKeys(2).continuationToken(first.nextContinuationToken()));
    assertThat(keys(second)).containsExactly("data/2024/02/c.json", "data/readme");
    assertThat(second.isTruncated()).isFalse();
    assertThat(second.nextContinuationToken()).isNull();

    assertThat(listAll(b -> b.maxKeys(3))).containsExactlyElementsOf(KEYS);
    assertThat(listAll(b -> b)).containsExactlyElementsOf(KEYS);
  }

  @Test
  void startAfterListsTheKeysAfterIt() {
    assertThat(keys(list(b -> b.startAfter("data/2024/01/a.json"))))
        .containsExactly(
            "data/2024/01/b.json", "data/2024/02/c.json", "data/readme", "empty/", "top");
    assertThat(keys(list(b -> b.startAfter("data/2024/01/"))))
        .containsExactlyElementsOf(KEYS.subList(1, KEYS.size()));
    assertThat(keys(list(b -> b.startAfter("top")))).isEmpty();
    assertThat(keys(list(b -> b.prefix("data/2024/").startAfter("data/2024/01/b.json"))))
        .containsExactly("data/2024/02/c.json");
  }

  @Test
  void delimiterListingsGiveCommonPrefixesAndTheKeysBeside() {
    ListObjectsV2Response root = list(b -> b.delimiter("/"));
    // The transient store lists the directory marker empty/ as an object, not a common prefix
    // (S3 would give the prefix); the index keeps that.
    assertThat(keys(root)).containsExactly("empty/", "top");
    assertThat(prefixes(root)).containsExactly("data-old/", "data/");

    ListObjectsV2Response data = list(b -> b.prefix("data/").delimiter("/"));
    assertThat(keys(data)).containsExactly("data/readme");
    assertThat(prefixes(data)).containsExactly("data/2024/");

    ListObjectsV2Response empty = list(b -> b.prefix("empty/").delimiter("/"));
    assertThat(keys(empty)).containsExactly("empty/");
    assertThat(prefixes(empty)).isEmpty();

    ListObjectsV2Response firstMonth = list(b -> b.prefix("data/2024/").delimiter("/").maxKeys(1));
    assertThat(prefixes(firstMonth)).containsExactly("data/2024/01/");
    assertThat(firstMonth.isTruncated()).isTrue();
    ListObjectsV2Response secondMonth =
        list(
            b ->
                b.prefix("data/2024/")
                    .delimiter("/")
                    .maxKeys(1)
                    .continuationToken(firstMonth.nextContinuationToken()));
    assertThat(prefixes(secondMonth)).containsExactly("data/2024/02/");
    assertThat(secondMonth.isTruncated()).isFalse();
  }

  @Test
  void listingsFollowOverwritesDeletesAndMultipartUploads() throws Exception {
    String bucket = "changes";
    server.createBucket(bucket);
    for (String key : List.of("a/1", "a/2", "a/3", "b")) {
      s3.putObject(p -> p.bucket(bucket).key(key), RequestBody.fromString("one"));
    }
    s3.putObject(p -> p.bucket(bucket).key("a/2"), RequestBody.fromString("twenty-two"));
    s3.deleteObject(d -> d.bucket(bucket).key("a/1"));
    s3.deleteObjects(
        d -> d.bucket(bucket).delete(x -> x.objects(o -> o.key("a/3"), o -> o.key("never-there"))));

    String upload = s3.createMultipartUpload(c -> c.bucket(bucket).key("a/big")).uploadId();
    // S3Proxy wants 5 MiB in every part but the last.
    List<RequestBody> contents =
        List.of(RequestBody.fromBytes(new byte[PART_SIZE]), RequestBody.fromString("part 2"));
    List<CompletedPart> parts = new ArrayList<>();
    for (int part = 1; part <= contents.size(); part++) {
      int number = part;
      String eTag =
          s3.uploadPart(
                  u -> u.bucket(bucket).key("a/big").uploadId(upload).partNumber(number),
                  contents.get(number - 1))
              .eTag();
      parts.add(CompletedPart.builder().partNumber(number).eTag(eTag).build());
    }
    s3.completeMultipartUpload(
        c -> c.bucket(bucket).key("a/big").uploadId(upload).multipartUpload(m -> m.parts(parts)));

    ListObjectsV2Response all = s3.listObjectsV2(l -> l.bucket(bucket));
    // No stub or part of the upload is left to list.
    assertThat(keys(all)).containsExactly("a/2", "a/big", "b");
    S3Object overwritten = all.contents().get(0);
    assertThat(overwritten.size()).isEqualTo(10L);
    assertThat(overwritten.eTag()).isEqualTo("\"" + md5Hex("twenty-two") + "\"");
    S3Object big = all.contents().get(1);
    assertThat(big.size()).isEqualTo(PART_SIZE + 6L);
    assertThat(big.eTag()).endsWith("-2\"");
    assertThat(prefixes(s3.listObjectsV2(l -> l.bucket(bucket).delimiter("/"))))
        .containsExactly("a/");
  }

  private static void put(String key, String content) {
    s3.putObject(p -> p.bucket(BUCKET).key(key), RequestBody.fromString(content));
  }

  private static ListObjectsV2Response list(UnaryOperator<ListObjectsV2Request.Builder> options) {
    return s3.listObjectsV2(options.apply(ListObjectsV2Request.builder().bucket(BUCKET)).build());
  }

  private static List<String> listAll(UnaryOperator<ListObjectsV2Request.Builder> options) {
    List<String> keys = new ArrayList<>();
    String token = null;
    do {
      String from = token;
      ListObjectsV2Response page = list(b -> options.apply(b).continuationToken(from));
      keys.addAll(keys(page));
      token = page.nextContinuationToken();
    } while (token != null);
    return keys;
  }

  private static List<String> keys(ListObjectsV2Response page) {
    return page.contents().stream().map(S3Object::key).toList();
  }

  private static List<String> prefixes(ListObjectsV2Response page) {
    return page.commonPrefixes().stream().map(CommonPrefix::prefix).toList();
  }

  private static String md5Hex(String content) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("MD5").digest(content.getBytes(StandardCharsets.UTF_8)));
  }
}
