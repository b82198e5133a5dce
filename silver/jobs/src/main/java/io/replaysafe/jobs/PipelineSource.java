package io.replaysafe.jobs;

import io.replaysafe.common.config.ConfigErrors;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UnsupportedFileSystemException;

/**
 * Reads a job's pipeline file from wherever a cluster keeps it. A path without a scheme is a file
 * on the driver, read without Spark: that is also how a Databricks driver sees workspace files
 * ({@code /Workspace/...}), volumes ({@code /Volumes/...}) and DBFS ({@code /dbfs/...}). A URI
 * ({@code dbfs:/}, {@code s3a://}, {@code abfss://}, {@code file:}) is read through the Hadoop file
 * system of the running session, with the cluster's credentials.
 */
final class PipelineSource {
  /** A URI scheme of two or more characters, so that a Windows drive letter is not one. */
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]+:.*");

  private PipelineSource() {}

  /** True when reading the pipeline file needs the session's Hadoop configuration. */
  static boolean needsHadoop(JobArgs args) {
    return args.configPath() != null && SCHEME.matcher(args.configPath()).matches();
  }

  /**
   * The validated pipeline. {@code hadoop} is only called for a URI, so that a local or inline file
   * is checked before a Spark session is started.
   */
  static PipelineConfig load(JobArgs args, Supplier<Configuration> hadoop) {
    if (args.configInline() != null) {
      return ConfigLoader.parse("--config-inline", args.configInline());
    }
    if (!needsHadoop(args)) {
      return ConfigLoader.load(java.nio.file.Path.of(args.configPath()));
    }
    return ConfigLoader.parse(
        args.configPath(), readThroughHadoop(args.configPath(), hadoop.get()));
  }

  private static String readThroughHadoop(String uri, Configuration conf) {
    Path path = new Path(uri);
    try {
      FileSystem fs = path.getFileSystem(conf);
      try (InputStream in = fs.open(path)) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    } catch (FileNotFoundException e) {
      throw ConfigErrors.cannotReadPipelineFile(
          uri, "it does not exist; check the --config path", e);
    } catch (UnsupportedFileSystemException e) {
      throw ConfigErrors.cannotReadPipelineFile(
          uri,
          "this cluster has no file system for '"
              + path.toUri().getScheme()
              + ":' ("
              + e.getMessage()
              + "); use a path it can read, or pass the file with --config-inline",
          e);
    } catch (IOException e) {
      // Not a configuration error: the store may be unreachable or refuse the cluster's
      // credentials, and a retry of the task can succeed.
      throw JobErrors.cannotReadPipelineFile(uri, path.toUri().getScheme(), e);
    }
  }
}
