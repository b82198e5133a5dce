package io.replaysafe.common.config;

import java.net.URI;
import java.nio.file.Path;

/** Puts every path in the one form Spark, Delta and Hadoop all accept. */
public final class StoragePaths {
  private StoragePaths() {}

  /**
   * s3a:// stays as written (s3:// and s3n:// become s3a://, the only S3 client we ship); a local
   * path or file: URI becomes an absolute plain path, because Delta mishandles {@code file:///x}.
   */
  public static String normalize(String key, String path) {
    if (path == null || path.isBlank()) {
      throw ConfigErrors.missing(key, null);
    }
    String trimmed = path.trim();
    if (trimmed.startsWith("s3://") || trimmed.startsWith("s3n://")) {
      return "s3a://" + trimmed.substring(trimmed.indexOf("://") + 3);
    }
    if (trimmed.startsWith("s3a://")) {
      if (trimmed.length() <= "s3a://".length() || trimmed.startsWith("s3a:///")) {
        throw ConfigErrors.badValue(key, path, "has no bucket", "write s3a://bucket/prefix");
      }
      return trimmed;
    }
    if (trimmed.startsWith("file:")) {
      return Path.of(URI.create(trimmed)).toAbsolutePath().normalize().toString();
    }
    if (trimmed.matches("^[a-zA-Z][a-zA-Z0-9+.-]+:/.*")) {
      // dbfs:/, abfss://, gs://: Hadoop file systems a cluster may provide; pass them through.
      return trimmed;
    }
    return Path.of(trimmed).toAbsolutePath().normalize().toString();
  }

  public static boolean isS3(String path) {
    return path.startsWith("s3a://");
  }
}
