package io.replaysafe.jobs;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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

  private static List<Path> sparkRuntime;

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
   * The jars of Spark, Delta and Hadoop's client as a Spark 4.1 installation with Delta has them,
   * resolved once per JVM (offline first, then from Maven Central).
   */
  static synchronized List<Path> sparkRuntimeClassPath() {
    if (sparkRuntime == null) {
      sparkRuntime = resolveSparkRuntime();
    }
    return sparkRuntime;
  }

  private static List<Path> resolveSparkRuntime() {
    Path pom = projectRoot().resolve("silver/jobs/src/it/spark-runtime/pom.xml");
    Path work = clusterJar().getParent().resolve("it");
    Path output = work.resolve("spark-runtime-classpath.txt");
    Path log = work.resolve("spark-runtime-resolve.log");
    try {
      Files.createDirectories(work);
      Files.deleteIfExists(output);
      if (maven(pom, output, log, true) != 0 && maven(pom, output, log, false) != 0) {
        throw new IllegalStateException(
            "Cannot resolve the Spark runtime class path from "
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

  private static int maven(Path pom, Path output, Path log, boolean offline) throws IOException {
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
            "-Dspark.version=" + property("replaysafe.sparkVersion"),
            "-Ddelta.version=" + property("replaysafe.deltaVersion"),
            "-Dscala.binary=" + property("replaysafe.scalaBinary"),
            "-Djackson.version=" + property("replaysafe.jacksonVersion"),
            BUILD_CLASSPATH,
            "-Dmdep.includeScope=runtime",
            "-Dmdep.outputFile=" + output));
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
