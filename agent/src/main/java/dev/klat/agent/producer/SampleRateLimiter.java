package dev.klat.agent.producer;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Caps sampled records per second for one producer: a lock-free GCRA (virtual scheduling) bucket
 * that allows a burst of one second's worth. Only records that already won the probability draw
 * reach it, so its CAS is off the path of almost every record.
 */
final class SampleRateLimiter {

  private final long intervalNanos;
  private final long burstNanos;
  private final AtomicLong theoreticalArrivalNanos;

  SampleRateLimiter(double maxPerSecond, long nowNanos) {
    if (maxPerSecond <= 0) {
      intervalNanos = -1;
      burstNanos = 0;
    } else {
      intervalNanos = Math.max(1L, (long) (1_000_000_000L / maxPerSecond));
      burstNanos = 1_000_000_000L;
    }
    theoreticalArrivalNanos = new AtomicLong(nowNanos);
  }

  boolean tryAcquire(long nowNanos) {
    if (intervalNanos < 0) {
      return false;
    }
    while (true) {
      long arrival = theoreticalArrivalNanos.get();
      long start = arrival - nowNanos > 0 ? arrival : nowNanos;
      if (start - nowNanos > burstNanos) {
        return false;
      }
      if (theoreticalArrivalNanos.compareAndSet(arrival, start + intervalNanos)) {
        return true;
      }
    }
  }
}
