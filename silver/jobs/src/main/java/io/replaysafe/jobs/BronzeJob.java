package io.replaysafe.jobs;

/**
 * The bronze main class's name before 0.2, kept for one release so that existing Databricks tasks
 * and spark-submit lines keep working.
 *
 * @deprecated use {@link BronzeMain}
 */
@Deprecated(since = "0.2", forRemoval = true)
public final class BronzeJob {
  private BronzeJob() {}

  public static void main(String[] args) {
    BronzeMain.main(args);
  }
}
