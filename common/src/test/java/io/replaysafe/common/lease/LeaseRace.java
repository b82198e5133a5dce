package io.replaysafe.common.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;

/** Two writers taking one lease at the same instant, on whatever store {@code conf} reaches. */
public final class LeaseRace {
  private LeaseRace() {}

  /** A lease with the default time to live and margin, real clocks. */
  static PipelineLease take(String location, Configuration conf, String command) {
    Duration ttl = Duration.ofSeconds(PipelineLease.TTL_DEFAULT_SECONDS);
    return PipelineLease.acquire(
        location, conf, command, ttl, ttl.dividedBy(4), Clock.systemUTC(), System::nanoTime);
  }

  /** 20 rounds: two threads acquire at the same instant; exactly one holds, the other is told. */
  public static void race(String location, Configuration conf) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 20; round++) {
        CyclicBarrier start = new CyclicBarrier(2);
        CyclicBarrier decided = new CyclicBarrier(2);
        List<Future<Boolean>> results = new ArrayList<>();
        for (String command : List.of("run", "quarantine release")) {
          results.add(
              pool.submit(
                  () -> {
                    start.await();
                    PipelineLease lease;
                    try {
                      lease = take(location, conf, command);
                    } catch (LeaseHeldException e) {
                      decided.await();
                      return false;
                    }
                    // Hold it until the rival has decided, so a win cannot follow a release.
                    decided.await();
                    lease.close();
                    return true;
                  }));
        }
        long winners = 0;
        for (Future<Boolean> r : results) {
          winners += r.get() ? 1 : 0;
        }
        assertThat(winners).as("writers holding the lease in round " + round).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
