package dev.klat.agentcore.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void doublesFromOneSecondUpToThirtySeconds() {
    Backoff backoff = new Backoff(() -> 0.0);
    long[] delays = new long[8];
    for (int i = 0; i < delays.length; i++) {
      delays[i] = backoff.nextDelayMillis(-1);
    }
    assertThat(delays).containsExactly(1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000);
  }

  @Test
  void aShorterMaximumCapsTheScheduleButNotRetryAfter() {
    Backoff backoff = new Backoff(() -> 0.0, 5_000);
    long[] delays = new long[5];
    for (int i = 0; i < delays.length; i++) {
      delays[i] = backoff.nextDelayMillis(-1);
    }
    assertThat(delays).containsExactly(1000, 2000, 4000, 5000, 5000);
    assertThat(backoff.nextDelayMillis(20_000)).isEqualTo(20_000);
  }

  @Test
  void jitterShortensTheDelayByAtMostAFifth() {
    Backoff backoff = new Backoff(() -> 0.999999);
    assertThat(backoff.nextDelayMillis(-1)).isBetween(800L, 801L);
  }

  @Test
  void retryAfterWinsButNeverBelowOneSecond() {
    Backoff backoff = new Backoff(() -> 0.5);
    assertThat(backoff.nextDelayMillis(5000)).isEqualTo(5000);
    assertThat(backoff.nextDelayMillis(0)).isEqualTo(1000);
    assertThat(backoff.nextDelayMillis(60_000)).isEqualTo(60_000);
  }

  @Test
  void resetStartsOver() {
    Backoff backoff = new Backoff(() -> 0.0);
    backoff.nextDelayMillis(-1);
    backoff.nextDelayMillis(-1);
    backoff.reset();
    assertThat(backoff.nextDelayMillis(-1)).isEqualTo(1000);
  }
}
