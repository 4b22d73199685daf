package dev.klat.collector.correlate.instants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.join.Spans;
import dev.klat.model.EstimationMethod;
import org.junit.jupiter.api.Test;

class AckBoundTest {
  private final AckBound bound = new AckBound();
  private final BrokerInstant worse =
      BrokerInstant.onConsumer(0, null, EstimationMethod.FETCH_RESPONSE_BOUND);

  @Test
  void withAcksAllTheAckBeforeTheResponseIsTheCommit() {
    ProducerSpan p = Spans.acksAll(Spans.producer(1, 0, 2, 10));
    BrokerInstant h =
        bound.commit(Sources.record(p, Spans.consumer(1, "g", 5, 12, 15)), () -> worse);
    assertThat(h.nanos()).isEqualTo(Spans.ms(10));
    assertThat(h.clock()).isEqualTo(BrokerInstant.Clock.PRODUCER);
    assertThat(h.brokerHost()).isNull();
    assertThat(h.method()).isEqualTo(EstimationMethod.ACK_BOUND);
  }

  @Test
  void withAcksOneOrAnAckAfterTheResponseTheWorseBoundApplies() {
    ConsumerSpan c = Spans.consumer(1, "g", 5, 12, 15);
    assertThat(bound.commit(Sources.record(Spans.producer(1, 0, 2, 10), c), () -> worse))
        .isSameAs(worse);
    ProducerSpan late = Spans.acksAll(Spans.producer(1, 0, 2, 13));
    assertThat(bound.commit(Sources.record(late, c), () -> worse)).isSameAs(worse);
  }
}
