package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SampleRateLimiterTest {

  private static final long SECOND = 1_000_000_000L;

  @Test
  void allowsABurstOfOneSecondThenTheRate() {
    long now = 5 * SECOND;
    SampleRateLimiter limiter = new SampleRateLimiter(10, now);

    int allowed = 0;
    for (int i = 0; i < 100; i++) {
      if (limiter.tryAcquire(now)) {
        allowed++;
      }
    }
    // One second of credit (10) plus the slot at 'now'.
    assertThat(allowed).isEqualTo(11);

    assertThat(limiter.tryAcquire(now + SECOND / 20)).isFalse();
    assertThat(limiter.tryAcquire(now + SECOND / 10 + 1)).isTrue();
  }

  @Test
  void sustainedRateMatchesTheCap() {
    long start = 0;
    SampleRateLimiter limiter = new SampleRateLimiter(100, start);
    int allowed = 0;
    // 10 simulated seconds, a candidate every 100 microseconds.
    for (long t = start; t < start + 10 * SECOND; t += 100_000) {
      if (limiter.tryAcquire(t)) {
        allowed++;
      }
    }
    assertThat(allowed).isBetween(1000, 1101);
  }

  @Test
  void zeroMeansNoSampledRecords() {
    SampleRateLimiter limiter = new SampleRateLimiter(0, 0);
    assertThat(limiter.tryAcquire(0)).isFalse();
    assertThat(limiter.tryAcquire(100 * SECOND)).isFalse();
  }
}
