package dev.klat.collector.correlate.join;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.Consumer;

/**
 * Joined records whose breakdown waits for broker data that has not arrived yet (their leader's
 * broker probe is alive but has not yet sent their offset's instants: it exports every 200 ms by
 * default, and the agents' spans may come sooner). A record waits until its source stops waiting or
 * {@link #MAX_WAIT_NANOS} has passed, then is computed either way. Bounded: at most {@code
 * capacity} wait, a further record is computed at once. Not thread-safe: confined to the {@link
 * Correlator}'s lock.
 *
 * @param <E> what the correlator keeps of a record between its join and its breakdown
 */
final class BrokerDataWaits<E> {

  /** How long a joined record may wait: five of the probe's default exports. */
  static final long MAX_WAIT_NANOS = 1_000_000_000L;

  /** Whether a record still waits for its broker data at {@code nowNanos}. */
  interface Awaiting<E> {
    boolean test(E record, long nowNanos);
  }

  private final int capacity;
  private final ArrayDeque<Waiting<E>> waiting = new ArrayDeque<>();
  private long waits;
  private long timedOut;

  BrokerDataWaits(int capacity) {
    this.capacity = capacity;
  }

  /**
   * Holds {@code record} back when there is room and its broker data is awaited.
   *
   * @return whether it waits; if not, the caller computes it now
   */
  boolean hold(E record, boolean awaited, long nowNanos) {
    if (!awaited || waiting.size() >= capacity) {
      return false;
    }
    waiting.addLast(new Waiting<>(record, nowNanos + MAX_WAIT_NANOS));
    waits++;
    return true;
  }

  /**
   * Releases, in the order they joined, the records no longer awaiting data or that waited as long
   * as they may.
   */
  void release(long nowNanos, Awaiting<E> awaiting, Consumer<E> compute) {
    for (Iterator<Waiting<E>> it = waiting.iterator(); it.hasNext(); ) {
      Waiting<E> w = it.next();
      boolean expired = nowNanos - w.deadlineNanos >= 0;
      if (expired || !awaiting.test(w.record, nowNanos)) {
        it.remove();
        if (expired) {
          timedOut++;
        }
        compute.accept(w.record);
      }
    }
  }

  /** Hands every record still waiting to {@code visit}, oldest first. */
  void forEach(Consumer<E> visit) {
    for (Waiting<E> w : waiting) {
      visit.accept(w.record);
    }
  }

  /** Records that waited, since start. */
  long waits() {
    return waits;
  }

  /** Of those, the ones computed without their broker data after the longest wait. */
  long timedOut() {
    return timedOut;
  }

  private record Waiting<E>(E record, long deadlineNanos) {}
}
