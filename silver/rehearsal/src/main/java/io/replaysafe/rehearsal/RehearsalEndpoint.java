package io.replaysafe.rehearsal;

import io.replaysafe.common.config.ConfigErrors;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SilverConfig;
import io.replaysafe.common.s3.S3Clients;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * An S3 endpoint the user started (LocalStack, MinIO, a test bucket on AWS) made ready for a
 * rehearsal: its credentials come from the AWS default provider chain, the pipeline's buckets are
 * created where missing, and every path the rehearsal writes must be empty, because its expected
 * rows assume a first run. Nothing is ever deleted on such an endpoint.
 */
public final class RehearsalEndpoint {
  private RehearsalEndpoint() {}

  /**
   * The default chain's credentials (environment, system properties, profile, SSO, web identity,
   * instance role) as the {@code AWS_*} variables a child job's default chain reads: the two
   * crash-point steps run the job in another JVM, which must authenticate the same way. They go to
   * its environment only, never to a command line, a file or a report.
   */
  public static Map<String, String> defaultChainCredentials(String endpoint) {
    AwsCredentials credentials;
    try (DefaultCredentialsProvider chain = DefaultCredentialsProvider.builder().build()) {
      credentials = chain.resolveCredentials();
    } catch (SdkClientException e) {
      throw ConfigErrors.of(
          "Cannot rehearse against " + endpoint,
          "the AWS default credential chain found no credentials ("
              + firstLine(e.getMessage())
              + ")",
          "Export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (LocalStack accepts test/test), or"
              + " set AWS_PROFILE",
          e);
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put("AWS_ACCESS_KEY_ID", credentials.accessKeyId());
    env.put("AWS_SECRET_ACCESS_KEY", credentials.secretAccessKey());
    if (credentials instanceof AwsSessionCredentials session) {
      env.put("AWS_SESSION_TOKEN", session.sessionToken());
    }
    return env;
  }

  /**
   * Creates the buckets that do not exist yet and refuses a pipeline whose paths already hold
   * objects. Returns what it did, one line per bucket, for the progress output.
   */
  public static List<String> prepare(PipelineConfig pipeline, List<String> buckets) {
    String endpoint = pipeline.storage().map(s -> s.endpoint()).orElse("AWS S3");
    List<String> done = new ArrayList<>();
    try (S3Client s3 = S3Clients.create(pipeline.storage().orElseThrow())) {
      for (String bucket : buckets) {
        done.add(ensureBucket(s3, endpoint, bucket));
      }
      List<String> occupied = new ArrayList<>();
      for (String path : writtenPaths(pipeline)) {
        URI uri = URI.create(path);
        String prefix = uri.getPath().replaceFirst("^/", "");
        if (!s3.listObjectsV2(b -> b.bucket(uri.getHost()).prefix(prefix).maxKeys(1))
            .contents()
            .isEmpty()) {
          occupied.add(path);
        }
      }
      if (!occupied.isEmpty()) {
        throw ConfigErrors.of(
            "Cannot rehearse against " + endpoint,
            String.join(", ", occupied)
                + (occupied.size() == 1 ? " already holds objects" : " already hold objects")
                + " (an earlier rehearsal?), and the rehearsal's expected rows assume a first run",
            "Point the pipeline file at empty paths, or run without --config: the built-in"
                + " pipeline uses a new prefix for every run",
            null);
      }
    } catch (S3Exception e) {
      throw RehearsalErrors.cannotPrepare(endpoint, firstLine(e.getMessage()), buckets, e);
    } catch (SdkClientException e) {
      throw RehearsalErrors.cannotReach(endpoint, firstLine(e.getMessage()), e);
    }
    return done;
  }

  private static String ensureBucket(S3Client s3, String endpoint, String bucket) {
    try {
      s3.headBucket(b -> b.bucket(bucket));
      return "bucket " + bucket + " exists";
    } catch (NoSuchBucketException e) {
      s3.createBucket(b -> b.bucket(bucket));
      return "bucket " + bucket + " created";
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        s3.createBucket(b -> b.bucket(bucket));
        return "bucket " + bucket + " created";
      }
      throw e;
    }
  }

  /** Every prefix the rehearsal lands in or writes to; a table's siblings share its prefix. */
  static List<String> writtenPaths(PipelineConfig pipeline) {
    SilverConfig silver = pipeline.requireSilver();
    return List.of(
        pipeline.source().path(),
        pipeline.bronze().path(),
        pipeline.bronze().checkpoint(),
        silver.path(),
        silver.checkpoint(),
        silver.quarantinePath(),
        silver.runsPath());
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "no message";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
