package dev.klat.agent.tail;

import dev.klat.agent.metrics.Counter;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleSupplier;

/**
 * Decides which flagged records of one client become tail spans: at most {@code
 * klat.tail.max-per-second} a second (the hard ceiling), and when more are flagged, a fair share of
 * them spread over the second rather than its first ones. Lock-free; one call per flagged record,
 * never per unflagged one.
 *
 * <p><b>How.</b> Seconds are counted from {@link System#nanoTime()}. A flagged record is kept with
 * probability {@code budget left / flagged records expected in the rest of the second}, where the
 * expected count is the recent flagged rate (the larger of the previous second's count and this
 * second's count so far over the time elapsed, at least {@value #MIN_ELAPSED_SECONDS} s) times the
 * time left. In a steady stream this is the cap over the flagged rate; at the start of a burst it
 * falls within tens of milliseconds to that share; a second that kept too many early keeps fewer
 * later, and one that kept too few uses its leftover budget near the end. Whatever the estimate,
 * the second's kept count never passes the cap. Every record not kept is counted in {@code
 * dropped}.
 */
public final class TailAdmission {

  /** This second's count so far is read as a rate over at least this much time. */
  static final double MIN_ELAPSED_SECONDS = 0.05;

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final int maxPerSecond;
  private final Counter dropped;
  private final DoubleSupplier random;
  private final AtomicReference<Second> current;

  /**
   * @param maxPerSecond {@code klat.tail.max-per-second}; 0 keeps nothing (every flagged record is
   *     counted dropped)
   * @param dropped where the records not kept are counted ({@code
   *     klat.agent.tail.spans.dropped{reason=cap}}); null for a counter of its own
   * @param random uniform in [0, 1); null for {@link ThreadLocalRandom}
   */
  public TailAdmission(int maxPerSecond, Counter dropped, DoubleSupplier random) {
    this.maxPerSecond = Math.max(0, maxPerSecond);
    this.dropped = dropped != null ? dropped : new Counter();
    this.random = random != null ? random : Uniform.INSTANCE;
    this.current = new AtomicReference<Second>(new Second(Long.MIN_VALUE, 0));
  }

  /**
   * One flagged record: whether to make its tail span. Never blocks, never throws.
   *
   * @param nowNanos {@link System#nanoTime()} (or the test's clock) when the record was flagged
   * @return true to export its tail span; false when it is dropped (counted)
   */
  public boolean admit(long nowNanos) {
    long index = Math.floorDiv(nowNanos, NANOS_PER_SECOND);
    Second second = secondOf(index);
    long flagged = second.flagged.incrementAndGet();
    int kept = second.kept.get();
    if (kept >= maxPerSecond) {
      return drop();
    }
    double elapsed = (nowNanos - index * NANOS_PER_SECOND) / (double) NANOS_PER_SECOND;
    double rate =
        Math.max(second.previousFlagged, flagged / Math.max(elapsed, MIN_ELAPSED_SECONDS));
    // This record is one of those expected in the rest of the second.
    double expected = Math.max(1.0, rate * (1.0 - elapsed));
    double probability = (maxPerSecond - kept) / expected;
    if (probability < 1.0 && random.getAsDouble() >= probability) {
      return drop();
    }
    while (true) {
      if (kept >= maxPerSecond) {
        return drop();
      }
      if (second.kept.compareAndSet(kept, kept + 1)) {
        return true;
      }
      kept = second.kept.get();
    }
  }

  private Second secondOf(long index) {
    while (true) {
      Second second = current.get();
      if (second.index == index) {
        return second;
      }
      if (index < second.index) {
        // A thread whose clock read is a little behind another's: count it in the newer second.
        return second;
      }
      long previous = second.index == index - 1 ? second.flagged.get() : 0;
      Second next = new Second(index, previous);
      if (current.compareAndSet(second, next)) {
        return next;
      }
    }
  }

  private boolean drop() {
    dropped.increment();
    return false;
  }

  /**
   * How many flagged records were not kept (with a shared counter: by every admission using it).
   */
  public long droppedCount() {
    return dropped.value();
  }

  /** {@code klat.tail.max-per-second}. */
  public int maxPerSecond() {
    return maxPerSecond;
  }

  /** One second's counts; a new one is installed, by a CAS, at most once a second. */
  private static final class Second {
    final long index;
    final long previousFlagged;
    final AtomicLong flagged = new AtomicLong();
    final AtomicInteger kept = new AtomicInteger();

    Second(long index, long previousFlagged) {
      this.index = index;
      this.previousFlagged = previousFlagged;
    }
  }

  /** A named class rather than a lambda: see the agent's start-up rules in DESIGN.md. */
  private static final class Uniform implements DoubleSupplier {
    static final Uniform INSTANCE = new Uniform();

    @Override
    public double getAsDouble() {
      return ThreadLocalRandom.current().nextDouble();
    }
  }
}
