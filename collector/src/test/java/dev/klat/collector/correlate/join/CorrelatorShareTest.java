package dev.klat.collector.correlate.join;

import static dev.klat.collector.correlate.join.Spans.ms;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.model.Breakdown;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Section 11 of the latency model: a share group's deliveries of one record join into one
 * breakdown, the counted delivery's, with what ended each earlier delivery and the redelivery part
 * of catch-up. The spans are shaped as the share consumer's agent sends them: one per delivery,
 * each with its {@code F}, {@code R}, {@code P}, its delivery count and, when the agent saw it, the
 * acknowledgement's time, type and error.
 */
class CorrelatorShareTest {
  private static final long WINDOW_NANOS = 10_000_000_000L;
  private static final String GROUP = "workers";

  private long nowNanos = 0;
  private final List<JoinedBreakdown> out = new ArrayList<>();

  private Correlator correlator(int maxPending, long maxPendingBytes) {
    return new Correlator(
        new Correlator.Settings(
            WINDOW_NANOS,
            maxPending,
            60_000_000_000L,
            100,
            maxPendingBytes,
            Correlator.Settings.DEFAULT_MAX_GROUPS_PER_RECORD,
            Correlator.Settings.DEFAULT_CLOCK_MAX_STEP_NANOS),
        () -> nowNanos,
        BrokerInstants.logAppendTime(),
        out::add);
  }

  private Correlator correlator() {
    return correlator(100, Correlator.Settings.DEFAULT_MAX_PENDING_BYTES);
  }

  // acks=all, so that the acknowledgement at 10 ms bounds H: the wait before the first delivery
  // and the redelivery are then apart.
  private static ProducerSpan producer(long offset) {
    return Spans.acksAll(Spans.producer(offset, 0, 2, 10));
  }

  /** One delivery's span: F, R and P in ms, on the consumer host's clock. */
  private static ConsumerSpan delivery(
      long offset,
      int count,
      long host,
      double f,
      double r,
      double p,
      String ackType,
      double ackMs,
      String error) {
    ConsumerSpan c = Spans.consumer(Spans.key(offset), GROUP, host, f, r, p);
    ConsumerSpan withId =
        new ConsumerSpan(
            c.key(),
            c.group(),
            c.traceIdHigh(),
            c.traceIdLow(),
            1000L * count + offset,
            c.parentSpanId(),
            c.instanceId(),
            c.fetchRequestNanos(),
            c.fetchResponseNanos(),
            c.pollNanos(),
            c.logAppendTimeMs(),
            c.clientId(),
            c.evidence(),
            c.responseReadPromptly(),
            c.uncommittedNanos());
    return withId.withShare(
        new ShareDelivery(
            count, ackType == null ? ShareDelivery.NOT_ACKNOWLEDGED : ms(ackMs), ackType, error));
  }

  private static ConsumerSpan accepted(long offset, int count, double f) {
    return delivery(offset, count, Spans.CONSUMER_HOST, f, f + 1, f + 3, "accept", f + 8, null);
  }

  // The first delivery, at 5/12/15 ms, whose agent gave up waiting for its acknowledgement.
  private static ConsumerSpan timedOut(long offset) {
    return delivery(offset, 1, Spans.CONSUMER_HOST, 5, 12, 15, null, 0, null);
  }

  private void windowEnds(Correlator c) {
    nowNanos += WINDOW_NANOS + 1;
    c.expire();
  }

