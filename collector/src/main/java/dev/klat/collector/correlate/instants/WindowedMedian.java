package dev.klat.collector.correlate.instants;

import java.util.Arrays;

/**
 * The median of the last {@value #CAPACITY} values offered within a sliding window, in constant
 * memory. The median is sorted out again only after {@value #RECOMPUTE_AFTER} new values or when
 * the window moved by an eighth, so that a lookup per record costs a comparison, not a sort. Not
 * thread-safe.
 */
final class WindowedMedian {

  static final int CAPACITY = 512;
  static final int RECOMPUTE_AFTER = 32;

  private final long windowNanos;
  private final int minimumCount;
  private final long[] values = new long[CAPACITY];
  private final long[] times = new long[CAPACITY];
  private final long[] scratch = new long[CAPACITY];
  private int next;
  private int size;
  private int addedSinceMedian = Integer.MAX_VALUE;
  private long medianAtNanos;
  private long median = Long.MIN_VALUE;

  /**
   * @param windowNanos how long a value counts
   * @param minimumCount fewer values than this in the window give no median
   */
  WindowedMedian(long windowNanos, int minimumCount) {
    this.windowNanos = windowNanos;
    this.minimumCount = minimumCount;
  }

  void add(long value, long nowNanos) {
    values[next] = value;
    times[next] = nowNanos;
    next = (next + 1) % CAPACITY;
    size = Math.min(size + 1, CAPACITY);
    if (addedSinceMedian != Integer.MAX_VALUE) {
      addedSinceMedian++;
    }
  }

  /**
   * Returns the median of the values offered in the window ending at {@code nowNanos}, or {@link
   * Long#MIN_VALUE} when fewer than the minimum count are in it.
   */
  long median(long nowNanos) {
    // Until the window holds enough values, every new one may be the one that completes it.
    int enough = median == Long.MIN_VALUE ? 1 : RECOMPUTE_AFTER;
    if (addedSinceMedian < enough && Math.abs(nowNanos - medianAtNanos) < windowNanos / 8) {
      return median;
    }
    long oldest = nowNanos - windowNanos;
    int count = 0;
    for (int i = 0; i < size; i++) {
      if (times[i] >= oldest && times[i] <= nowNanos) {
        scratch[count++] = values[i];
      }
    }
    if (count < minimumCount) {
      median = Long.MIN_VALUE;
    } else {
      Arrays.sort(scratch, 0, count);
      median = scratch[count / 2];
    }
    medianAtNanos = nowNanos;
    addedSinceMedian = 0;
    return median;
  }
}
