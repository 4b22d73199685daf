package dev.klat.collector.correlate.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.clock.ClockOffsets;
import dev.klat.collector.correlate.instants.BrokerInstant;
import dev.klat.model.EstimationMethod;
import org.junit.jupiter.api.Test;

class BrokerOffsetsTest {
  private final ClockOffsets offsets = new ClockOffsets(1_000_000_000L, 10);

  @Test
  void anInstantOnTheBrokersClockReportsTheEstimatedOffset() {
    offsets.brokerDomain("broker-1");
    offsets.bound("p", "broker-1", 30, 0);
    offsets.bound("broker-1", "p", -10, 0);
    BrokerOffsets broker = new BrokerOffsets(offsets, "p", 0);
    // A broker's clock moves only as far as its bounds need: [10, 30] puts it at 10.
    BrokerInstant l = BrokerInstant.onBroker(100, "broker-1", 0, EstimationMethod.BROKER_PROBE);
    assertThat(broker.offsetNanos("broker-1")).isEqualTo(10);
    ClockOffset applied = broker.applied(l, l);
    assertThat(applied.toHost()).isEqualTo("broker-1");
    assertThat(applied.offsetNanos()).isEqualTo(10);
  }

  @Test
  void instantsPlacedOnTheProducersClockReportAnExactZeroAndNoBrokerSourceNone() {
    BrokerOffsets broker = new BrokerOffsets(offsets, "p", 0);
    BrokerInstant estimated =
        BrokerInstant.onProducer(100, "broker-2", EstimationMethod.PRODUCE_REQUEST_METRICS);
    ClockOffset applied = broker.applied(estimated, estimated);
    assertThat(applied.toHost()).isEqualTo("broker-2");
    assertThat(applied.uncertaintyNanos()).isZero();
    BrokerInstant bound =
        BrokerInstant.onConsumer(100, null, EstimationMethod.FETCH_RESPONSE_BOUND);
    assertThat(broker.applied(null, bound)).isNull();
  }
}
