package io.replaysafe.jobs;

import io.replaysafe.common.spark.SparkSessions;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the integration tests (failsafe, after {@code package}) know about the build: the cluster
 * jar, the repository, and the class path of a Spark installation with Delta, resolved by Maven
 * from {@code silver/jobs/src/it/spark-runtime/pom.xml}.
 */
final class ClusterJarSupport {
  /** The plugin the build itself uses for runtime-classpath.txt, so it is already local. */
  static final String BUILD_CLASSPATH =
      "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath";

  private static final Map<String, List<Path>> sparkRuntimes = new HashMap<>();

  private ClusterJarSupport() {}

  static String property(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "System property "
              + name
              + " is not set: run the integration tests through Maven (mvn -B verify -pl silver"
              + " -am), which passes it from silver/pom.xml");
    }
    return value;
  }

  static Path clusterJar() {
    Path jar = Path.of(property("replaysafe.clusterJar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "The cluster jar " + jar + " does not exist: the package phase builds it");
    }
    return jar;
  }

  static Path projectRoot() {
    return Path.of(property("replaysafe.projectRoot")).toAbsolutePath().normalize();
  }

  static List<String> sparkJvmFlags() {
    return Arrays.asList(property("replaysafe.sparkJvmFlags").trim().split("\\s+"));
  }

  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** A class loader that sees the cluster jar and the JDK, nothing of the test class path. */
  static URLClassLoader jarOnlyLoader() {
    try {
      return new URLClassLoader(
          new URL[] {clusterJar().toUri().toURL()}, ClassLoader.getPlatformClassLoader());
    } catch (MalformedURLException e) {
      throw new IllegalStateException("Cannot load the cluster jar " + clusterJar(), e);
    }
  }

  /** The {@code public static void main(String[])} of a class, loaded from the jar alone. */
  static Method mainOf(ClassLoader jarOnly, String className) throws ReflectiveOperationException {
    Method main = Class.forName(className, false, jarOnly).getMethod("main", String[].class);
    if (!Modifier.isStatic(main.getModifiers()) || main.getReturnType() != void.class) {
      throw new IllegalStateException(className + ".main is not public static void");
    }
    return main;
  }

  /**
   * One line of Spark releases a user's cluster may run, with the Delta and Hadoop releases built
   * for it.
   */
  record SparkLine(String spark, String delta, String hadoop) {
    /** The line the build compiles against (the root POM's versions). */
    static SparkLine current() {
      return new SparkLine(
          property("replaysafe.sparkVersion"),
          property("replaysafe.deltaVersion"),
          property("replaysafe.hadoopVersion"));
    }

    /** The previous line, which the cluster jar must still run on (root POM, *.previous). */
    static SparkLine previous() {
      return new SparkLine(
          property("replaysafe.previousSparkVersion"),
          property("replaysafe.previousDeltaVersion"),
          property("replaysafe.previousHadoopVersion"));
    }

    @Override
    public String toString() {
      return "Spark " + spark + " + Delta " + delta + " + Hadoop " + hadoop;
    }
  }

  /**
   * The jars of Spark, Delta and Hadoop's client as a Spark installation of the build's line with
   * Delta has them, resolved once per JVM (offline first, then from Maven Central).
   */
  static List<Path> sparkRuntimeClassPath() {
    return sparkRuntimeClassPath(SparkLine.current(), false);
  }

  /**
   * The same for any {@code line}; with {@code s3a}, also hadoop-aws of the line's Hadoop and the
   * AWS SDK modules S3A uses, as in an installation that reads {@code s3a://}.
   */
  static synchronized List<Path> sparkRuntimeClassPath(SparkLine line, boolean s3a) {
    return sparkRuntimes.computeIfAbsent(
        line + (s3a ? " with S3A" : ""), key -> resolveSparkRuntime(line, s3a));
  }

  /**
   * A stand-in for a Spark distribution in {@code home}: {@code jars/} (links to {@code jars}), an
   * empty {@code RELEASE} (a standalone worker builds executor commands from {@code SPARK_HOME} and
   * needs it) and a {@code bin/spark-submit} that runs SparkSubmit on those jars with the JVM flags
   * Spark's own launcher adds on Java 17.
   */
  static Path sparkHome(Path home, List<Path> jars) throws IOException {
    Path jarDir = Files.createDirectories(home.resolve("jars"));
    for (Path jar : jars) {
      Files.createSymbolicLink(jarDir.resolve(jar.getFileName()), jar);
    }
    Files.writeString(home.resolve("RELEASE"), "");
    Path submit = Files.createDirectories(home.resolve("bin")).resolve("spark-submit");
    Files.writeString(
        submit,
        "#!/usr/bin/env bash\nexec "
            + java()
            + " "
            + String.join(" ", sparkJvmFlags())
            // A driver of short jobs on tiny data: C1 and one GC thread start and end sooner.
            + " -Xmx1g "
            + String.join(" ", SparkSessions.SHORT_JOB_JIT)
            + " -XX:+UseSerialGC"
            + " -cp \"$SPARK_HOME/jars/*\" org.apache.spark.deploy.SparkSubmit \"$@\"\n");
    Files.setPosixFilePermissions(submit, PosixFilePermissions.fromString("rwxr-xr-x"));
    return home;
  }

  private static List<Path> resolveSparkRuntime(SparkLine line, boolean s3a) {
    Path pom = projectRoot().resolve("silver/jobs/src/it/spark-runtime/pom.xml");
    Path work = clusterJar().getParent().resolve("it");
    String name = "spark-runtime-" + line.spark() + "-" + line.delta() + (s3a ? "-s3a" : "");
    Path output = work.resolve(name + "-classpath.txt");
    Path log = work.resolve(name + "-resolve.log");
    try {
      Files.createDirectories(work);
      Files.deleteIfExists(output);
      if (maven(pom, line, s3a, output, log, true) != 0
          && maven(pom, line, s3a, output, log, false) != 0) {
        throw new IllegalStateException(
            "Cannot resolve the class path of "
                + line
                + " from "
                + pom
                + "; Maven's output:\n"
                + Files.readString(log));
      }
      List<Path> jars = new ArrayList<>();
      for (String entry : Files.readString(output).trim().split(File.pathSeparator)) {
        jars.add(Path.of(entry));
      }
      return List.copyOf(jars);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot resolve the Spark runtime class path in " + work, e);
    }
  }

  private static int maven(
      Path pom, SparkLine line, boolean s3a, Path output, Path log, boolean offline)
      throws IOException {
    String home = System.getProperty("replaysafe.mavenHome", "");
    String mvn = home.isBlank() || home.startsWith("${") ? "mvn" : home + "/bin/mvn";
    List<String> command = new ArrayList<>(List.of(mvn, "-B", "-q"));
    if (offline) {
      command.add("-o");
    }
    String repo = System.getProperty("replaysafe.mavenRepoLocal", "");
    if (!repo.isBlank() && !repo.startsWith("${")) {
      command.add("-Dmaven.repo.local=" + repo);
    }
    command.addAll(
        List.of(
            "-f",
            pom.toString(),
            "-Dspark.version=" + line.spark(),
            "-Ddelta.version=" + line.delta(),
            "-Dhadoop.version=" + line.hadoop(),
            "-Dawssdk.version=" + property("replaysafe.awssdkVersion"),
            "-Dscala.binary=" + property("replaysafe.scalaBinary"),
            "-Djackson.version=" + property("replaysafe.jacksonVersion"),
            BUILD_CLASSPATH,
            "-Dmdep.includeScope=runtime",
            "-Dmdep.outputFile=" + output));
    if (s3a) {
      command.add("-Ps3a");
    }
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!process.waitFor(5, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("Maven did not resolve " + pom + " within 5 minutes");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while Maven resolved " + pom, e);
    }
    return process.exitValue();
  }
}
