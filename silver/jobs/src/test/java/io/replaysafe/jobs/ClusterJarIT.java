package io.replaysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/** What the cluster jar holds, and what it leaves to the cluster. */
class ClusterJarIT {
  static List<String> entries() throws IOException {
    try (JarFile jar = new JarFile(ClusterJarSupport.clusterJar().toFile())) {
      return jar.stream().map(JarEntry::getName).toList();
    }
  }

  @Test
  void holdsTheJobsAndTheirRelocatedLibraries() throws IOException {
    assertThat(entries())
        .contains(
            "io/replaysafe/jobs/BronzeMain.class",
            "io/replaysafe/jobs/SilverMain.class",
            "io/replaysafe/jobs/PipelineRun.class",
            // the names before 0.2, kept one release as deprecated aliases
            "io/replaysafe/jobs/BronzeJob.class",
            "io/replaysafe/jobs/SilverJob.class",
            "io/replaysafe/jobs/JobArgs.class",
            "io/replaysafe/bronze/BronzeIngest.class",
            "io/replaysafe/silver/SilverJob.class",
            "io/replaysafe/common/config/ConfigLoader.class",
            "io/replaysafe/common/spark/SparkSessions.class",
            "io/replaysafe/shaded/picocli/CommandLine.class",
            "io/replaysafe/shaded/com/fasterxml/jackson/databind/ObjectMapper.class",
            "io/replaysafe/shaded/com/fasterxml/jackson/dataformat/yaml/YAMLFactory.class",
            "io/replaysafe/shaded/org/yaml/snakeyaml/Yaml.class",
            "META-INF/services/io.replaysafe.shaded.com.fasterxml.jackson.core.JsonFactory");
  }

  @Test
  void leavesSparkDeltaHadoopAndTheLocalToolsOut() throws IOException {
    List<String> forbidden =
        List.of(
            // the cluster's
            "org/apache/spark/",
            "io/delta/",
            "org/apache/hadoop/",
            "scala/",
            "software/amazon/",
            "org/slf4j/",
            "org/apache/logging/",
            // unrelocated copies would clash with the cluster's
            "com/fasterxml/",
            "org/yaml/",
            "picocli/",
            "META-INF/versions/",
            // the local launcher's: the CLI, the rehearsal, the embedded S3 endpoint and what it
            // needs
            "io/replaysafe/cli/",
            "io/replaysafe/rehearsal/",
            "io/replaysafe/common/s3/EmbeddedS3Server",
            "org/gaul/",
            "org/jclouds/",
            "org/eclipse/jetty/",
            "log4j2.properties");
    assertThat(entries()).allSatisfy(entry -> assertThat(forbidden).noneMatch(entry::startsWith));
    // Spark alone is over 100 MB; a few MB means nothing of the cluster's slipped in.
    assertThat(Files.size(ClusterJarSupport.clusterJar())).isLessThan(5L * 1024 * 1024);
  }

  @Test
  void mainClassesLoadFromTheJarAlone() throws Exception {
    try (URLClassLoader jarOnly = ClusterJarSupport.jarOnlyLoader()) {
      for (String name :
          List.of(
              "io.replaysafe.jobs.BronzeMain",
              "io.replaysafe.jobs.SilverMain",
              "io.replaysafe.jobs.BronzeJob",
              "io.replaysafe.jobs.SilverJob")) {
        Method main = ClusterJarSupport.mainOf(jarOnly, name);
        assertThat(main.getDeclaringClass().getClassLoader()).isSameAs(jarOnly);
      }
    }
  }
}
