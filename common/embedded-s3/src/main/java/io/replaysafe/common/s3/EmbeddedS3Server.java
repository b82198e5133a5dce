package io.replaysafe.common.s3;

import io.replaysafe.common.StorageErrors;
import java.net.URI;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.TransientApiMetadata;

/**
 * A real S3 protocol endpoint inside this JVM (S3Proxy over jclouds' in-memory store), bound to
 * loopback. Everything is lost when it stops: it is for the demo, rehearsals and tests. The
 * in-memory store is used because S3Proxy's disk-backed stores break S3A's directory semantics
 * (checkpoint directories vanish). Listings are answered by {@link IndexedListingBlobStore}: the
 * in-memory store's own cost a whole container's worth of work per page.
 */
public final class EmbeddedS3Server implements AutoCloseable {
  private final S3Proxy proxy;
  private final BlobStoreContext context;
  private final BlobStore store;
  private final S3Credentials credentials;
  private final URI endpoint;

  private EmbeddedS3Server(
      S3Proxy proxy,
      BlobStoreContext context,
      BlobStore store,
      S3Credentials credentials,
      URI endpoint) {
    this.proxy = proxy;
    this.context = context;
    this.store = store;
    this.credentials = credentials;
    this.endpoint = endpoint;
  }

  /** Starts on {@code port} (0 picks a free one) with fresh random credentials. */
  public static EmbeddedS3Server start(int port, List<String> buckets) {
    return start(port, buckets, S3Credentials.random(new SecureRandom()));
  }

  /** Starts on {@code port} (0 picks a free one) accepting only {@code credentials}. */
  public static EmbeddedS3Server start(int port, List<String> buckets, S3Credentials credentials) {
    BlobStoreContext context =
        ContextBuilder.newBuilder(new TransientApiMetadata())
            .credentials(credentials.accessKeyId(), credentials.secretAccessKey())
            .build(BlobStoreContext.class);
    // Every access goes through the index, which sees only the writes made through it.
    BlobStore store = new IndexedListingBlobStore(context.getBlobStore());
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(store)
            .endpoint(URI.create("http://127.0.0.1:" + port))
            .awsAuthentication(
                AuthenticationType.AWS_V2_OR_V4,
                credentials.accessKeyId(),
                credentials.secretAccessKey())
            // SDK 2.57 sends checksum headers S3Proxy 2.7 would otherwise reject.
            .ignoreUnknownHeaders(true)
            .build();
    try {
      proxy.start();
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!"STARTED".equals(proxy.getState())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("state " + proxy.getState() + " after 10 s");
        }
        Thread.sleep(10);
      }
    } catch (Exception e) {
      context.close();
      throw StorageErrors.cannotStartEmbeddedS3(port, e);
    }
    URI endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    EmbeddedS3Server server = new EmbeddedS3Server(proxy, context, store, credentials, endpoint);
    buckets.forEach(server::createBucket);
    return server;
  }

  public void createBucket(String bucket) {
    store.createContainerInLocation(null, bucket);
  }

  /** The store behind the endpoint, for tests that set up many objects without HTTP. */
  BlobStore blobStore() {
    return store;
  }

  public URI endpoint() {
    return endpoint;
  }

  public int port() {
    return proxy.getPort();
  }

  public S3Credentials credentials() {
    return credentials;
  }

  @Override
  public void close() {
    try {
      proxy.stop();
    } catch (Exception e) {
      throw StorageErrors.cannotStopEmbeddedS3(e);
    } finally {
      context.close();
    }
  }

  /** Access key pair; {@link #toString()} masks the secret so it never reaches a log. */
  public record S3Credentials(String accessKeyId, String secretAccessKey) {
    public static S3Credentials random(SecureRandom random) {
      byte[] id = new byte[8];
      byte[] secret = new byte[20];
      random.nextBytes(id);
      random.nextBytes(secret);
      return new S3Credentials(
          "RS" + HexFormat.of().withUpperCase().formatHex(id), HexFormat.of().formatHex(secret));
    }

    @Override
    public String toString() {
      return "S3Credentials[accessKeyId=" + accessKeyId + ", secretAccessKey=****]";
    }

    /**
     * Makes these the JVM's AWS credentials (system properties read by the SDK's default provider
     * chain), so S3A and SDK clients in this process authenticate without a credentials file.
     */
    public void installAsSystemProperties() {
      System.setProperty("aws.accessKeyId", accessKeyId);
      System.setProperty("aws.secretAccessKey", secretAccessKey);
    }
  }
}
