package dev.klat.agent.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.klat.agent.metrics.LatencyHistogram;
import org.junit.jupiter.api.Test;

class RecentP99Test {

  private static final long MS = 1_000_000L;
  private static final long SLOT = RecentP99.SLOT_NANOS;

  /** Records 1..count ms, spread evenly: the p99 is 0.99 * count ms, to a bucket's width. */
  private static void recordRamp(RecentP99 window, int count, long scaleNanos) {
    for (int i = 1; i <= count; i++) {
      window.recordNanos(i * scaleNanos);
    }
  }

  @Test
  void isThePercentileOfTheLastMinuteByTheBucketsUpperBound() {
    RecentP99 window = new RecentP99();
    long now = 1_000 * SLOT;
    assertThat(window.refresh(now)).isEqualTo(Long.MAX_VALUE);
    recordRamp(window, 1000, MS);
    // Not a slot yet: nothing moves.
    assertThat(window.refresh(now + SLOT - 1)).isEqualTo(Long.MAX_VALUE);
    long p99 = window.refresh(now + SLOT);
    // 990 ms, rounded up to its bucket's bound: at most 6.25% above.
    assertThat((double) p99).isCloseTo(990 * MS * 1.03, within(990 * MS * 0.035));
    assertThat(p99).isGreaterThanOrEqualTo(990 * MS);
    assertThat(window.p99Nanos()).isEqualTo(p99);
  }

  @Test
  void forgetsWhatIsOlderThanTheWindow() {
    RecentP99 window = new RecentP99();
    long now = 0;
    window.refresh(now);
    recordRamp(window, 1000, 10 * MS); // slow minute: p99 about 9.9 s
    now += SLOT;
    long slow = window.refresh(now);
    assertThat(slow).isGreaterThan(9_000 * MS);
    for (int s = 1; s < RecentP99.SLOTS; s++) {
      recordRamp(window, 1000, MS / 10); // fast: at most 100 ms
      now += SLOT;
      window.refresh(now);
    }
    // The slow slot is still in the window: 1000 of 12000 records above 100 ms.
    assertThat(window.p99Nanos()).isGreaterThan(1_000 * MS);
    recordRamp(window, 1000, MS / 10);
    now += SLOT;
    assertThat(window.refresh(now)).isLessThan(110 * MS);
  }

  @Test
  void needsEnoughRecordsInTheWindow() {
    RecentP99 window = new RecentP99();
    window.refresh(0);
    recordRamp(window, RecentP99.MIN_RECORDS - 1, MS);
    assertThat(window.refresh(SLOT)).isEqualTo(Long.MAX_VALUE);
    window.recordNanos(MS);
    assertThat(window.refresh(2 * SLOT)).isLessThan(Long.MAX_VALUE);
  }

  @Test
  void followsAHistogramSomeoneElseRecordsInto() {
    LatencyHistogram everyRecord = new LatencyHistogram();
    RecentP99 window = new RecentP99(everyRecord);
    assertThat(window.histogram()).isSameAs(everyRecord);
    everyRecord.recordNanos(5 * MS, 10_000); // before the window started: not counted
    window.refresh(0);
    everyRecord.recordNanos(MS, 1_000);
    assertThat(window.refresh(SLOT)).isLessThanOrEqualTo(MS + MS / 16);
  }
}
