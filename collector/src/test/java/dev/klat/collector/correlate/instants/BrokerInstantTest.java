package dev.klat.collector.correlate.instants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.EstimationMethod;
import org.junit.jupiter.api.Test;

class BrokerInstantTest {

  @Test
  void onlyReadingsOfTheBrokersClockBoundItsOffset() {
    assertThat(
            BrokerInstant.onBroker(1, "broker-1", 0, EstimationMethod.BROKER_PROBE)
                .readOnBrokerClock())
        .isTrue();
    BrokerInstant l =
        BrokerInstant.onBroker(1, "broker-1", 1_000_000, EstimationMethod.LOG_APPEND_TIMESTAMP);
    assertThat(l.readOnBrokerClock()).isTrue();
    // H placed from L by an estimate: on the broker's clock, but its error would become a bound.
    BrokerInstant h = l.shifted(5, EstimationMethod.FOLLOWER_FETCH_METRICS);
    assertThat(h.nanos()).isEqualTo(6);
    assertThat(h.clock()).isEqualTo(BrokerInstant.Clock.BROKER);
    assertThat(h.readOnBrokerClock()).isFalse();
    assertThat(
            BrokerInstant.onProducer(1, "broker-1", EstimationMethod.PRODUCE_REQUEST_METRICS)
                .readOnBrokerClock())
        .isFalse();
  }
}
