package io.replaysafe.common.lease;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.RetryableException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/** Every error the writer's lease raises, worded in one place: what, why, what to do. */
final class LeaseErrors {
  private LeaseErrors() {}

  static LeaseHeldException held(String command, String location, LeaseClaim holder) {
    return new LeaseHeldException(
        "Cannot start '"
            + command
            + "': another writer holds this pipeline's lease "
            + location
            + ": "
            + holder.describe()
            + ". One writer at a time keeps the tables consistent. Run it again when that one"
            + " has finished; if that process is dead, its lease is taken over once its claim"
            + " has stayed unchanged for its time to live plus "
            + holder.marginSeconds()
            + " s, or at once from the same host and pid namespace.");
  }

  static LeaseHeldException crowded(
      String command, String location, int attempts, List<LeaseClaim> rivals) {
    return new LeaseHeldException(
        "Cannot take the writer's lease "
            + location
            + " for '"
            + command
            + "': "
            + attempts
            + " attempts met other writers starting at the same moment ("
            + rivals.stream().map(LeaseClaim::describe).toList()
            + "). Run it again once they have finished.");
  }

  static LeaseLostException takenOver(String command, String location, String why) {
    return new LeaseLostException(
        "'"
            + command
            + "' lost the writer's lease "
            + location
            + ": "
            + why
            + ". It wrote nothing after that; another writer may be running. Rerun when it has"
            + " finished (every step is idempotent).");
  }

  static LeaseLostException pastDeadline(
      String command,
      String location,
      String write,
      Duration sinceRenewal,
      Duration ttl,
      Duration margin) {
    return new LeaseLostException(
        "'"
            + command
            + "' stopped before writing "
            + write
            + ": it may no longer hold the writer's lease "
            + location
            + ". Its last confirmed renewal was "
            + sinceRenewal.toSeconds()
            + " s ago by this process's clock, and a holder writes only within "
            + ttl.minus(margin).toSeconds()
            + " s of one (time to live "
            + ttl.toSeconds()
            + " s minus the margin of "
            + margin.toSeconds()
            + " s), so another writer may have taken over. This process was paused or the store"
            + " was unreachable; rerun when no other writer is running (every step is idempotent).");
  }

  static ConfigException badMargin(Duration ttl, Duration margin) {
    return new ConfigException(
        "Cannot use a lease margin of "
            + margin.toSeconds()
            + " s with a time to live of "
            + ttl.toSeconds()
            + " s: the margin must be at least 1 s and at most half the time to live. Set -D"
            + PipelineLease.MARGIN_PROPERTY
            + " (default a quarter of the time to live).");
  }

  /** The lease's file system cannot be opened (its client failed to start): try again. */
  static RetryableException cannotOpen(String location, IOException cause) {
    return new RetryableException(
        "Cannot take the writer's lease " + location + ": " + cause.getMessage(), cause);
  }

  /** The claims in the lease's directory cannot be listed: try again. */
  static RetryableException cannotList(Object dir, IOException cause) {
    return new RetryableException(
        "Cannot list the writer's lease " + dir + ": " + cause.getMessage(), cause);
  }

  /** A claim cannot be written: try again. */
  static RetryableException cannotWriteClaim(Object file, IOException cause) {
    return new RetryableException(
        "Cannot write the writer's lease claim " + file + ": " + cause.getMessage(), cause);
  }
}
