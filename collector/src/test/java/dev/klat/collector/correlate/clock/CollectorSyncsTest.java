package dev.klat.collector.correlate.clock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CollectorSyncsTest {
  private static final long WINDOW = 1_000;

  private final ClockOffsets offsets = new ClockOffsets(WINDOW, 10);
  private final CollectorSyncs syncs = new CollectorSyncs(10, WINDOW);

  @Test
  void twoDomainsThatMeasuredThemselvesAreBoundedFromBothSides() {
    // clock(col) - clock(p) = 100 +- 5, clock(col) - clock(broker-1) = 40 +- 3: the broker runs
    // 60 ahead of the producer, within 8.
    syncs.keep("p", 100, 5, 0);
    syncs.keep("broker-1", 40, 3, 0);
    syncs.bound(offsets, "p", "broker-1", 10);
    ClockOffset o = offsets.estimate("p", "broker-1", 10);
    assertThat(o.lowerNanos()).isEqualTo(52);
    assertThat(o.upperNanos()).isEqualTo(68);
  }

  @Test
  void aMeasurementOlderThanTheWindowOrImplausibleBoundsNothing() {
    syncs.keep("p", 100, 5, 0);
    syncs.keep("c", 40, 3, 0);
    syncs.keep("x", 0, -1, 0);
    syncs.keep("y", CollectorSyncs.MAX_SYNC_NANOS + 1, 1, 0);
    syncs.bound(offsets, "p", "c", WINDOW + 1);
    syncs.bound(offsets, "p", "x", 0);
    syncs.bound(offsets, "p", "y", 0);
    assertThat(offsets.pairCount()).isZero();
  }

  @Test
  void beyondItsDomainsTheLeastRecentlyMeasuredLeaves() {
    CollectorSyncs small = new CollectorSyncs(2, WINDOW);
    small.keep("a", 1, 1, 0);
    small.keep("b", 1, 1, 0);
    small.keep("a", 1, 1, 0); // measured again: b is now the least recent
    small.keep("c", 1, 1, 0);
    small.bound(offsets, "a", "b", 0);
    assertThat(offsets.pairCount()).isZero();
    small.bound(offsets, "a", "c", 0);
    assertThat(offsets.pairCount()).isEqualTo(2);
  }

  @Test
  void aRecordsBoundIsAllowedUnlessItFallsBelowTheMeasurementsByMoreThanTheStep() {
    syncs.keep("p", 0, 200_000, 0);
    syncs.keep("c", 0, 200_000, 0);
    long second = 1_000_000_000L;
    assertThat(syncs.allows("p", "c", -400_000 - second, 0, second)).isTrue();
    assertThat(syncs.allows("p", "c", -400_001 - second, 0, second)).isFalse();
    assertThat(syncs.allows("p", "unknown", -3_600 * second, 0, second)).isTrue();
    assertThat(syncs.allows("p", "c", -3_600 * second, WINDOW + 1, second))
        .as("stale measurements allow anything")
        .isTrue();
  }
}
