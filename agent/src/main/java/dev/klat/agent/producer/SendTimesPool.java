package dev.klat.agent.producer;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Reuses the arrays that hold the send times of batches' records (as offsets, {@link
 * BatchTiming#sendOffsets}), so that a producer in its steady state allocates for few batches: an
 * array goes back here when its batch has completed and its latencies are recorded, and the next
 * new batch takes it. Swings of the batches in flight larger than the pool still allocate (13% of
 * batches at full speed, agent/DESIGN.md). Appends take on application threads, completions give
 * back on the network thread: lock-free slots, bounded, best effort (a full pool drops the array,
 * an empty one makes the caller allocate).
 */
final class SendTimesPool {

  /**
   * About the batches of a few produce responses completed at once: partitions times in-flight
   * requests for a typical producer. A full buffer holds more batches than that, but a pool as
   * large would make a scan for a free slot as long.
   */
  static final int SLOTS = 64;

  /** 16 KiB: batches of up to 4,096 records keep their arrays, bigger ones leave them to the GC. */
  static final int MAX_POOLED_LENGTH = 4096;

  static final int INITIAL_LENGTH = 16;

  static final SendTimesPool SHARED = new SendTimesPool();

  private final AtomicReferenceArray<int[]> slots = new AtomicReferenceArray<int[]>(SLOTS);

  // The length of the array given back last: an array made when the pool is empty starts there, so
  // that its batch does not grow it from INITIAL_LENGTH, one discarded copy per doubling. Plain,
  // and written only when it changes: a stale read costs a growth, nothing else.
  private int lastGivenLength = INITIAL_LENGTH;

  /** An array of at least {@link #INITIAL_LENGTH} ints, a used one if the pool has one. */
  int[] take() {
    for (int i = 0; i < SLOTS; i++) {
      int[] pooled = slots.get(i);
      if (pooled != null && slots.compareAndSet(i, pooled, null)) {
        return pooled;
      }
    }
    return new int[lastGivenLength];
  }

  /** Gives back an array that nobody reads any more. */
  void give(int[] times) {
    if (times.length > MAX_POOLED_LENGTH) {
      return;
    }
    if (lastGivenLength != times.length) {
      lastGivenLength = times.length;
    }
    for (int i = 0; i < SLOTS; i++) {
      if (slots.get(i) == null && slots.compareAndSet(i, null, times)) {
        return;
      }
    }
  }
}
