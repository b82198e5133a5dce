package io.replaysafe.common.lease;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;

/**
 * A lease whose holder's clock the test moves, for silver's tests of what a holder past its
 * deadline must not write (as common's LeaseFenceTest takes one): {@link #pauseBeyondDeadline}
 * stands for a process paused for its whole time to live.
 */
public final class PausedLeases {
  private static final Duration TTL = Duration.ofSeconds(120);

  private final AtomicLong nanos = new AtomicLong();

  public PipelineLease take(String location, Configuration hadoop, String command) {
    return PipelineLease.acquire(
        location, hadoop, command, TTL, TTL.dividedBy(4), Clock.systemUTC(), nanos::get);
  }

  public void pauseBeyondDeadline() {
    nanos.addAndGet(TTL.toNanos());
  }
}
