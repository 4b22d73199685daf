package dev.klat.collector.aggregate;

import java.util.Arrays;

/**
 * The bucket layout of every latency histogram the collector exposes: 8 log-linear buckets per
 * power of two, from {@code 2^19 * 18/16} ns (0.59 ms) to {@code 2^36} ns (68.7 s), then {@code
 * +Inf}. A bucket is at most 1/8 of its lower bound wide, so a quantile read from it is off by at
 * most 12.5% (less with interpolation), p99.9 included, from 1 ms to 60 s.
 *
 * <p>Every bound is also a bound of the agent's histograms ({@code LatencyHistogram}: 16 buckets
 * per power of two, upper bounds {@code (17 + s) * 2^(e - 4)} ns), computed the same way ({@code
 * nanos / 1e9}, correctly rounded), so the agents' histograms fold into this layout exactly.
 */
public final class Buckets {
  private static final int FIRST_EXPONENT = 19;
  private static final int LAST_EXPONENT = 35;

  private static final long[] UPPER_NANOS;
  private static final double[] UPPER_SECONDS;

  static {
    int perOctave = 8;
    UPPER_NANOS = new long[(LAST_EXPONENT - FIRST_EXPONENT + 1) * perOctave];
    int i = 0;
    for (int e = FIRST_EXPONENT; e <= LAST_EXPONENT; e++) {
      for (int s = 1; s < 16; s += 2) {
        UPPER_NANOS[i++] = (17L + s) << (e - 4);
      }
    }
    UPPER_SECONDS = new double[UPPER_NANOS.length];
    for (int j = 0; j < UPPER_NANOS.length; j++) {
      UPPER_SECONDS[j] = UPPER_NANOS[j] / 1e9;
    }
  }

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
