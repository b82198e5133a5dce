package io.replaysafe.jobs;

/**
 * The silver main class's name before 0.2, kept for one release so that existing Databricks tasks
 * and spark-submit lines keep working.
 *
 * @deprecated use {@link SilverMain}
 */
@Deprecated(since = "0.2", forRemoval = true)
public final class SilverJob {
  private SilverJob() {}

  public static void main(String[] args) {
    SilverMain.main(args);
  }
}
