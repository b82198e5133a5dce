package io.replaysafe.common.lease;

import io.replaysafe.common.s3.EmbeddedS3Server;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The writer's lease raced on the embedded S3 endpoint, which ignores conditional writes: the
 * claim-then-list protocol alone decides. The lease's other tests are PipelineLeaseTest in common.
 */
class PipelineLeaseS3Test {
  @Test
  void twoRacingWritersOnTheEmbeddedEndpointExactlyOneWinsEachTime() throws Exception {
    try (EmbeddedS3Server server = EmbeddedS3Server.start(0, List.of("lake"))) {
      Configuration conf = new Configuration();
      conf.set("fs.s3a.endpoint", server.endpoint().toString());
      conf.set("fs.s3a.endpoint.region", "us-east-1");
      conf.setBoolean("fs.s3a.path.style.access", true);
      conf.setBoolean("fs.s3a.connection.ssl.enabled", false);
      conf.set("fs.s3a.access.key", server.credentials().accessKeyId());
      conf.set("fs.s3a.secret.key", server.credentials().secretAccessKey());
      conf.set(
          "fs.s3a.aws.credentials.provider",
          "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
      LeaseRace.race("s3a://lake/bronze/orders_lease", conf);
    }
  }
}
