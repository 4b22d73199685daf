package dev.klat.agent.tail;

import dev.klat.agent.metrics.LatencyHistogram;
import dev.klat.model.LatencyBuckets;

/**
 * The 99th percentile of the durations recorded into a {@link LatencyHistogram} over about the last
 * minute: what {@code auto} thresholds are. The histogram is cumulative and recorded lock-free by
 * the hot path (the producer's every-record {@code A - S} histogram, or one this class owns and the
 * caller feeds through {@link #recordNanos}); this class only reads it, in {@link #refresh}, off
 * the hot path.
 *
 * <p><b>Window.</b> Every {@value #SLOT_SECONDS} s, {@link #refresh} takes the histogram's bucket
 * counts, keeps the difference from the previous ones (sparse: only the buckets that changed), and
 * drops the difference older than {@value #SLOTS} slots, so the percentile covers the last 55 to 60
 * seconds. It is the upper bound of the bucket holding the record of rank {@code ceil(0.99 n)}: at
 * most 1% of the window's records are above it (the buckets are 6.25% wide, so it is at most 6.25%
 * above the exact percentile).
 *
 * <p><b>Enough records.</b> With fewer than {@value #MIN_RECORDS} records in the window, {@link
 * #refresh} returns {@link Long#MAX_VALUE} (flag nothing): the p99 is then the fifth-slowest record
 * of the minute or later, so a single stalled record cannot set the threshold that the next minute
 * is judged by, and a topic at about 8 records a second already has one.
 *
 * <p><b>Memory.</b> The last counts (435 longs) and at most {@value #SLOTS} sparse differences,
 * usually a few dozen buckets each. {@link #refresh} is for one thread at a time.
 */
public final class RecentP99 {

  /** The window is this many slots. */
  static final int SLOTS = 12;

  /** A slot's length in seconds. */
  static final int SLOT_SECONDS = 5;

  /** A slot's length in nanoseconds: an {@code auto} threshold moves at most this often. */
  public static final long SLOT_NANOS = SLOT_SECONDS * 1_000_000_000L;

  /** Below this many records in the window there is no p99: {@link Long#MAX_VALUE}. */
  public static final int MIN_RECORDS = 500;

  private static final long[] UPPER_NANOS = LatencyBuckets.agentUpperNanos();
  private static final int BUCKETS = LatencyHistogram.BUCKET_COUNT;

  private final LatencyHistogram source;
  private final int[][] slotBuckets = new int[SLOTS][];
  private final long[][] slotCounts = new long[SLOTS][];
  private int nextSlot;
  private long[] lastCounts;
  private long lastRotationNanos;
  private long p99Nanos = Long.MAX_VALUE;

  /** Over a histogram that someone else records into (an every-record histogram). */
  public RecentP99(LatencyHistogram source) {
    this.source = source;
  }

  /** Over a histogram of its own, fed by {@link #recordNanos}. */
  public RecentP99() {
    this(new LatencyHistogram());
  }

  /**
   * Records one duration into the histogram this window reads. Lock-free and allocation-free.
   *
   * @param nanos a duration; negative ones are not recorded
   */
  public void recordNanos(long nanos) {
    source.recordNanos(nanos);
  }

  /** The histogram this window reads. */
  public LatencyHistogram histogram() {
    return source;
  }

  /**
   * Moves the window when a slot has passed since the last move (the first call only starts it),
   * and returns the p99 of the window.
   *
   * @param nowNanos {@link System#nanoTime()} or the test's clock
   * @return the p99 in nanoseconds, or {@link Long#MAX_VALUE} while the window holds fewer than
   *     {@link #MIN_RECORDS} records
   */
  public long refresh(long nowNanos) {
    if (lastCounts == null) {
      lastCounts = source.snapshot().bucketCountsShared();
      lastRotationNanos = nowNanos;
      return p99Nanos;
    }
    if (nowNanos - lastRotationNanos < SLOT_NANOS) {
      return p99Nanos;
    }
    // A refresh that came late (a paused exporter) still moves by one slot: the window then covers
    // a little more than a minute, which errs towards more records, not fewer.
    lastRotationNanos = nowNanos;
    long[] counts = source.snapshot().bucketCountsShared();
    storeDifference(counts);
    lastCounts = counts;
    p99Nanos = percentile99();
    return p99Nanos;
  }

  /** The p99 as of the last {@link #refresh}. */
  public long p99Nanos() {
    return p99Nanos;
  }

  private void storeDifference(long[] counts) {
    int changed = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (counts[i] != lastCounts[i]) {
        changed++;
      }
    }
    int[] buckets = new int[changed];
    long[] added = new long[changed];
    int j = 0;
    for (int i = 0; i < BUCKETS && j < changed; i++) {
      long difference = counts[i] - lastCounts[i];
      if (difference != 0) {
        buckets[j] = i;
        added[j] = difference;
        j++;
      }
    }
    slotBuckets[nextSlot] = buckets;
    slotCounts[nextSlot] = added;
    nextSlot = (nextSlot + 1) % SLOTS;
  }

  private long percentile99() {
    long[] window = new long[BUCKETS];
    long total = 0;
    for (int s = 0; s < SLOTS; s++) {
      int[] buckets = slotBuckets[s];
      if (buckets == null) {
        continue;
      }
      long[] added = slotCounts[s];
      for (int j = 0; j < buckets.length; j++) {
        window[buckets[j]] += added[j];
        total += added[j];
      }
    }
    if (total < MIN_RECORDS) {
      return Long.MAX_VALUE;
    }
    // The record of rank ceil(0.99 total), 1-based.
    long rank = total - total / 100;
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += window[i];
      if (seen >= rank) {
        return i < UPPER_NANOS.length ? UPPER_NANOS[i] : LatencyBuckets.AGENT_LAST_BOUND_NANOS;
      }
    }
    return LatencyBuckets.AGENT_LAST_BOUND_NANOS;
  }
}
