package io.replaysafe.jobs;

/**
 * Main class of the bronze job on a cluster: a Databricks JAR task, or {@code spark-submit --class
 * io.replaysafe.jobs.BronzeMain replaysafe-jobs-VERSION-cluster.jar --config PATH [--json]}.
 *
 * <p>Arguments: {@code --config PATH} (local, {@code /Workspace/...}, {@code dbfs:/}, {@code
 * s3a://} ...) or {@code --config-inline YAML}, and {@code --json}. It prints one line on stdout.
 * On success it returns normally and never calls {@code System.exit}: Databricks runs JAR tasks in
 * a driver it owns, and spark-submit ends the application when main returns. On failure it exits
 * with 1, or 2 for a configuration error; on Databricks it throws instead, which fails the task.
 */
public final class BronzeMain {
  private BronzeMain() {}

  public static void main(String[] args) {
    ClusterJob.BRONZE.run(args, System.out, System.err).endMain("bronze");
  }
}
