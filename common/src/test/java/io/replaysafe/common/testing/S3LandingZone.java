package io.replaysafe.common.testing;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.s3.S3Clients;
import java.time.Instant;
import java.util.Optional;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;

/** A landing zone in an S3 bucket (embedded endpoint or LocalStack), written with SDK v2. */
public final class S3LandingZone implements LandingZone {
  private final StorageConfig storage;
  private final String bucket;
  private final String prefix;
  private final S3Client s3;

  public S3LandingZone(StorageConfig storage, String bucket, String prefix) {
    this.storage = storage;
    this.bucket = bucket;
    this.prefix = prefix;
    this.s3 = S3Clients.create(storage);
  }

  @Override
  public String root() {
    return "s3a://" + bucket + "/" + prefix;
  }

  private String key(String relative) {
    return prefix + "/" + relative;
  }

  @Override
  public void put(String relative, byte[] content) {
    s3.putObject(b -> b.bucket(bucket).key(key(relative)), RequestBody.fromBytes(content));
  }

  @Override
  public Instant modificationTime(String relative) {
    return s3.headObject(b -> b.bucket(bucket).key(key(relative))).lastModified();
  }

  @Override
  public void deleteTree(String relative) {
    var keys =
        s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(key(relative))).contents().stream()
            .map(S3Object::key)
            .map(k -> ObjectIdentifier.builder().key(k).build())
            .toList();
    for (ObjectIdentifier id : keys) {
      s3.deleteObject(b -> b.bucket(bucket).key(id.key()));
    }
  }

  @Override
  public Optional<StorageConfig> storage() {
    return Optional.of(storage);
  }
}
