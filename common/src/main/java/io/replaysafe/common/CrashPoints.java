package io.replaysafe.common;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Crash injection for {@code replaysafe rehearse}, which exists only so the rehearsal can kill a
 * job process at a known point and prove that a restart converges. A no-op unless the JVM was
 * started with {@code -Dreplaysafe.crashPoint=NAME}; then the process halts (exit code 137, like
 * {@code kill -9}: no shutdown hooks, no finally blocks) the {@code replaysafe.crashAfter}-th time
 * (default 1) the named point is reached.
 *
 * <ul>
 *   <li>{@link #BRONZE_MID_WRITE}: while bronze maps the rows of a micro-batch, before the Delta
 *       commit of that batch and before the streaming checkpoint's commit.
 *   <li>{@link #SILVER_AFTER_MERGE}: right after silver's MERGE into the silver table committed,
 *       before the tombstone MERGE, the run log and the silver checkpoint commit.
 * </ul>
 */
public final class CrashPoints {
  public static final String PROPERTY = "replaysafe.crashPoint";
  public static final String BRONZE_MID_WRITE = "bronze-mid-write";
  public static final String SILVER_AFTER_MERGE = "silver-after-merge";
  public static final int EXIT_CODE = 137;

  private static final String ARMED = System.getProperty(PROPERTY);
  private static final long AFTER = Long.getLong("replaysafe.crashAfter", 1L);
  private static final AtomicLong REACHED = new AtomicLong();

  private CrashPoints() {}

  /** Halts the JVM when {@code point} is the armed crash point; otherwise does nothing. */
  public static void maybeCrash(String point) {
    if (ARMED != null && ARMED.equals(point) && REACHED.incrementAndGet() >= AFTER) {
      System.err.println("replaysafe: crash point " + point + " reached; halting (rehearsal)");
      System.err.flush();
      Runtime.getRuntime().halt(EXIT_CODE);
    }
  }
}
