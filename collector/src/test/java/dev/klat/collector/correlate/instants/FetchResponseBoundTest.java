package dev.klat.collector.correlate.instants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.Spans;
import dev.klat.model.EstimationMethod;
import org.junit.jupiter.api.Test;

class FetchResponseBoundTest {

  @Test
  void theCommitIsTheFetchResponseOnTheConsumersClockAndLIsNeverKnown() {
    BrokerLookup record =
        Sources.record(Spans.producer(1, 0, 2, 10), Spans.consumer(1, "g", 5, 12, 15));
    FetchResponseBound bound = new FetchResponseBound();
    BrokerInstant h = bound.commit(record, Sources.nothing());
    assertThat(h.nanos()).isEqualTo(Spans.ms(12));
    assertThat(h.clock()).isEqualTo(BrokerInstant.Clock.CONSUMER);
    assertThat(h.method()).isEqualTo(EstimationMethod.FETCH_RESPONSE_BOUND);
    assertThat(bound.append(record, Sources.nothing())).isNull();
  }
}
