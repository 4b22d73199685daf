package dev.klat.collector.correlate.join;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Placing instrumentations' producer spans without an offset (section 10 of the latency model). */
class ProducerPlacementsTest {
  private static final long WINDOW = 1_000;
  private static final RecordKey ORDERS_6 = new RecordKey("orders", 0, 6);

  private static OtelRecordSpan keyless(long spanId) {
    return OtelSpans.producer(null, 1, 2, spanId, 0, Double.NaN);
  }

  @Test
  void aWaitingSpanIsPlacedOnceByTheFirstConsumerSpanThatNamesIt() {
    ProducerPlacements p = new ProducerPlacements(WINDOW, 10, 1 << 20);
    assertThat(p.hold(keyless(11), 42, 0)).isTrue();
    assertThat(p.hold(keyless(11), 43, 1)).as("a duplicate").isFalse();

    ProducerPlacements.Held held = p.take(1, 2, 11, ORDERS_6, 5);
    assertThat(held).isNotNull();
    assertThat(held.source()).isEqualTo(42);
    assertThat(p.placedAfterWaiting()).isEqualTo(1);
    assertThat(p.held()).isZero();
    // Another group's span names it again: already placed, nothing to hand out.
    assertThat(p.take(1, 2, 11, ORDERS_6, 6)).isNull();
    // The span arriving again now finds its record.
    assertThat(p.placed(keyless(11))).isEqualTo(ORDERS_6);
  }

  @Test
  void aSpanArrivingAfterItsConsumerSpanFindsItsRecordUntilTheWindowEnds() {
    ProducerPlacements p = new ProducerPlacements(WINDOW, 10, 1 << 20);
    assertThat(p.take(1, 2, 11, ORDERS_6, 0)).isNull();
    assertThat(p.placed(keyless(11))).as("taking remembers nothing").isNull();
    p.remember(1, 2, 11, ORDERS_6, 0);
    p.remember(1, 2, 11, new RecordKey("orders", 0, 7), 0);
    assertThat(p.placed(keyless(11))).as("the first record named").isEqualTo(ORDERS_6);
    assertThat(p.placed(keyless(12))).isNull();

    p.expire(WINDOW);
    assertThat(p.placed(keyless(11))).isNull();
    assertThat(p.estimatedBytes()).isZero();
    assertThat(p.unplaced()).as("a context is not a span").isZero();
  }

  @Test
  void aSpanNoConsumerNamesIsUnplacedAtItsWindowsEnd() {
    ProducerPlacements p = new ProducerPlacements(WINDOW, 10, 1 << 20);
    p.hold(keyless(11), 1, 0);
    p.expire(WINDOW - 1);
    assertThat(p.held()).isEqualTo(1);
    p.expire(WINDOW);
    assertThat(p.held()).isZero();
    assertThat(p.unplaced()).isEqualTo(1);
    assertThat(p.estimatedBytes()).isZero();
  }

  @Test
  void aConsumerSpanOfAnotherTopicDoesNotPlaceAWaitingSpan() {
    ProducerPlacements p = new ProducerPlacements(WINDOW, 10, 1 << 20);
    p.hold(keyless(11), 1, 0);
    assertThat(p.take(1, 2, 11, new RecordKey("payments", 0, 6), 1)).isNull();
    assertThat(p.topicMismatches()).isEqualTo(1);
    assertThat(p.held()).isEqualTo(1);
  }

  @Test
  void theOldestEntriesLeaveOverTheEntryAndByteLimits() {
    ProducerPlacements byCount = new ProducerPlacements(WINDOW, 2, 1 << 20);
    byCount.remember(9, 9, 1, ORDERS_6, 0);
    byCount.hold(keyless(11), 1, 1);
    byCount.hold(keyless(12), 1, 2);
    assertThat(byCount.refsEvicted()).isEqualTo(1);
    byCount.hold(keyless(13), 1, 3);
    assertThat(byCount.evicted()).isEqualTo(1);
    assertThat(byCount.held()).isEqualTo(2);
    assertThat(byCount.take(1, 2, 11, ORDERS_6, 4)).as("evicted").isNull();

    long one = ProducerPlacements.HELD_BYTES;
    ProducerPlacements byBytes = new ProducerPlacements(WINDOW, 100, 3 * one);
    for (int i = 0; i < 10; i++) {
      byBytes.hold(keyless(20 + i), 1, i);
    }
    assertThat(byBytes.estimatedBytes()).isLessThanOrEqualTo(3 * one);
    assertThat(byBytes.evicted()).isEqualTo(10 - byBytes.held());
    assertThat(byBytes.held()).isBetween(1, 2);
  }
}
