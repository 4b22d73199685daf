package dev.klat.agent.consumer;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Caps the spans one consumer builds per second. The producer agent already caps sampled records
 * per producer, but a consumer reads headers anyone can write: a flood of forged "sampled" headers
 * must not make every record take the span path. Lock-free virtual scheduling (GCRA) with a burst
 * of one second's worth; reached only by records with a valid sampled header.
 */
final class SpanRateLimiter {

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final long intervalNanos;
  private final AtomicLong nextFreeNanos;

  SpanRateLimiter(long maxPerSecond, long nowNanos) {
    this.intervalNanos = Math.max(1L, NANOS_PER_SECOND / Math.max(1L, maxPerSecond));
    this.nextFreeNanos = new AtomicLong(nowNanos);
  }

  boolean tryAcquire(long nowNanos) {
    while (true) {
      long next = nextFreeNanos.get();
      long start = next - nowNanos > 0 ? next : nowNanos;
      if (start - nowNanos > NANOS_PER_SECOND) {
        return false;
      }
      if (nextFreeNanos.compareAndSet(next, start + intervalNanos)) {
        return true;
      }
    }
  }
}
