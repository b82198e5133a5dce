package io.replaysafe.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.StorageConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The deployment files that need no build to check: the LocalStack rehearsal stack and its
 * pipeline, the scripts' permissions. (The Databricks bundle is checked against the built jar by
 * DatabricksBundleIT.)
 */
public class InfraFilesTest {
  public static Path root() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("infra"))
          && Files.isRegularFile(dir.resolve("pom.xml"))
          && Files.isDirectory(dir.resolve("scripts"))) {
        return dir;
      }
    }
    throw new IllegalStateException("No repository root above " + Path.of("").toAbsolutePath());
  }

  @Test
  void localStackIsPinnedAndCreatesTheBucketsAtReady() throws IOException {
    Path dir = root().resolve("infra/localstack");
    JsonNode compose =
        new ObjectMapper(new YAMLFactory()).readTree(dir.resolve("docker-compose.yml").toFile());
    JsonNode localstack = compose.path("services").path("localstack");
    assertThat(localstack.path("image").asText())
        .isEqualTo("${LOCALSTACK_IMAGE:-localstack/localstack:4.14.0}");
    assertThat(localstack.path("environment").path("LOCALSTACK_AUTH_TOKEN").asText())
        .isEqualTo("${LOCALSTACK_AUTH_TOKEN:-}");
    assertThat(localstack.path("ports").get(0).asText()).isEqualTo("127.0.0.1:4566:4566");
    List<String> volumes = new ArrayList<>();
    localstack.path("volumes").forEach(v -> volumes.add(v.asText()));
    assertThat(volumes).contains("./init/ready.d:/etc/localstack/init/ready.d:ro");

    Path hook = dir.resolve("init/ready.d/create-buckets.sh");
    assertThat(hook).isExecutable();
    assertThat(Files.readString(hook))
        .startsWith("#!/bin/bash\n")
        .contains("awslocal s3 mb \"s3://$bucket\"")
        .contains("for bucket in landing lake; do");
  }

  @Test
  void theLocalStackPipelineTargetsTheStack() {
    PipelineConfig pipeline = ConfigLoader.load(root().resolve("infra/localstack/orders.yaml"));
    assertThat(pipeline.storage())
        .contains(new StorageConfig("http://localhost:4566", "us-east-1", true));
    assertThat(pipeline.source().path()).isEqualTo("s3a://landing/orders/");
    assertThat(pipeline.bronze().path()).isEqualTo("s3a://lake/bronze/orders");
    assertThat(pipeline.requireSilver().path()).isEqualTo("s3a://lake/silver/orders");
  }

  @Test
  void theScriptsAreExecutable() {
    for (String script : List.of("replaysafe", "spark-submit.sh", "localstack-run")) {
      assertThat(root().resolve("scripts").resolve(script)).as(script).isExecutable();
    }
  }
}
