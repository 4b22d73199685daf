package dev.klat.probe.telemetry;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pushes waiting for the forwarder's thread, bounded in count and in bytes. {@link #offer} is
 * lock-free (two compare-and-set reservations and a lock-free enqueue), so a broker request thread
 * never waits on the sender; a push that would pass either bound is refused, and the caller counts
 * it.
 */
final class PushQueue {

  private final ConcurrentLinkedQueue<Push> pushes = new ConcurrentLinkedQueue<>();
  private final int maxCount;
  private final long maxBytes;
  private final AtomicLong count = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  PushQueue(int maxCount, long maxBytes) {
    this.maxCount = maxCount;
    this.maxBytes = maxBytes;
  }

  /** Queues the push unless that would pass a bound; never blocks. */
  boolean offer(Push push) {
    long size = push.bytes();
    if (!reserve(count, 1, maxCount)) {
      return false;
    }
    if (!reserve(bytes, size, maxBytes)) {
      count.decrementAndGet();
      return false;
    }
    pushes.offer(push);
    return true;
  }

  /** The oldest push, or null. */
  Push poll() {
    Push push = pushes.poll();
    if (push != null) {
      bytes.addAndGet(-push.bytes());
      count.decrementAndGet();
    }
    return push;
  }

  long maxBytes() {
    return maxBytes;
  }

  int size() {
    return (int) count.get();
  }

  long bytes() {
    return bytes.get();
  }

  private static boolean reserve(AtomicLong used, long amount, long limit) {
    while (true) {
      long current = used.get();
      if (current + amount > limit) {
        return false;
      }
      if (used.compareAndSet(current, current + amount)) {
        return true;
      }
    }
  }
}
