package io.replaysafe.common.s3;

import org.jclouds.blobstore.BlobStore;

/**
 * Objects put straight into the embedded endpoint's store, without HTTP: many at once (a listing
 * benchmark's 100,000 keys), or keys the endpoint's HTTP front refuses to take (a double slash: it
 * checks the request's signature against the path with the slashes collapsed) but lists as stored.
 */
public final class EmbeddedS3Objects {
  private EmbeddedS3Objects() {}

  public static void put(EmbeddedS3Server server, String bucket, String key, byte[] content) {
    BlobStore store = server.blobStore();
    store.putBlob(
        bucket, store.blobBuilder(key).payload(content).contentLength(content.length).build());
  }
}
