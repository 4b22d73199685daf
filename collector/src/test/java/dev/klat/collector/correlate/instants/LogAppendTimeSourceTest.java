package dev.klat.collector.correlate.instants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.join.Spans;
import dev.klat.model.EstimationMethod;
import org.junit.jupiter.api.Test;

class LogAppendTimeSourceTest {
  private final LogAppendTimeSource source = new LogAppendTimeSource();

  @Test
  void theTimestampIsTheMiddleOfItsMillisecondOnTheLeadersClock() {
    long lMs = Spans.T0 / 1_000_000 + 4;
    ProducerSpan p = Spans.producer(Spans.key(1), Spans.PRODUCER_HOST, 0, 2, 10, lMs);
    BrokerInstant l =
        source.append(Sources.record(p, Spans.consumer(1, "g", 5, 12, 15)), Sources.nothing());
    assertThat(l.nanos()).isEqualTo(Spans.ms(4.5));
    assertThat(l.clock()).isEqualTo(BrokerInstant.Clock.BROKER);
    assertThat(l.brokerHost()).isEqualTo("broker-1");
    assertThat(l.resolutionNanos()).isEqualTo(1_000_000);
    assertThat(l.method()).isEqualTo(EstimationMethod.LOG_APPEND_TIMESTAMP);
    assertThat(l.readOnBrokerClock()).isTrue();
  }

  @Test
  void withoutATimestampTheWorseSourcesAnswerAndHIsNeverKnown() {
    BrokerLookup record =
        Sources.record(Spans.producer(1, 0, 2, 10), Spans.consumer(1, "g", 5, 12, 15));
    BrokerInstant worse = BrokerInstant.onProducer(7, "broker-1", EstimationMethod.UNKNOWN);
    assertThat(source.append(record, () -> worse)).isSameAs(worse);
    assertThat(source.commit(record, () -> worse)).isSameAs(worse);
  }
}
