package io.replaysafe.common.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.spark.SparkSessions.Origin;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/** Which session a job gets, decided without starting Spark. */
class SparkSessionsTest {
  private static SparkConf conf(String... keyValues) {
    SparkConf conf = new SparkConf(false);
    for (int i = 0; i < keyValues.length; i += 2) {
      conf.set(keyValues[i], keyValues[i + 1]);
    }
    return conf;
  }

  @Test
  void anExistingSessionIsReusedWhateverElseIsConfigured() {
    assertThat(SparkSessions.origin(true, conf("spark.master", "yarn"), Map.of()))
        .isEqualTo(Origin.EXISTING);
    assertThat(SparkSessions.origin(true, conf(), Map.of())).isEqualTo(Origin.EXISTING);
  }

  @Test
  void sparkSubmitsMasterPropertyMeansACluster() {
    assertThat(SparkSessions.origin(false, conf("spark.master", "local[2]"), Map.of()))
        .isEqualTo(Origin.CLUSTER);
    assertThat(SparkSessions.origin(false, conf("spark.master", "k8s://https://k:443"), Map.of()))
        .isEqualTo(Origin.CLUSTER);
  }

  @Test
  void aDatabricksDriverIsACluster() {
    assertThat(SparkSessions.origin(false, conf(), Map.of("DATABRICKS_RUNTIME_VERSION", "18.2")))
        .isEqualTo(Origin.CLUSTER);
  }

  @Test
  void sparkHomeAloneIsNotAMaster() {
    // A developer's shell often exports SPARK_HOME; the local launcher must still run local[2].
    assertThat(SparkSessions.origin(false, conf(), Map.of("SPARK_HOME", "/opt/spark")))
        .isEqualTo(Origin.LOCAL);
  }

  @Test
  void deltaIsAddedToTheDeploymentsOwnExtensionsAndCatalog() {
    assertThat(SparkSessions.deltaSettings(conf()))
        .containsExactly(
            Map.entry("spark.sql.extensions", SparkSessions.DELTA_EXTENSION),
            Map.entry("spark.sql.catalog.spark_catalog", SparkSessions.DELTA_CATALOG));
    assertThat(
            SparkSessions.deltaSettings(
                conf(
                    "spark.sql.extensions",
                    "org.example.Ext",
                    "spark.sql.catalog.spark_catalog",
                    "org.example.Catalog")))
        .containsExactly(
            Map.entry("spark.sql.extensions", "org.example.Ext," + SparkSessions.DELTA_EXTENSION));
    assertThat(
            SparkSessions.deltaSettings(
                conf("spark.sql.extensions", "org.example.Ext, " + SparkSessions.DELTA_EXTENSION)))
        .containsOnlyKeys("spark.sql.catalog.spark_catalog");
  }

  @Test
  void hadoopsDefaultCredentialProvidersAreReplacedButADeploymentsAreKept() {
    Configuration defaults = new Configuration();
    assertThat(defaults.getPropertySources(SparkSessions.CREDENTIALS_PROVIDER))
        .containsExactly("core-default.xml");
    assertThat(SparkSessions.deploymentChoseCredentials(defaults, Map.of())).isFalse();

    Configuration unset = new Configuration(false);
    assertThat(SparkSessions.deploymentChoseCredentials(unset, Map.of())).isFalse();

    Configuration siteFile = new Configuration();
    siteFile.set(
        SparkSessions.CREDENTIALS_PROVIDER,
        "com.amazonaws.auth.InstanceProfileCredentialsProvider",
        "core-site.xml");
    assertThat(SparkSessions.deploymentChoseCredentials(siteFile, Map.of())).isTrue();

    Configuration sparkHadoop = new Configuration();
    sparkHadoop.set(
        SparkSessions.CREDENTIALS_PROVIDER,
        "org.apache.hadoop.fs.s3a.auth.AssumedRoleCredentialProvider",
        "spark.hadoop");
    assertThat(SparkSessions.deploymentChoseCredentials(sparkHadoop, Map.of())).isTrue();

    // Databricks wires S3 access itself, whatever its Hadoop configuration says.
    assertThat(
            SparkSessions.deploymentChoseCredentials(
                defaults, Map.of("DATABRICKS_RUNTIME_VERSION", "18.2")))
        .isTrue();
  }
}
