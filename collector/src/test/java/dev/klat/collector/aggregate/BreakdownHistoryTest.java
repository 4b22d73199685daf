package dev.klat.collector.aggregate;

import static dev.klat.collector.aggregate.RecentBreakdownsTest.breakdown;
import static dev.klat.collector.aggregate.RecentBreakdownsTest.withLogAppendTime;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BreakdownHistoryTest {
  private static final long INTERVAL_NANOS = 10_000_000_000L;
  private static final long MS = 1_000_000L;
  // The wall clock at the end of interval k is EPOCH_MS + k * 10 s.
  private static final long EPOCH_MS = 1_800_000_000_000L;

  private final RecentBreakdowns recent = new RecentBreakdowns(10_000);

  /** Adds {@code records} breakdowns of a topic joined within interval {@code k} (1-based). */
  private void joined(int k, String topic, int records, long e2eNanos) {
    for (int i = 0; i < records; i++) {
      recent.add(breakdown(topic, MS, e2eNanos), (k - 1) * INTERVAL_NANOS + 1 + i);
    }
  }

  private static void sample(BreakdownHistory history, int k) {
    history.sample(k * INTERVAL_NANOS, EPOCH_MS + k * 10_000L);
  }

  private static List<Long> ends(List<BreakdownHistory.Point> points) {
    return points.stream().map(p -> (p.endEpochMillis() - EPOCH_MS) / 10_000L).toList();
  }

  @Test
  void eachRingWrapsAndKeepsTheNewestPointsOldestFirst() {
    BreakdownHistory history = new BreakdownHistory(recent, INTERVAL_NANOS, 35_000_000_000L, 5);
    assertThat(history.pointsPerPair()).isEqualTo(3);
    for (int k = 1; k <= 5; k++) {
      joined(k, "orders", k, k * MS);
      sample(history, k);
    }

    List<BreakdownHistory.Point> points = history.points("orders", "g", Long.MIN_VALUE);
    assertThat(ends(points)).containsExactly(3L, 4L, 5L);
    // Each point counts its own interval only, not the ones before it.
    assertThat(points).extracting(BreakdownHistory.Point::count).containsExactly(3, 4, 5);
    assertThat(points)
        .extracting(BreakdownHistory.Point::p50Nanos)
        .containsExactly(3 * MS, 4 * MS, 5 * MS);
    assertThat(ends(history.points(null, null, Long.MIN_VALUE))).containsExactly(3L, 4L, 5L);
  }

  @Test
  void theLeastRecentlyActivePairLeavesFirstAndItsRingStartsEmptyForTheNext() {
    BreakdownHistory history = new BreakdownHistory(recent, INTERVAL_NANOS, 60_000_000_000L, 2);
    joined(1, "a", 2, 5 * MS);
    joined(1, "b", 1, 5 * MS);
    sample(history, 1);
    joined(2, "a", 1, 5 * MS);
    sample(history, 2);
    joined(3, "c", 1, 5 * MS);
    sample(history, 3);

    // b was last active in interval 1, a in interval 2: b made room for c.
    assertThat(history.points("b", "g", Long.MIN_VALUE)).isEmpty();
    assertThat(ends(history.points("a", "g", Long.MIN_VALUE))).containsExactly(1L, 2L);
    assertThat(ends(history.points("c", "g", Long.MIN_VALUE))).containsExactly(3L);
    // All of them together are never evicted.
    assertThat(ends(history.points(null, null, Long.MIN_VALUE))).containsExactly(1L, 2L, 3L);

    joined(4, "b", 1, 5 * MS);
    sample(history, 4);
    assertThat(history.points("a", "g", Long.MIN_VALUE)).isEmpty();
    // b takes over a's ring, without a's points and without its own from before.
    assertThat(ends(history.points("b", "g", Long.MIN_VALUE))).containsExactly(4L);
  }

  @Test
  void onlyTheBusiestPairsOfAnIntervalGetPoints() {
    BreakdownHistory history = new BreakdownHistory(recent, INTERVAL_NANOS, 60_000_000_000L, 2);
    joined(1, "busy", 3, 5 * MS);
    joined(1, "middle", 2, 5 * MS);
    joined(1, "quiet", 1, 5 * MS);
    sample(history, 1);

    assertThat(history.points("busy", "g", Long.MIN_VALUE)).hasSize(1);
    assertThat(history.points("middle", "g", Long.MIN_VALUE)).hasSize(1);
    assertThat(history.points("quiet", "g", Long.MIN_VALUE)).isEmpty();
    assertThat(history.points(null, null, Long.MIN_VALUE).get(0).count()).isEqualTo(6);
  }

  @Test
  void aPointCarriesTheFiguresOfItsIntervalsSummary() {
    BreakdownHistory history = new BreakdownHistory(recent, INTERVAL_NANOS, 60_000_000_000L, 5);
    for (int ms = 1; ms <= 200; ms++) {
      recent.add(breakdown("orders", (ms > 198 ? 50 : 1) * MS, ms * MS), 1 + ms);
    }
    recent.add(withLogAppendTime("orders"), 300);
    recent.add(breakdown("other", MS, 900 * MS), 400);
    sample(history, 1);

    RecentBreakdowns.Summary orders =
        recent.summarise("orders", "g", INTERVAL_NANOS, INTERVAL_NANOS);
    BreakdownHistory.Point point = history.points("orders", "g", Long.MIN_VALUE).get(0);
    assertThat(point)
        .isEqualTo(
            new BreakdownHistory.Point(
                EPOCH_MS + 10_000L,
                orders.count(),
                orders.p50Nanos(),
                orders.p99Nanos(),
                orders.p999Nanos(),
                orders.tailMeanNanos()));
    // The same figures, and not trivially: 201 records, so p99 is the 199th value, 198 ms; the
    // tail is 198 to 200 ms, produce 1, 50 and 50 ms.
    assertThat(point.count()).isEqualTo(201);
    assertThat(point.p99Nanos()).isEqualTo(198 * MS);
    assertThat(point.tailMeanNanos())
        .containsEntry("produce", 101e6 / 3)
        .containsEntry("publish", null);
    assertThat(point.tailMeanNanos().keySet())
        .containsExactlyElementsOf(orders.tailMeanNanos().keySet());
    RecentBreakdowns.Summary all = recent.summarise(null, null, INTERVAL_NANOS, INTERVAL_NANOS);
    BreakdownHistory.Point total = history.points(null, null, Long.MIN_VALUE).get(0);
    assertThat(total.count()).isEqualTo(202);
    assertThat(total.p999Nanos()).isEqualTo(all.p999Nanos()).isEqualTo(900 * MS);
    assertThat(total.tailMeanNanos()).isEqualTo(all.tailMeanNanos());
  }

  @Test
  void anIntervalWithoutBreakdownsLeavesAGapAndSinceSkipsOlderPoints() {
    BreakdownHistory history = new BreakdownHistory(recent, INTERVAL_NANOS, 60_000_000_000L, 5);
    joined(1, "orders", 1, 5 * MS);
    sample(history, 1);
    sample(history, 2);
    joined(3, "orders", 1, 5 * MS);
    sample(history, 3);

    assertThat(ends(history.points("orders", "g", Long.MIN_VALUE))).containsExactly(1L, 3L);
    assertThat(ends(history.points(null, null, EPOCH_MS + 10_000L))).containsExactly(3L);
    assertThat(history.points("orders", "other-group", Long.MIN_VALUE)).isEmpty();
  }

  @Test
  void theRetentionMustHoldOneInterval() {
    assertThatThrownBy(() -> new BreakdownHistory(recent, INTERVAL_NANOS, INTERVAL_NANOS - 1, 5))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