  @Test
  void aRecordAcceptedAtItsFirstDeliveryJoinsAtOnceWithoutRedelivery() {
    Correlator c = correlator();
    c.offerProducer(producer(1));
    c.offerConsumer(accepted(1, 1, 5));

    assertThat(out).hasSize(1);
    ShareRecord share = out.get(0).share();
    assertThat(out.get(0).group()).isEqualTo(GROUP);
    assertThat(share.deliveryCount()).isEqualTo(1);
    assertThat(share.accepted()).isTrue();
    assertThat(share.redeliveryNanos()).isZero();
    assertThat(share.earlierEnds()).isEmpty();
    assertThat(share.deliveries())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.counted()).isTrue();
              assertThat(d.end()).isEqualTo(ShareEnd.ACCEPT);
            });
    assertThat(c.stats().share().records()).isEqualTo(1);
    assertThat(c.stats().share().redeliveredRecords()).isZero();
  }

  @Test
  void aLockTimeoutWithTheFirstDeliverySeenGivesTheRedeliveryPartInsideCatchUp() {
    Correlator c = correlator();
    c.offerProducer(producer(1));
    c.offerConsumer(timedOut(1));
    assertThat(out).as("waits for the counted delivery").isEmpty();
    c.offerConsumer(accepted(1, 2, 2012));

    assertThat(out).hasSize(1);
    JoinedBreakdown joined = out.get(0);
    ShareRecord share = joined.share();
    Breakdown b = joined.breakdown();
    assertThat(share.deliveryCount()).isEqualTo(2);
    assertThat(share.earlierEnds()).isEqualTo(Map.of(ShareEnd.LOCK_TIMEOUT, 1));
    // H at the acknowledgement, 10 ms; first acquired at R1 = 12; counted fetch F2 = 2012.
    assertThat(share.redeliveryNanos()).isEqualTo(2000_000_000L);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(2002_000_000L + 2_000_000L);
    assertThat(b.nanos(Segment.CATCH_UP) - share.redeliveryNanos()).isEqualTo(4_000_000L);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
    assertThat(b.e2eNanos()).isEqualTo(2015_000_000L);
    assertThat(share.deliveries())
        .extracting(ShareRecord.Delivery::count, ShareRecord.Delivery::end)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, ShareEnd.LOCK_TIMEOUT),
            org.assertj.core.groups.Tuple.tuple(2, ShareEnd.ACCEPT));
    assertThat(c.stats().share().redeliveredRecords()).isEqualTo(1);
  }

  @Test
  void aLockTimeoutWithoutTheFirstDeliverysSpanCountsItUnknownAndLeavesThePartUnknown() {
    Correlator c = correlator();
    c.offerProducer(producer(1));
    c.offerConsumer(accepted(1, 2, 2012));
    assertThat(out).as("delivery 1 may still come: waits for the window").isEmpty();

    windowEnds(c);

    assertThat(out).hasSize(1);
    ShareRecord share = out.get(0).share();
    assertThat(share.deliveryCount()).isEqualTo(2);
    assertThat(share.accepted()).isTrue();
    assertThat(share.earlierEnds()).isEqualTo(Map.of(ShareEnd.UNKNOWN, 1));
    assertThat(share.redeliveryKnown()).isFalse();
    assertThat(share.redeliveryNanos()).isEqualTo(-1);
    assertThat(c.stats().unjoinedProducerSpans()).isZero();
    assertThat(c.stats().unjoinedConsumerSpans()).isZero();
  }

  @Test
  void anAcknowledgementRefusedForALostLockIsALockTimeout() {
    Correlator c = correlator();
    c.offerProducer(producer(1));
    c.offerConsumer(
        delivery(
            1, 1, Spans.CONSUMER_HOST, 5, 12, 15, "accept", 40_000, "InvalidRecordStateException"));
    c.offerConsumer(accepted(1, 2, 30_012));

    assertThat(out.get(0).share().earlierEnds()).isEqualTo(Map.of(ShareEnd.LOCK_TIMEOUT, 1));
  }

  @Test
  void aReleasedDeliveryIsNamedAndTheNextOneCounts() {
    Correlator c = correlator();
    c.offerProducer(producer(1));
    c.offerConsumer(delivery(1, 1, Spans.CONSUMER_HOST, 5, 12, 15, "release", 16, null));
    c.offerConsumer(accepted(1, 2, 20));

    ShareRecord share = out.get(0).share();
    assertThat(share.earlierEnds()).isEqualTo(Map.of(ShareEnd.RELEASE, 1));
    assertThat(share.redeliveryNanos()).isEqualTo(8_000_000L);
  }

  @Test
  void aRejectedRecordIsCountedAtItsLastDeliveryWhenTheWindowEnds() {
    Correlator c = correlator();
    c.offerProducer(producer(1));
    c.offerConsumer(delivery(1, 1, Spans.CONSUMER_HOST, 5, 12, 15, "release", 16, null));
    c.offerConsumer(delivery(1, 2, Spans.CONSUMER_HOST, 20, 21, 23, "reject", 24, null));
    assertThat(out).as("no accepted delivery: waits for the window").isEmpty();

    windowEnds(c);

    ShareRecord share = out.get(0).share();
    assertThat(share.accepted()).isFalse();
    assertThat(share.deliveryCount()).isEqualTo(2);
    assertThat(share.earlierEnds()).isEqualTo(Map.of(ShareEnd.RELEASE, 1));
    assertThat(share.deliveries().get(1).end()).isEqualTo(ShareEnd.REJECT);
    assertThat(out.get(0).breakdown().e2eNanos()).isEqualTo(23_000_000L);
  }

  @Test
  void deliveriesAndTheProducerSpanInAnyOrderGiveTheSameBreakdown() {
    Correlator inOrder = correlator();
    inOrder.offerProducer(producer(1));
    inOrder.offerConsumer(timedOut(1));
    inOrder.offerConsumer(accepted(1, 2, 2012));
    JoinedBreakdown expected = out.remove(0);

    Correlator reversed = correlator();
    reversed.offerConsumer(accepted(1, 2, 2012));
    reversed.offerConsumer(timedOut(1));
    assertThat(out).as("complete, but the producer span is missing").isEmpty();
    reversed.offerProducer(producer(1));

    assertThat(out).hasSize(1);
    assertThat(out.get(0).share()).isEqualTo(expected.share());
    assertThat(out.get(0).breakdown().e2eNanos()).isEqualTo(expected.breakdown().e2eNanos());
  }

  @Test
  void aDeliveryRepeatedOrAfterTheCountedOneJoinedIsNotJoinedAgain() {
    Correlator c = correlator();
    c.offerProducer(producer(1));
    c.offerConsumer(timedOut(1));
    c.offerConsumer(timedOut(1));
    c.offerConsumer(accepted(1, 2, 2012));
    c.offerConsumer(accepted(1, 2, 2012));

    assertThat(out).hasSize(1);
    assertThat(c.stats().share().duplicates()).isEqualTo(1);
    assertThat(c.stats().share().late()).isEqualTo(1);
    assertThat(c.stats().share().deliveries()).isEqualTo(4);
  }

  @Test
  void aRecordDeliveredToManyConsumersHoldsAtMostItsBoundOfDeliveries() {
    Correlator c = correlator();
    c.offerProducer(producer(1));
    for (int count = 1; count <= SharePending.MAX_DELIVERIES + 5; count++) {
      c.offerConsumer(
          delivery(
              1,
              count,
              Spans.CONSUMER_HOST,
              count * 10,
              count * 10 + 1,
              count * 10 + 2,
              "release",
              count * 10 + 3,
              null));
    }
    windowEnds(c);

    assertThat(c.stats().share().refused()).isEqualTo(5);
    ShareRecord share = out.get(0).share();
    assertThat(share.deliveries()).hasSize(SharePending.MAX_DELIVERIES);
    assertThat(share.deliveryCount()).isEqualTo(SharePending.MAX_DELIVERIES);
  }

  @Test
  void recordsEvictedBeforeTheirCountedDeliveryAreCountedInCountAndInBytes() {
    Correlator byCount = correlator(2, Correlator.Settings.DEFAULT_MAX_PENDING_BYTES);
    for (long offset = 1; offset <= 5; offset++) {
      byCount.offerConsumer(timedOut(offset));
    }
    assertThat(byCount.stats().share().evicted()).isEqualTo(3);
    assertThat(byCount.stats().droppedSpans()).isEqualTo(3);
    assertThat(byCount.pendingRecords()).isEqualTo(2);

    // Each record with one delivery is a little over 600 estimated bytes: two fit in 1,500.
    Correlator byBytes = correlator(100, 1_500);
    for (long offset = 1; offset <= 5; offset++) {
      byBytes.offerConsumer(timedOut(offset));
    }
    assertThat(byBytes.stats().share().evicted()).isEqualTo(3);
    assertThat(byBytes.stats().evictedForBytes()).isEqualTo(3);
    assertThat(byBytes.stats().pendingBytes()).isLessThanOrEqualTo(1_500);
  }

  @Test
  void aDeliveryOnAnotherConsumerWithoutARelatedClockLeavesThePartUnknown() {
    Correlator c = correlator();
    c.offerProducer(producer(1));
    c.offerConsumer(delivery(1, 1, 0x3333L, 5, 12, 15, null, 0, null));
    c.offerConsumer(accepted(1, 2, 2012));

    ShareRecord share = out.get(0).share();
    assertThat(share.earlierEnds()).isEqualTo(Map.of(ShareEnd.LOCK_TIMEOUT, 1));
    assertThat(share.redeliveryKnown()).isFalse();
    assertThat(share.deliveries().get(0).aligned()).isFalse();
  }
}
