package dev.klat.agent.metrics;

import dev.klat.model.LatencyBuckets;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A cumulative histogram of durations in nanoseconds whose recording is lock-free and allocates
 * nothing, so that it can run on the Kafka producer's network thread for every record.
 *
 * <h2>Buckets</h2>
 *
 * <p>Log-linear, with OTLP's (and Prometheus') semantics: bucket {@code i} counts the values {@code
 * v} with {@code upper(i-1) < v <= upper(i)}, upper bounds inclusive. The upper bounds, in
 * nanoseconds, are
 *
 * <ul>
 *   <li>{@code upper(0) = 1000} (1 us): every value up to 1 us falls in the first bucket;
 *   <li>for {@code 1 <= i <= 433}, with {@code k = i + 158}, {@code e = k / 16} and {@code s = k %
 *       16}: {@code upper(i) = (17 + s) * 2^(e - 4)}. That is 16 linear sub-buckets per power of
 *       two {@code [2^e, 2^(e+1))}, from {@code e = 9} (only its last sub-bucket, {@code (1000,
 *       1024]}) to {@code e = 36}; the last bound is {@code upper(433) = 2^37} ns (about 137 s);
 *   <li>bucket 434 counts every value above {@code 2^37} ns (the overflow bucket, {@code +Inf}).
 * </ul>
 *
 * <p>A bucket is at most 1/16 = 6.25% of its lower bound wide, so reporting a value by either bound
 * of its bucket is off by at most 6.25%. {@link #explicitBoundsSeconds()} gives the 434 bounds as
 * {@code upper(i) / 1e9}; every bound is an integer below 2^53 nanoseconds and the division is
 * correctly rounded, so every agent computes bit-identical bounds and histograms of many agents
 * merge exactly.
 *
 * <h2>Threads</h2>
 *
 * <p>{@link #recordNanos} may be called from any number of threads at once; it performs two or
 * three atomic additions. {@link #snapshot()} may run concurrently with recording; each bucket
 * count it returns is a value the bucket had, and its total count is the sum of those, so a
 * snapshot is internally consistent and never goes backwards.
 */
public final class LatencyHistogram {

  /** The upper bound of the first bucket, in nanoseconds. */
  static final long FIRST_BOUND_NANOS = LatencyBuckets.AGENT_FIRST_BOUND_NANOS;

  /** The last finite upper bound, in nanoseconds: larger values land in the overflow bucket. */
  static final long LAST_BOUND_NANOS = LatencyBuckets.AGENT_LAST_BOUND_NANOS;

  /** The number of buckets, including the first and the overflow bucket. */
  public static final int BUCKET_COUNT = LatencyBuckets.AGENT_BUCKET_COUNT;

  private static final long[] UPPER_BOUNDS_NANOS = LatencyBuckets.agentUpperNanos();
  private static final double[] BOUNDS_SECONDS = LatencyBuckets.seconds(UPPER_BOUNDS_NANOS);

  private static final double NANOS_PER_SECOND = 1e9;
  private static final double TWO_TO_64 = 18446744073709551616.0;

  private final AtomicLongArray counts = new AtomicLongArray(BUCKET_COUNT);
  // The sum in nanoseconds is a 128-bit unsigned number: sumCarries * 2^64 + unsigned(sumLow).
  // A reprocessing consumer reporting week-old records overflows a long within seconds.
  private final AtomicLong sumLow = new AtomicLong();
  private final AtomicLong sumCarries = new AtomicLong();
  private final AtomicLong negativeCount = new AtomicLong();

  /** Creates an empty histogram. */
  public LatencyHistogram() {}

  /**
   * Records one duration. Lock-free and allocation-free.
   *
   * @param nanos the duration in nanoseconds; a negative value is not recorded, it only increments
   *     {@link #negativeCount()} (callers clamp and count negative durations themselves; this is a
   *     guard)
   */
  public void recordNanos(long nanos) {
    if (nanos < 0) {
      negativeCount.getAndIncrement();
      return;
    }
    counts.getAndIncrement(bucketIndex(nanos));
    addToSum(nanos);
  }

  /**
   * Records {@code endNanos - startNanos[i]} for every {@code i} in {@code [from, to)}: the
   * durations of a batch of records that ended at the same instant. Lock-free and allocation-free;
   * one atomic addition per run of consecutive durations that fall in the same bucket (records of
   * one batch usually start within a bucket's width of each other) and one for the batch's sum,
   * instead of two or three per duration.
   *
   * @param endNanos the instant every duration ends, in {@link System#nanoTime()} nanoseconds
   * @param startNanos the instants the durations start
   * @param from the first index, inclusive
   * @param to the last index, exclusive
   * @return how many of the durations were negative (counted apart, not recorded)
   */
  public int recordAll(long endNanos, long[] startNanos, int from, int to) {
    long batchSum = 0;
    int negatives = 0;
    // The bucket of the current run of equal buckets, and its length; a start equal to the one
    // before (millisecond timestamps, records appended together) needs no bucket computed.
    int runBucket = -1;
    int runLength = 0;
    long previousStart = 0;
    for (int i = from; i < to; i++) {
      long start = startNanos[i];
      long nanos = endNanos - start;
      if (nanos < 0) {
        negatives++;
        continue;
      }
      batchSum = addClampedToLongMax(batchSum, nanos);
      if (runLength > 0 && start == previousStart) {
        runLength++;
        continue;
      }
      previousStart = start;
      int bucket = bucketIndex(nanos);
      if (bucket == runBucket) {
        runLength++;
      } else {
        if (runLength > 0) {
          counts.getAndAdd(runBucket, runLength);
        }
        runBucket = bucket;
        runLength = 1;
      }
    }
    return finishBatch(runBucket, runLength, negatives, batchSum);
  }

  /**
   * Records {@code endSinceBaseNanos - startOffsetNanos[i]} for every {@code i} in {@code [from,
   * to)}: {@link #recordAll(long, long[], int, int)} for start instants kept as int offsets from a
   * common base (the producer's batches: half the memory of longs), the end given from the same
   * base. The loop is that method's, for ints: a shared one would cost a widening copy or a call
   * per duration.
   *
   * @param endSinceBaseNanos the instant every duration ends, in nanoseconds since the base
   * @param startOffsetNanos the instants the durations start, in nanoseconds since the base
   * @param from the first index, inclusive
   * @param to the last index, exclusive
   * @return how many of the durations were negative (counted apart, not recorded)
   */
  public int recordAll(long endSinceBaseNanos, int[] startOffsetNanos, int from, int to) {
    long batchSum = 0;
    int negatives = 0;
    int runBucket = -1;
    int runLength = 0;
    int previousStart = 0;
    for (int i = from; i < to; i++) {
      int start = startOffsetNanos[i];
      long nanos = endSinceBaseNanos - start;
      if (nanos < 0) {
        negatives++;
        continue;
      }
      batchSum = addClampedToLongMax(batchSum, nanos);
      if (runLength > 0 && start == previousStart) {
        runLength++;
        continue;
      }
      previousStart = start;
      int bucket = bucketIndex(nanos);
      if (bucket == runBucket) {
        runLength++;
      } else {
        if (runLength > 0) {
          counts.getAndAdd(runBucket, runLength);
        }
        runBucket = bucket;
        runLength = 1;
      }
    }
    return finishBatch(runBucket, runLength, negatives, batchSum);
  }

  private int finishBatch(int runBucket, int runLength, int negatives, long batchSum) {
    if (runLength > 0) {
      counts.getAndAdd(runBucket, runLength);
    }
    if (negatives > 0) {
      negativeCount.getAndAdd(negatives);
    }
    if (batchSum > 0) {
      addToSum(batchSum);
    }
    return negatives;
  }

  // A batch's durations each fit 2^63 nanoseconds; their sum only would after 292 years of
  // latency in one batch. Saturating keeps even that case a large number instead of a wrap.
  private static long addClampedToLongMax(long sum, long nanos) {
    long added = sum + nanos;
    return added < sum ? Long.MAX_VALUE : added;
  }

  /**
   * Records the same duration {@code count} times, as cheaply as one: the consumer's records of one
   * fetch response share their fetch round trip. Lock-free and allocation-free.
   *
   * @param nanos the duration in nanoseconds; negative values only increment {@link
   *     #negativeCount()}
   * @param count how many times; nothing happens when it is not positive
   */
  public void recordNanos(long nanos, int count) {
    if (count <= 0) {
      return;
    }
    if (nanos < 0) {
      negativeCount.getAndAdd(count);
      return;
    }
    counts.getAndAdd(bucketIndex(nanos), count);
    // nanos * count fits in a long below 2^31 * 2^32 ns; beyond that, add in steps.
    if (nanos > (Long.MAX_VALUE >>> 1) / count) {
      for (int i = 0; i < count; i++) {
        addToSum(nanos);
      }
    } else {
      addToSum(nanos * count);
    }
  }

  private void addToSum(long nanos) {
    long previous = sumLow.getAndAdd(nanos);
    if (Long.compareUnsigned(previous + nanos, previous) < 0) {
      sumCarries.getAndIncrement();
    }
  }

  /**
   * Returns how many durations were recorded. Sums every bucket: not for the hot path.
   *
   * @return the number of non-negative values recorded
   */
  public long count() {
    long total = 0;
    for (int i = 0; i < BUCKET_COUNT; i++) {
      total += counts.get(i);
    }
    return total;
  }

  /**
   * Returns how many negative values were passed to {@link #recordNanos} and dropped.
   *
   * @return the number of negative values
   */
  public long negativeCount() {
    return negativeCount.get();
  }

  /**
   * Returns the cumulative state of the histogram.
   *
   * @return a new snapshot, never null
   */
  public Snapshot snapshot() {
    long[] copy = new long[BUCKET_COUNT];
    long total = 0;
    for (int i = 0; i < BUCKET_COUNT; i++) {
      long c = counts.get(i);
      copy[i] = c;
      total += c;
    }
    return new Snapshot(copy, total, sumSeconds());
  }

  private double sumSeconds() {
    // Re-read when a carry happened during the read. The window between an addition that wraps
    // sumLow and its carry increment is not covered: a snapshot landing there (once per 2^64 ns,
    // 584 years, of recorded latency) reads a sum 2^64 ns too small.
    long carries;
    long low;
    int attempts = 0;
    do {
      carries = sumCarries.get();
      low = sumLow.get();
    } while (carries != sumCarries.get() && ++attempts < 8);
    double unsignedLow = low >= 0 ? (double) low : (double) (low >>> 1) * 2.0 + (low & 1);
    return (carries * TWO_TO_64 + unsignedLow) / NANOS_PER_SECOND;
  }

  /**
   * Returns the finite bucket upper bounds in seconds, identical in every agent; see the class
   * documentation for the formula.
   *
   * @return a new array of 434 strictly increasing bounds, for OTLP {@code explicit_bounds}
   */
  public static double[] explicitBoundsSeconds() {
    return BOUNDS_SECONDS.clone();
  }

  /**
   * {@link #explicitBoundsSeconds()} without the copy, for the encoder, which writes them once per
   * request: shared, so a caller must not modify it.
   */
  public static double[] boundsSecondsShared() {
    return BOUNDS_SECONDS;
  }

  /**
   * Returns the bucket a duration falls in.
   *
   * @param nanos a non-negative duration in nanoseconds
   * @return the index, in {@code [0, BUCKET_COUNT)}
   */
  static int bucketIndex(long nanos) {
    return LatencyBuckets.agentIndex(nanos);
  }

  /**
   * Returns the inclusive upper bound of a bucket.
   *
   * @param index in {@code [0, BUCKET_COUNT - 1)}; the overflow bucket has no bound
   * @return the bound in nanoseconds
   */
  static long upperBoundNanos(int index) {
    return UPPER_BOUNDS_NANOS[index];
  }

  /** The cumulative state of a histogram at one moment. Immutable. */
  public static final class Snapshot {
    private final long[] bucketCounts;
    private final long count;
    private final double sumSeconds;

    Snapshot(long[] bucketCounts, long count, double sumSeconds) {
      this.bucketCounts = bucketCounts;
      this.count = count;
      this.sumSeconds = sumSeconds;
    }

    /**
     * Returns the count of each bucket, in the order of {@link #explicitBoundsSeconds()} with the
     * overflow bucket last.
     *
     * @return a new array of {@code explicitBoundsSeconds().length + 1} counts
     */
    public long[] bucketCounts() {
      return bucketCounts.clone();
    }

    /**
     * {@link #bucketCounts()} without the copy, for the encoder: shared, so a caller must not
     * modify it.
     */
    public long[] bucketCountsShared() {
      return bucketCounts;
    }

    /**
     * Returns the number of values recorded.
     *
     * @return the sum of {@link #bucketCounts()}
     */
    public long count() {
      return count;
    }

    /**
     * Returns the sum of the values recorded.
     *
     * @return the sum in seconds
     */
    public double sumSeconds() {
      return sumSeconds;
    }
  }
}
