package dev.klat.probe;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A bounded queue of probe events from the broker's request and replica threads to the exporter
 * thread, with no lock and no allocation: a producer claims a slot with one compare-and-set and
 * publishes it with an ordered store of the slot's sequence (Dmitry Vyukov's bounded queue). When
 * every slot is taken the event is dropped and counted, so a stalled exporter can never slow a
 * broker thread or grow its memory.
 */
final class EventRing {

  /** What an event says. */
  static final byte APPEND = 1;

  static final byte HIGH_WATERMARK = 2;

  /** A high-watermark event's last stable offset when it could not be read. */
  static final long NO_STABLE_OFFSET = -1;

  /** Receives drained events; the exporter thread only. */
  interface Sink {
    /**
     * One event.
     *
     * @param kind {@link #APPEND} or {@link #HIGH_WATERMARK}
     * @param partition the broker's {@code TopicPartition}
     * @param leaderEpoch the leader epoch when the event happened
     * @param first the first appended offset, or (high watermark) the node id of the follower whose
     *     fetch moved it, {@code BrokerProbeWire.NO_FOLLOWER} for none
     * @param last the last appended offset, or the new high watermark
     * @param epochNanos when, on the broker's wall clock
     * @param requestTimes an append's request times ({@link RequestTimes}), or {@link
     *     RequestTimes#UNKNOWN}; for a high-watermark event the last stable offset read with it, at
     *     most the high watermark, or {@link #NO_STABLE_OFFSET} (the slot is there for every event,
     *     so the last stable offset costs the ring nothing)
     */
    void event(
        byte kind,
        Object partition,
        int leaderEpoch,
        long first,
        long last,
        long epochNanos,
        long requestTimes);
  }

  private final int mask;
  private final AtomicLongArray sequences;
  private final byte[] kinds;
  private final Object[] partitions;
  private final int[] epochs;
  private final long[] firsts;
  private final long[] lasts;
  private final long[] times;
  private final long[] requestTimes;
  private final AtomicLong tail = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private long head;

  /**
   * @param capacity slots, rounded up to a power of two, at least 2
   */
  EventRing(int capacity) {
    int size = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
    if (size <= 0) {
      throw new IllegalArgumentException("capacity too large: " + capacity);
    }
    this.mask = size - 1;
    this.sequences = new AtomicLongArray(size);
    for (int i = 0; i < size; i++) {
      sequences.set(i, i);
    }
    this.kinds = new byte[size];
    this.partitions = new Object[size];
    this.epochs = new int[size];
    this.firsts = new long[size];
    this.lasts = new long[size];
    this.times = new long[size];
    this.requestTimes = new long[size];
  }

  int capacity() {
    return mask + 1;
  }

  /** Adds an event, or drops and counts it when the ring is full. Any thread; never blocks. */
  boolean offer(
      byte kind,
      Object partition,
      int leaderEpoch,
      long first,
      long last,
      long epochNanos,
      long requestTimes) {
    while (true) {
      long t = tail.get();
      int slot = (int) t & mask;
      long sequence = sequences.get(slot);
      if (sequence == t) {
        if (tail.compareAndSet(t, t + 1)) {
          kinds[slot] = kind;
          partitions[slot] = partition;
          epochs[slot] = leaderEpoch;
          firsts[slot] = first;
          lasts[slot] = last;
          times[slot] = epochNanos;
          this.requestTimes[slot] = requestTimes;
          sequences.lazySet(slot, t + 1);
          return true;
        }
      } else if (sequence < t) {
        // The slot still holds an event the exporter has not taken: the ring is full.
        dropped.incrementAndGet();
        return false;
      }
      // Another thread claimed slot t first: try the next one.
    }
  }

  /**
   * Hands the events published before this call to {@code sink}, oldest first, and frees their
   * slots; events offered meanwhile wait for the next call, so that a caller that checks {@link
   * #dropped()} before each drain knows of every drop older than the events it is given. The
   * exporter thread only.
   *
   * @return how many events were drained
   */
  int drain(Sink sink) {
    int count = 0;
    long end = tail.get();
    while (head < end) {
      int slot = (int) head & mask;
      if (sequences.get(slot) != head + 1) {
        // Claimed but not yet published: the rest waits for the next drain.
        return count;
      }
      Object partition = partitions[slot];
      partitions[slot] = null;
      sink.event(
          kinds[slot],
          partition,
          epochs[slot],
          firsts[slot],
          lasts[slot],
          times[slot],
          requestTimes[slot]);
      sequences.lazySet(slot, head + mask + 1);
      head++;
      count++;
    }
    return count;
  }

  /** Events dropped because the ring was full, since start. */
  long dropped() {
    return dropped.get();
  }
}
