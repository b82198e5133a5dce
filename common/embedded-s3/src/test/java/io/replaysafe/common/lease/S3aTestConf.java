package io.replaysafe.common.lease;

import io.replaysafe.common.s3.EmbeddedS3Server.S3Credentials;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;

/**
 * S3A's settings for an embedded endpoint (or a proxy in front of it), for this package's tests.
 */
final class S3aTestConf {
  private S3aTestConf() {}

  static Configuration of(URI endpoint, S3Credentials credentials) {
    Configuration conf = new Configuration();
    conf.set("fs.s3a.endpoint", endpoint.toString());
    conf.set("fs.s3a.endpoint.region", "us-east-1");
    conf.setBoolean("fs.s3a.path.style.access", true);
    conf.setBoolean("fs.s3a.connection.ssl.enabled", false);
    conf.set("fs.s3a.access.key", credentials.accessKeyId());
    conf.set("fs.s3a.secret.key", credentials.secretAccessKey());
    conf.set(
        "fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    return conf;
  }
}
