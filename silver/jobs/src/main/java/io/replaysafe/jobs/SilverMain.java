package io.replaysafe.jobs;

/**
 * Main class of the silver job on a cluster: a Databricks JAR task, or {@code spark-submit --class
 * io.replaysafe.jobs.SilverMain replaysafe-jobs-VERSION-cluster.jar --config PATH [--json]}. The
 * job itself is {@link io.replaysafe.silver.SilverJob}; this class only wires it to a cluster.
 *
 * <p>Arguments and endings as {@link BronzeMain}: one line on stdout, a normal return on success,
 * exit code 1 on failure (a rejected batch included) or 2 for a configuration error, and an
 * exception instead of an exit on Databricks.
 */
public final class SilverMain {
  private SilverMain() {}

  public static void main(String[] args) {
    ClusterJob.SILVER.run(args, System.out, System.err).endMain("silver");
  }
}
