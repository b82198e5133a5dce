package io.replaysafe.common.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Test;

/**
 * The reader's trigger: silver looks for bronze's commits every fifth of the interval when bronze
 * runs in the same process (both queries' triggers fire at the same multiples of the interval, so
 * at the interval itself silver always finds bronze's batch still running), and at the interval
 * when bronze runs elsewhere.
 */
class ContinuousTriggerTest {
  private static ContinuousTrigger every(Duration interval) {
    return ContinuousTrigger.every(interval, () -> {});
  }

  @Test
  void aReaderWhoseUpstreamRunsHereLooksEveryFifthOfTheIntervalAndAtLeastEverySecond() {
    ContinuousTrigger tenSeconds = every(Duration.ofSeconds(10));
    ContinuousTrigger minute = every(Duration.ofMinutes(1));
    ContinuousTrigger threeSeconds = every(Duration.ofSeconds(3));
    ContinuousTrigger fast = every(Duration.ofMillis(300));

    assertThat(tenSeconds.readerPoll()).isEqualTo(Duration.ofSeconds(2));
    assertThat(minute.readerPoll()).isEqualTo(Duration.ofSeconds(12));
    assertThat(threeSeconds.readerPoll()).isEqualTo(Duration.ofSeconds(1));
    assertThat(fast.readerPoll())
        .as("never less often than the interval")
        .isEqualTo(fast.interval());
  }

  @Test
  void theReaderKeepsTheIntervalUnlessItsUpstreamRunsHere() {
    ContinuousTrigger trigger = every(Duration.ofSeconds(10));
    assertThat(trigger.readerTrigger()).isEqualTo(Trigger.ProcessingTime(10_000L));
    assertThat(trigger.trigger()).isEqualTo(Trigger.ProcessingTime(10_000L));

    trigger.upstreamRunsHere();

    assertThat(trigger.readerTrigger()).isEqualTo(Trigger.ProcessingTime(2_000L));
    assertThat(trigger.trigger())
        .as("the upstream's own trigger")
        .isEqualTo(Trigger.ProcessingTime(10_000L));
  }
}
