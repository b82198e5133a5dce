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
      Configuration conf = S3aTestConf.of(server.endpoint(), server.credentials());
      LeaseRace.race("s3a://lake/bronze/orders_lease", conf);
    }
  }
}
