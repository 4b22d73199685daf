package dev.klat.collector.correlate.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.probe.ProbeTimelines.TermKey;
import org.junit.jupiter.api.Test;

/** Section 9: {@code V} from the probe's stable ranges, beside {@code L} and {@code H}. */
class ProbeStableOffsetsTest {

  private final TermKey term = new TermKey(1, 0xAAL, 5);

  private ProbeTimelines timelinesWith(boolean readsStable, long stableFrom) {
    ProbeTimelines timelines = new ProbeTimelines(10, 100);
    timelines.stableOffsets(term, "t", 0, readsStable, stableFrom);
    timelines.append(term, "t", 0, 90, 99, 500, 500);
    timelines.commit(term, "t", 0, 90, 99, 800, 800, -1);
    timelines.append(term, "t", 0, 100, 110, 1_000, 1_000);
    timelines.commit(term, "t", 0, 100, 110, 2_000, 2_000, -1);
    return timelines;
  }

  @Test
  void anOffsetTheLastStableOffsetPassedLaterHasThatV() {
    ProbeTimelines timelines = timelinesWith(true, 100);
    timelines.stable(term, "t", 0, 100, 110, 9_000, 9_000);

    ProbeTimelines.Instants at = timelines.lookup("t", 0, 105, 1);
    assertThat(at.commitNanos()).isEqualTo(2_000);
    assertThat(at.visibleNanos()).isEqualTo(9_000);
    assertThat(timelines.stableRanges()).isEqualTo(1);
    // Below where the stable ranges start, the last stable offset moved with the high watermark.
    assertThat(timelines.lookup("t", 0, 95, 1).visibleNanos()).isEqualTo(800);
  }

  @Test
  void aPartitionWithoutLagHasVEqualToH() {
    ProbeTimelines timelines = timelinesWith(true, -1);
    assertThat(timelines.lookup("t", 0, 105, 1).visibleNanos()).isEqualTo(2_000);
  }

  @Test
  void anOffsetAboveWhereStableRangesStartWithoutOneIsUnknownNotGuessed() {
    // The marker is not yet replicated, or the range was lost: V is unknown.
    ProbeTimelines timelines = timelinesWith(true, 100);
    assertThat(timelines.lookup("t", 0, 105, 1).hasVisible()).isFalse();
    assertThat(timelines.lookup("t", 0, 105, 1).hasCommit()).isTrue();
  }

  @Test
  void anOlderProbeThatDoesNotReadTheLastStableOffsetGivesNoV() {
    ProbeTimelines timelines = timelinesWith(false, -1);
    assertThat(timelines.lookup("t", 0, 105, 1).hasVisible()).isFalse();
  }

  @Test
  void stableRangesCountInTheBytes() {
    ProbeTimelines timelines = timelinesWith(true, 100);
    long before = timelines.estimatedBytes();
    timelines.stable(term, "t", 0, 100, 110, 9_000, 9_000);
    assertThat(timelines.estimatedBytes()).isGreaterThan(before);
  }
}
