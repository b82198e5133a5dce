package io.replaysafe.common;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * The one shape of an error message: what failed, why, and how to fix it. The per-area factories
 * ({@code ConfigErrors}, {@code StorageErrors}, {@code BronzeErrors}, {@code SilverErrors}) build
 * their messages with it, so a message never lacks one of the three.
 */
public final class ErrorMessages {
  private ErrorMessages() {}

  /** {@code "<problem>: <why>. <fix>."}; the final full stop is added when missing. */
  public static String of(String problem, String why, String fix) {
    String message = problem + ": " + why + ". " + fix;
    return message.endsWith(".") ? message : message + ".";
  }

  /**
   * The error replaysafe raised on purpose somewhere in {@code e}'s cause chain (Spark wraps what a
   * task or foreachBatch throws), or null: its message already says what, why and how to fix.
   */
  public static ReplaysafeException raisedOnPurpose(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ReplaysafeException known) {
        return known;
      }
    }
    return null;
  }

  /**
   * A job run failed for a reason replaysafe did not raise itself (S3, Spark, the Delta log): which
   * run, what it read and wrote, the cause, and that {@code checkpoint} did not move, so a rerun
   * after the fix processes the same input. An error raised on purpose is returned as it is.
   */
  public static RuntimeException runFailed(
      String run, String from, String into, String cause, String checkpoint, Exception e) {
    ReplaysafeException known = raisedOnPurpose(e);
    if (known != null) {
      return known;
    }
    return new ReplaysafeException(
        run
            + " failed reading "
            + from
            + " into "
            + into
            + ": "
            + cause
            + ". "
            + checkpoint
            + " did not advance past the failed batch; fix the cause and run again.",
        e);
  }

  /** The root cause's class and first line, e.g. {@code AccessDeniedException: s3a://b/k: ...}. */
  public static String rootMessage(Throwable e) {
    Throwable root = rootCause(e);
    return root.getClass().getSimpleName() + ": " + firstLine(root);
  }

  /**
   * The innermost cause of {@code e}, or {@code e} when it has none. A cause chain can loop (a
   * cause set to an exception that wraps it): the walk ends at the first cause met again.
   */
  public static Throwable rootCause(Throwable e) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Throwable root = e;
    for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
      root = t;
    }
    return root;
  }

  /** The first line of a throwable's message: Spark's and Hadoop's go on for pages. */
  public static String firstLine(Throwable e) {
    return String.valueOf(e.getMessage()).lines().findFirst().orElse("");
  }
}
