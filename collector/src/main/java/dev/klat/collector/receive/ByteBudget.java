package dev.klat.collector.receive;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes shared by the requests of one receiver while their bodies arrive ({@code
 * otlp.max-receiving-bytes}): taken before a buffer is allocated or grown, given back when the
 * request ends. Never blocks: a request that cannot take what it needs is refused. Thread-safe.
 */
final class ByteBudget {
  private final long capacityBytes;
  private final AtomicLong usedBytes = new AtomicLong();

  ByteBudget(long capacityBytes) {
    this.capacityBytes = capacityBytes;
  }

  /** Takes {@code bytes} if they are free. */
  boolean tryTake(long bytes) {
    while (true) {
      long used = usedBytes.get();
      if (used + bytes > capacityBytes) {
        return false;
      }
      if (usedBytes.compareAndSet(used, used + bytes)) {
        return true;
      }
    }
  }

  /** Gives back bytes taken by {@link #tryTake}. */
  void giveBack(long bytes) {
    usedBytes.addAndGet(-bytes);
  }

  /** The bytes taken now. */
  long usedBytes() {
    return usedBytes.get();
  }
}
