package dev.klat.collector.aggregate;

import dev.klat.model.LatencyBuckets;
import java.util.Arrays;

/**
 * The bucket layout of every latency histogram the collector exposes: {@link LatencyBuckets}'
 * exposed layout, 8 buckets per power of two from 0.59 ms to 68.7 s, then {@code +Inf}, each at
 * most 12.5% wide. The agents' finer histograms fold into it exactly.
 */
public final class Buckets {
  private static final long[] UPPER_NANOS = LatencyBuckets.exposedUpperNanos();
  private static final double[] UPPER_SECONDS = LatencyBuckets.seconds(UPPER_NANOS);

  private Buckets() {}

  /** The number of buckets, {@code +Inf} included. */
  public static int count() {
    return UPPER_NANOS.length + 1;
  }

  /** The finite upper bounds in seconds; bucket {@code count() - 1} is {@code +Inf}. */
  public static double upperSeconds(int bucket) {
    return bucket < UPPER_SECONDS.length ? UPPER_SECONDS[bucket] : Double.POSITIVE_INFINITY;
  }

  /** The bucket of a value: the first whose upper bound is at least the value. */
  public static int indexOfNanos(long nanos) {
    int i = Arrays.binarySearch(UPPER_NANOS, nanos);
    return i >= 0 ? i : -i - 1;
  }

  /** The bucket an incoming bucket with this upper bound (seconds) folds into. */
  static int indexOfSeconds(double upperSeconds) {
    if (Double.isNaN(upperSeconds)) {
      return UPPER_SECONDS.length;
    }
    int i = Arrays.binarySearch(UPPER_SECONDS, upperSeconds);
    return i >= 0 ? i : -i - 1;
  }

  /**
   * Folds one OTLP explicit-bucket histogram into this layout: each incoming bucket lands in the
   * first bucket here whose bound is at least its own. Exact when the incoming bounds include these
   * (the agent's do); otherwise a value is reported at a bound above it, never below.
   *
   * @return the counts in this layout, or null when the sizes do not match (bounds + 1 counts)
   */
  static long[] fold(double[] bounds, long[] counts) {
    if (counts.length != bounds.length + 1) {
      return null;
    }
    long[] out = new long[count()];
    for (int i = 0; i < counts.length; i++) {
      int j = i < bounds.length ? indexOfSeconds(bounds[i]) : count() - 1;
      out[j] += counts[i];
    }
    return out;
  }
}
