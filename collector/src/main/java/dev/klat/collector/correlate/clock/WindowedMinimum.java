package dev.klat.collector.correlate.clock;

/**
 * The minimum of the values offered over a sliding window, in constant memory: the window is split
 * into {@value #SLOTS} slots that each keep their own minimum, so an old value leaves the window
 * after at most one slot. Not thread-safe.
 */
public final class WindowedMinimum {

  static final int SLOTS = 8;

  private final long slotNanos;
  private final long[] slotStart = new long[SLOTS];
  private final long[] slotMin = new long[SLOTS];
  private final boolean[] used = new boolean[SLOTS];

  public WindowedMinimum(long windowNanos) {
    this.slotNanos = Math.max(1, windowNanos / SLOTS);
  }

  public void add(long value, long nowNanos) {
    long slotIndex = Math.floorDiv(nowNanos, slotNanos);
    int i = (int) Math.floorMod(slotIndex, SLOTS);
    long start = slotIndex * slotNanos;
    if (used[i] && start < slotStart[i]) {
      // Older than the window the slot now holds: it would overwrite a newer minimum.
      return;
    }
    if (!used[i] || slotStart[i] != start) {
      used[i] = true;
      slotStart[i] = start;
      slotMin[i] = value;
    } else if (value < slotMin[i]) {
      slotMin[i] = value;
    }
  }

  /** Returns the minimum over the window ending at {@code nowNanos}, or {@link Long#MAX_VALUE}. */
  public long min(long nowNanos) {
    long oldest = (Math.floorDiv(nowNanos, slotNanos) - (SLOTS - 1)) * slotNanos;
    long min = Long.MAX_VALUE;
    for (int i = 0; i < SLOTS; i++) {
      if (used[i] && slotStart[i] >= oldest && slotMin[i] < min) {
        min = slotMin[i];
      }
    }
    return min;
  }
}
