package dev.klat.collector.correlate.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.probe.ProbeTimelines.TermKey;
import org.junit.jupiter.api.Test;

/** How long {@link ProbeTimelines} keeps ranges: {@code probe.retention} within its bounds. */
class ProbeRetentionTest {

  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000 * MS;
  private static final long T0 = 1_800_000_000L * SECOND;
  private final TermKey leader = new TermKey(1, 0xAAL, 5);

  // One append and one commit range of ten offsets a millisecond, as a busy partition sends them.
  private static void busy(ProbeTimelines timelines, String topic, int fromMs, int toMs) {
    for (int ms = fromMs; ms < toMs; ms++) {
      long at = T0 + ms * MS;
      timelines.append(new TermKey(1, 0xAAL, 5), topic, 0, 10L * ms, 10L * ms + 9, at, at);
      timelines.commit(new TermKey(1, 0xAAL, 5), topic, 0, 10L * ms, 10L * ms + 9, at, at, 2);
    }
  }

  @Test
  void aBusyPartitionKeepsItsRangesForTheRetentionNotForAFixedCount() {
    ProbeTimelines timelines = new ProbeTimelines(10, 1 << 20, 1L << 30, 10 * SECOND);
    busy(timelines, "t", 0, 40_000); // 40 s at one range a millisecond

    // The newest range is at 39.999 s: every range from 29.999 s on is kept (more while the ring
    // fills the slots its last doubling made), and 20 s old ones are gone.
    for (int ms = 29_999; ms < 40_000; ms += 7) {
      assertThat(timelines.lookup("t", 0, 10L * ms + 5, 1).appendNanos()).isEqualTo(T0 + ms * MS);
      assertThat(timelines.lookup("t", 0, 10L * ms + 5, 1).commitNanos()).isEqualTo(T0 + ms * MS);
    }
    assertThat(timelines.lookup("t", 0, 10L * 20_000, 1).hasAppend()).isFalse();
    assertThat(timelines.rangesDroppedYoung()).isZero();
    // 10,001 ranges of each kind in rings doubled from 4: 16,384 slots of 84 bytes, not the
    // 65,536 that keeping all 40,000 would take.
    assertThat(timelines.estimatedBytes()).isLessThan(16_384L * 84 + 1_000);
  }

  @Test
  void aQuietPartitionKeepsItsFewRangesAsLongAsTheyAreWithinTheRetention() {
    ProbeTimelines timelines = new ProbeTimelines(10, 1 << 20, 1L << 30, 60 * SECOND);
    for (int s = 0; s < 100; s++) { // one range a second for 100 s
      long at = T0 + s * SECOND;
      timelines.append(leader, "t", 0, s, s, at, at);
    }
    assertThat(timelines.lookup("t", 0, 39, 1).hasAppend()).isTrue();
    assertThat(timelines.lookup("t", 0, 30, 1).hasAppend()).as("beyond 64 ranges").isFalse();
    assertThat(timelines.estimatedBytes()).isLessThan(64 * 84 + 1_000);
  }

  @Test
  void aRingThatWrappedGrowsAgainInOrderWhenTrafficRises() {
    ProbeTimelines timelines = new ProbeTimelines(10, 1 << 20, 1L << 30, 1 * SECOND);
    // A range every 100 ms for 5 s: the ring holds about ten and wraps.
    int offset = 0;
    for (int i = 0; i < 50; i++, offset++) {
      long at = T0 + i * 100 * MS;
      timelines.append(leader, "t", 0, offset, offset, at, at);
    }
    // Then one every millisecond for 1 s: it must grow from where it wrapped.
    for (int i = 0; i < 1_000; i++, offset++) {
      long at = T0 + 5 * SECOND + i * MS;
      timelines.append(leader, "t", 0, offset, offset, at, at);
    }
    // Every range of the last second (from 4.999 s) is found, with its own time.
    for (int o = 40; o < offset; o++) {
      long expected = o < 50 ? T0 + o * 100 * MS : T0 + 5 * SECOND + (o - 50) * MS;
      if (expected < T0 + 5 * SECOND + 999 * MS - SECOND) {
        continue;
      }
      assertThat(timelines.lookup("t", 0, o, 1).appendNanos())
          .as("offset %d", o)
          .isEqualTo(expected);
    }
    assertThat(timelines.rangesDroppedYoung()).isZero();
  }

  @Test
  void atTheByteBoundTheRingStopsGrowingAndCountsWhatItOverwritesTooYoung() {
    long budget = 256 * 1024;
    ProbeTimelines timelines = new ProbeTimelines(10, 1 << 20, budget, 60 * SECOND);
    busy(timelines, "t", 0, 20_000);

    assertThat(timelines.estimatedBytes()).isLessThanOrEqualTo(budget);
    assertThat(timelines.rangesDroppedYoung()).isPositive();
    assertThat(timelines.partitionsEvicted()).isZero();
    // The newest ranges are kept; the history is shorter than the retention.
    assertThat(timelines.lookup("t", 0, 10L * 19_999, 1).hasCommit()).isTrue();
    assertThat(timelines.lookup("t", 0, 10L * 1_000, 1).hasAppend()).isFalse();
  }

  @Test
  void aPartitionIdleLongerThanTheRetentionLeavesForOneThatMustGrow() {
    long budget = 280 * 1024;
    ProbeTimelines timelines = new ProbeTimelines(10, 1 << 20, budget, 2 * SECOND);
    busy(timelines, "idle", 0, 2_000); // then idle
    busy(timelines, "busy", 10_000, 13_000); // 8 s later, and needing the idle one's bytes

    assertThat(timelines.partitionsEvicted()).isEqualTo(1);
    assertThat(timelines.lookup("idle", 0, 5, 1).hasAppend()).isFalse();
    assertThat(timelines.rangesDroppedYoung()).isZero();
    assertThat(timelines.lookup("busy", 0, 10L * 11_000, 1).hasCommit()).isTrue();
  }

  @Test
  void aTermAtItsCeilingOverwritesRangesWithinTheRetentionAndCountsThem() {
    ProbeTimelines timelines = new ProbeTimelines(10, 1_000, 1L << 30, 60 * SECOND);
    busy(timelines, "t", 0, 3_000);

    assertThat(timelines.rangesDroppedYoung()).isEqualTo(2 * 2_000);
    assertThat(timelines.lookup("t", 0, 10L * 2_000, 1).hasCommit()).isTrue();
    assertThat(timelines.lookup("t", 0, 10L * 1_999, 1).hasAppend()).isFalse();
  }

  @Test
  void aRetentionMustBePositive() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ProbeTimelines(1, 1, 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
