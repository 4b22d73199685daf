package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.ManualTime;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TestSpans;
import dev.klat.agent.metrics.Counter;
import dev.klat.model.SpanAttributes;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A share consumer's sampled deliveries waiting for their acknowledgement's outcome. */
class ShareDeliveriesTest {

  private final ManualTime time = new ManualTime();
  private final List<SpanRecord> exported = new ArrayList<>();
  private final Map<ShareDeliveries.GiveUp, Counter> counters =
      new EnumMap<>(ShareDeliveries.GiveUp.class);
  private final ShareDeliveries deliveries =
      new ShareDeliveries(
          time, exported::add, reason -> counters.computeIfAbsent(reason, r -> new Counter()));

  @Test
  void theBrokersAnswerSendsTheSpanWithTheAcknowledgementAndItsError() {
    ShareDeliveries.Delivery delivery = deliver(7L);
    deliveries.acknowledged("t", 0, 7L, "accept", 1_000L);

    deliveries.answered(delivery, "accept", "InvalidRecordStateException");
    deliveries.answered(delivery, "accept", null);

    assertThat(exported).containsExactly(delivery.span);
    assertThat(TestSpans.longValue(delivery.span, SpanAttributes.SHARE_ACKNOWLEDGE_TIME))
        .isEqualTo(1_000L);
    assertThat(TestSpans.stringValue(delivery.span, SpanAttributes.SHARE_ACKNOWLEDGE_TYPE))
        .isEqualTo("accept");
    assertThat(TestSpans.stringValue(delivery.span, SpanAttributes.SHARE_ACKNOWLEDGE_ERROR))
        .isEqualTo("InvalidRecordStateException");
    assertThat(deliveries.isEmpty()).isTrue();
  }

  @Test
  void aRenewalTheBrokerTookKeepsTheDeliveryUntilItsFinalAcknowledgement() {
    ShareDeliveries.Delivery delivery = deliver(3L);
    deliveries.acknowledged("t", 0, 3L, "renew", 1_000L);
    deliveries.answered(delivery, "renew", null);
    assertThat(exported).isEmpty();

    deliveries.acknowledged("t", 0, 3L, "reject", 2_000L);
    // A renewal after a final acknowledgement does not replace it.
    deliveries.acknowledged("t", 0, 3L, "renew", 3_000L);
    deliveries.answered(delivery, "reject", null);

    assertThat(exported).containsExactly(delivery.span);
    assertThat(TestSpans.longValue(delivery.span, SpanAttributes.SHARE_ACKNOWLEDGE_TIME))
        .isEqualTo(2_000L);
    assertThat(TestSpans.stringValue(delivery.span, SpanAttributes.SHARE_ACKNOWLEDGE_TYPE))
        .isEqualTo("reject");
  }

  @Test
  void aDeliveryLeftRenewingLeavesAsRenewWhenTheConsumerCloses() {
    ShareDeliveries.Delivery delivery = deliver(3L);
    deliveries.acknowledged("t", 0, 3L, "renew", 1_000L);
    deliveries.answered(delivery, "renew", null);

    deliveries.closeAll();

    assertThat(exported).containsExactly(delivery.span);
    assertThat(TestSpans.stringValue(delivery.span, SpanAttributes.SHARE_ACKNOWLEDGE_TYPE))
        .isEqualTo("renew");
    assertThat(TestSpans.stringValue(delivery.span, SpanAttributes.SHARE_ACKNOWLEDGE_ERROR))
        .isNull();
    assertThat(counters.get(ShareDeliveries.GiveUp.CLOSED).value()).isEqualTo(1);
  }

  @Test
  void theSameRecordDeliveredAgainEndsTheEarlierDeliveryWithoutAnOutcome() {
    ShareDeliveries.Delivery first = deliver(9L);
    ShareDeliveries.Delivery second = deliver(9L);

    assertThat(exported).containsExactly(first.span);
    assertThat(TestSpans.stringValue(first.span, SpanAttributes.SHARE_ACKNOWLEDGE_TYPE)).isNull();
    assertThat(counters.get(ShareDeliveries.GiveUp.REDELIVERED).value()).isEqualTo(1);
    assertThat(deliveries.find("t", 0, 9L)).isSameAs(second);
  }

  @Test
  void implicitAcknowledgementAcceptsOnlyWhatWasNotAcknowledged() {
    ShareDeliveries.Delivery released = deliver(1L);
    ShareDeliveries.Delivery taken = deliver(2L);
    deliveries.acknowledged("t", 0, 1L, "release", 1_000L);

    deliveries.acceptAllUnacknowledged(2_000L);

    assertThat(released.acknowledgedType()).isEqualTo("release");
    assertThat(taken.acknowledgedType()).isEqualTo("accept");
    assertThat(deliveries.waitingOf("t", 0)).containsExactlyInAnyOrder(released, taken);
    assertThat(deliveries.waitingOf("t", 1)).isEmpty();
    assertThat(deliveries.waitingOf("u", 0)).isEmpty();
  }

  @Test
  void aDeliveryWithoutAnswerLeavesAfterTheTimeoutAtTheNextSweep() {
    ShareDeliveries.Delivery delivery = deliver(4L);
    time.advanceMillis(59_000);
    deliveries.sweep();
    assertThat(exported).isEmpty();

    time.advanceMillis(2_000);
    deliveries.sweep();

    assertThat(exported).containsExactly(delivery.span);
    assertThat(counters.get(ShareDeliveries.GiveUp.TIMEOUT).value()).isEqualTo(1);
  }

  @Test
  void beyondTheCapANewDeliveryLeavesAtOnce() {
    for (long offset = 0; offset < ShareDeliveries.MAX_PENDING; offset++) {
      deliver(offset);
    }
    assertThat(exported).isEmpty();

    ShareDeliveries.Delivery extra = deliver(ShareDeliveries.MAX_PENDING);

    assertThat(exported).containsExactly(extra.span);
    assertThat(deliveries.size()).isEqualTo(ShareDeliveries.MAX_PENDING);
    assertThat(counters.get(ShareDeliveries.GiveUp.OVERFLOW).value()).isEqualTo(1);
  }

  private ShareDeliveries.Delivery deliver(long offset) {
    ShareDeliveries.Delivery delivery =
        new ShareDeliveries.Delivery("t", 0, offset, new SpanRecord(8, 4), time.nanoTime());
    deliveries.add(delivery);
    return delivery;
  }
}
