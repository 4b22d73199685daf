package dev.klat.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

  private static final int LAST = LatencyHistogram.BUCKET_COUNT - 1;

  @Test
  void recordingWithACountEqualsRecordingThatManyTimes() {
    LatencyHistogram batched = new LatencyHistogram();
    LatencyHistogram single = new LatencyHistogram();
    long[] values = {0L, 999L, 1_001L, 5_000_000L, 1L << 40, Long.MAX_VALUE / 3};
    for (long value : values) {
      batched.recordNanos(value, 7);
      for (int i = 0; i < 7; i++) {
        single.recordNanos(value);
      }
    }
    batched.recordNanos(-5L, 3);
    batched.recordNanos(10L, 0);

    assertThat(batched.snapshot().bucketCounts()).isEqualTo(single.snapshot().bucketCounts());
    assertThat(batched.snapshot().sumSeconds()).isEqualTo(single.snapshot().sumSeconds());
    assertThat(batched.negativeCount()).isEqualTo(3);
  }

  @Test
  void hasOneFirstBucket433LogLinearBucketsAndOneOverflowBucket() {
    assertThat(LatencyHistogram.BUCKET_COUNT).isEqualTo(435);
    assertThat(LatencyHistogram.explicitBoundsSeconds()).hasSize(434);
  }

  @Test
  void valuesUpToOneMicrosecondInclusiveLandInTheFirstBucket() {
    // OTLP and Prometheus buckets include their upper bound: 1000 ns belongs to (-inf, 1 us].
    assertThat(LatencyHistogram.bucketIndex(0)).isZero();
    assertThat(LatencyHistogram.bucketIndex(1)).isZero();
    assertThat(LatencyHistogram.bucketIndex(999)).isZero();
    assertThat(LatencyHistogram.bucketIndex(1000)).isZero();
    assertThat(LatencyHistogram.bucketIndex(1001)).isEqualTo(1);
  }

  @Test
  void edgeValuesLandInTheBucketWhoseInclusiveUpperBoundTheyReach() {
    assertThat(LatencyHistogram.bucketIndex(1023)).isEqualTo(1);
    assertThat(LatencyHistogram.bucketIndex(1024)).isEqualTo(1);
    assertThat(LatencyHistogram.upperBoundNanos(1)).isEqualTo(1024);
    assertThat(LatencyHistogram.bucketIndex(1025)).isEqualTo(2);
    assertThat(LatencyHistogram.bucketIndex(1087)).isEqualTo(2);
    assertThat(LatencyHistogram.bucketIndex(1088)).isEqualTo(2);
    assertThat(LatencyHistogram.upperBoundNanos(2)).isEqualTo(1088);
    assertThat(LatencyHistogram.bucketIndex(1089)).isEqualTo(3);
    assertThat(LatencyHistogram.upperBoundNanos(3)).isEqualTo(1152);
  }

  @Test
  void everyPowerOfTwoIsTheUpperBoundOfABucketAndTheNextValueStartsTheNext() {
    for (int e = 10; e <= 37; e++) {
      long power = 1L << e;
      int index = LatencyHistogram.bucketIndex(power);
      assertThat(LatencyHistogram.upperBoundNanos(index)).as("2^%d", e).isEqualTo(power);
      assertThat(LatencyHistogram.bucketIndex(power + 1)).as("2^%d + 1", e).isEqualTo(index + 1);
      assertThat(LatencyHistogram.bucketIndex(power - 1)).as("2^%d - 1", e).isEqualTo(index);
    }
    assertThat(LatencyHistogram.bucketIndex(1L << 37)).isEqualTo(LAST - 1);
  }

  @Test
  void valuesAboveTwoToThe37NanosLandInTheOverflowBucket() {
    assertThat(LatencyHistogram.bucketIndex((1L << 37) + 1)).isEqualTo(LAST);
    assertThat(LatencyHistogram.bucketIndex(1L << 40)).isEqualTo(LAST);
    assertThat(LatencyHistogram.bucketIndex(Long.MAX_VALUE)).isEqualTo(LAST);
  }

  @Test
  void boundsFollowTheDocumentedFormulaAndAreStrictlyIncreasing() {
    double[] bounds = LatencyHistogram.explicitBoundsSeconds();
    assertThat(bounds[0]).isEqualTo(1e-6);
    assertThat(bounds[1]).isEqualTo(1024 / 1e9);
    assertThat(bounds[bounds.length - 1]).isEqualTo(137.438953472);
    for (int i = 1; i < bounds.length; i++) {
      int k = i + 158;
      long expectedNanos = (17L + k % 16) * (1L << (k / 16 - 4));
      assertThat(LatencyHistogram.upperBoundNanos(i)).isEqualTo(expectedNanos);
      assertThat(bounds[i]).isEqualTo(expectedNanos / 1e9);
      assertThat(bounds[i]).isGreaterThan(bounds[i - 1]);
    }
  }

  @Test
  void explicitBoundsSecondsReturnsACopy() {
    LatencyHistogram.explicitBoundsSeconds()[0] = 42;
    assertThat(LatencyHistogram.explicitBoundsSeconds()[0]).isEqualTo(1e-6);
  }

  @Test
  void everyBucketIsAtMostOneSixteenthOfItsLowerBoundWide() {
    for (int i = 1; i < LAST; i++) {
      long lower = LatencyHistogram.upperBoundNanos(i - 1);
      long upper = LatencyHistogram.upperBoundNanos(i);
      assertThat((double) (upper - lower) / lower).as("bucket %d", i).isLessThanOrEqualTo(0.0625);
    }
  }

  @Test
  void randomValuesLandInTheBucketWhoseBoundsContainThem() {
    SplittableRandom random = new SplittableRandom(42);
    for (int n = 0; n < 1_000_000; n++) {
      // Log-uniform over [0, 2^40): every octave is exercised equally.
      int bits = random.nextInt(41);
      long v = bits == 0 ? 0 : random.nextLong(1L << (bits - 1), 1L << bits);
      int index = LatencyHistogram.bucketIndex(v);
      if (index == 0) {
        assertThat(v).isLessThanOrEqualTo(1000);
      } else if (index == LAST) {
        assertThat(v).isGreaterThan(LatencyHistogram.upperBoundNanos(LAST - 1));
      } else {
        assertThat(v)
            .as("value %d in bucket %d", v, index)
            .isGreaterThan(LatencyHistogram.upperBoundNanos(index - 1))
            .isLessThanOrEqualTo(LatencyHistogram.upperBoundNanos(index));
      }
    }
  }

  @Test
  void eitherBoundOfAValuesBucketIsWithinSixPointTwoFivePercentOfIt() {
    SplittableRandom random = new SplittableRandom(7);
    for (int n = 0; n < 1_000_000; n++) {
      long v = random.nextLong(1001, (1L << 37) + 1);
      int index = LatencyHistogram.bucketIndex(v);
      double upper = LatencyHistogram.upperBoundNanos(index);
      double lower = LatencyHistogram.upperBoundNanos(index - 1);
      assertThat((upper - v) / v).isLessThanOrEqualTo(0.0625);
      assertThat((v - lower) / v).isLessThanOrEqualTo(0.0625);
    }
  }

  @Test
  void recordsCountsAndSumInSeconds() {
    LatencyHistogram histogram = new LatencyHistogram();
    histogram.recordNanos(500);
    histogram.recordNanos(1500);
    histogram.recordNanos(2_000_000_000L);
    histogram.recordNanos(200_000_000_000L);

    LatencyHistogram.Snapshot snapshot = histogram.snapshot();
    assertThat(histogram.count()).isEqualTo(4);
    assertThat(snapshot.count()).isEqualTo(4);
    assertThat(snapshot.sumSeconds()).isCloseTo(202.000002, within(1e-9));
    long[] counts = snapshot.bucketCounts();
    assertThat(counts).hasSize(LatencyHistogram.BUCKET_COUNT);
    assertThat(counts[0]).isEqualTo(1);
    assertThat(counts[LatencyHistogram.bucketIndex(1500)]).isEqualTo(1);
    assertThat(counts[LatencyHistogram.bucketIndex(2_000_000_000L)]).isEqualTo(1);
    assertThat(counts[LAST]).isEqualTo(1);
  }

  @Test
  void recordingABatchEqualsRecordingEachDuration() {
    java.util.Random random = new java.util.Random(42);
    long endNanos = 5_000_000_000_000L;
    long[] startNanos = new long[1000];
    for (int i = 0; i < startNanos.length; i++) {
      // Mostly sub-second, some far out, a few after the end (negative durations).
      startNanos[i] =
          endNanos
              - (random.nextInt(50) == 0
                  ? -random.nextInt(1000)
                  : random.nextLong() % 2_000_000_000L);
    }
    LatencyHistogram batch = new LatencyHistogram();
    LatencyHistogram oneByOne = new LatencyHistogram();

    batch.recordAll(endNanos, startNanos, 10, 990);
    for (int i = 10; i < 990; i++) {
      oneByOne.recordNanos(endNanos - startNanos[i]);
    }

    assertThat(batch.snapshot().bucketCounts()).isEqualTo(oneByOne.snapshot().bucketCounts());
    assertThat(batch.snapshot().sumSeconds()).isEqualTo(oneByOne.snapshot().sumSeconds());
    assertThat(batch.negativeCount()).isEqualTo(oneByOne.negativeCount()).isPositive();
  }

  @Test
  void recordingABatchOfIntOffsetsEqualsRecordingEachDuration() {
    // A producer batch: starts as offsets from its first S, some before it, equal runs, the end
    // 2 ms to 3 s after the base, a few starts after the end.
    java.util.Random random = new java.util.Random(11);
    long baseNanos = 7_000_000_000_000L;
    int[] startOffsets = new int[1500];
    int offset = 0;
    for (int i = 0; i < startOffsets.length; i++) {
      int dice = random.nextInt(100);
      if (dice < 20) {
        // same nanosecond as the record before
      } else if (dice < 95) {
        offset += random.nextInt(20_000);
      } else {
        offset = random.nextInt() / 2;
      }
      startOffsets[i] = offset;
    }
    for (long endSinceBase : new long[] {2_000_000L, 3_000_000_000L}) {
      LatencyHistogram batch = new LatencyHistogram();
      LatencyHistogram oneByOne = new LatencyHistogram();

      int negatives = batch.recordAll(endSinceBase, startOffsets, 5, 1490);
      for (int i = 5; i < 1490; i++) {
        oneByOne.recordNanos((baseNanos + endSinceBase) - (baseNanos + startOffsets[i]));
      }

      assertThat(batch.snapshot().bucketCounts()).isEqualTo(oneByOne.snapshot().bucketCounts());
      assertThat(batch.snapshot().sumSeconds()).isEqualTo(oneByOne.snapshot().sumSeconds());
      assertThat((long) negatives).isEqualTo(oneByOne.negativeCount());
    }
  }

  @Test
  void recordingABatchOfMillisecondStartsEqualsRecordingEachDuration() {
    // Consumer records: millisecond timestamps, many equal in a row, runs of one bucket broken by
    // other buckets and by starts after the end.
    java.util.Random random = new java.util.Random(7);
    long endNanos = 5_000_000_000_000L;
    long[] startNanos = new long[2000];
    long millis = endNanos / 1_000_000L - 900;
    for (int i = 0; i < startNanos.length; i++) {
      int dice = random.nextInt(100);
      if (dice < 60) {
        // same millisecond as the record before
      } else if (dice < 95) {
        millis += random.nextInt(3);
      } else if (dice < 98) {
        millis = endNanos / 1_000_000L - random.nextInt(100_000);
      } else {
        millis = endNanos / 1_000_000L + 1 + random.nextInt(5);
      }
      startNanos[i] = millis * 1_000_000L;
    }
    LatencyHistogram batch = new LatencyHistogram();
    LatencyHistogram oneByOne = new LatencyHistogram();

    int negatives = batch.recordAll(endNanos, startNanos, 3, 1997);
    for (int i = 3; i < 1997; i++) {
      oneByOne.recordNanos(endNanos - startNanos[i]);
    }

    assertThat(batch.snapshot().bucketCounts()).isEqualTo(oneByOne.snapshot().bucketCounts());
    assertThat(batch.snapshot().sumSeconds()).isEqualTo(oneByOne.snapshot().sumSeconds());
    assertThat((long) negatives).isEqualTo(oneByOne.negativeCount()).isPositive();
  }

  @Test
  void negativeValuesAreCountedSeparatelyAndNotRecorded() {
    LatencyHistogram histogram = new LatencyHistogram();
    histogram.recordNanos(-1);
    histogram.recordNanos(Long.MIN_VALUE);

    assertThat(histogram.negativeCount()).isEqualTo(2);
    assertThat(histogram.count()).isZero();
    assertThat(histogram.snapshot().sumSeconds()).isZero();
  }

  @Test
  void sumDoesNotOverflowPastTwoToThe64Nanoseconds() {
    LatencyHistogram histogram = new LatencyHistogram();
    for (int i = 0; i < 10; i++) {
      histogram.recordNanos(Long.MAX_VALUE);
    }
    double expectedSeconds = 10 * (double) Long.MAX_VALUE / 1e9;
    assertThat(histogram.snapshot().sumSeconds()).isCloseTo(expectedSeconds, within(1.0));
  }

  @Test
  void snapshotsAreCumulativeAndIndependentOfLaterRecording() {
    LatencyHistogram histogram = new LatencyHistogram();
    histogram.recordNanos(5_000);
    LatencyHistogram.Snapshot first = histogram.snapshot();
    histogram.recordNanos(5_000);
    LatencyHistogram.Snapshot second = histogram.snapshot();

    assertThat(first.count()).isEqualTo(1);
    assertThat(first.bucketCounts()[LatencyHistogram.bucketIndex(5_000)]).isEqualTo(1);
    assertThat(second.count()).isEqualTo(2);
    assertThat(second.sumSeconds()).isEqualTo(10e-6);
  }

  @Test
  void concurrentRecordingFromFourThreadsCountsAndSumsExactly() throws Exception {
    LatencyHistogram histogram = new LatencyHistogram();
    int threads = 4;
    int perThread = 1_000_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(
          pool.submit(
              () -> {
                go.await();
                for (int i = 0; i < perThread; i++) {
                  // Values 1..1000 us, the same multiset in every thread.
                  histogram.recordNanos((i % 1000 + 1) * 1000L);
                }
                return null;
              }));
    }
    // Snapshots while recording: each must be internally consistent.
    go.countDown();
    for (int i = 0; i < 100; i++) {
      LatencyHistogram.Snapshot s = histogram.snapshot();
      long total = 0;
      for (long c : s.bucketCounts()) {
        total += c;
      }
      assertThat(total).isEqualTo(s.count());
    }
    for (Future<?> f : futures) {
      f.get(30, TimeUnit.SECONDS);
    }
    pool.shutdown();

    long n = (long) threads * perThread;
    assertThat(histogram.count()).isEqualTo(n);
    // Each thread records 1000 rounds of 1..1000 us: 1000 * 500500 us.
    long expectedSumMicros = threads * 1000L * 500_500L;
    assertThat(histogram.snapshot().sumSeconds()).isEqualTo(expectedSumMicros / 1e6);
    long[] counts = histogram.snapshot().bucketCounts();
    assertThat(counts[0]).isEqualTo(threads * 1000L);
  }
}
