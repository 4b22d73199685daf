package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.BrokerProbeWire;
import org.junit.jupiter.api.Test;

class RequestTimesTest {

  @Test
  void bothTimesComeBackAsPacked() {
    long packed = RequestTimes.pack(312_000, 45);
    assertThat(RequestTimes.queueMicros(packed)).isEqualTo(312_000);
    assertThat(RequestTimes.localMicros(packed)).isEqualTo(45);
    assertThat(RequestTimes.queueMicros(RequestTimes.pack(0, 0))).isZero();
  }

  @Test
  void unknownStaysUnknownAndEitherHalfMayBe() {
    assertThat(RequestTimes.queueMicros(RequestTimes.UNKNOWN))
        .isEqualTo(BrokerProbeWire.UNKNOWN_MICROS);
    assertThat(RequestTimes.localMicros(RequestTimes.UNKNOWN))
        .isEqualTo(BrokerProbeWire.UNKNOWN_MICROS);
    long queueOnly = RequestTimes.pack(7, -1);
    assertThat(RequestTimes.queueMicros(queueOnly)).isEqualTo(7);
    assertThat(RequestTimes.localMicros(queueOnly)).isEqualTo(BrokerProbeWire.UNKNOWN_MICROS);
  }

  @Test
  void aTimeBeyondWhatAHalfHoldsReadsAsTheMostNotAsUnknown() {
    long packed = RequestTimes.pack(Long.MAX_VALUE, 1L << 40);
    assertThat(RequestTimes.queueMicros(packed)).isEqualTo(0xFFFF_FFFEL);
    assertThat(RequestTimes.localMicros(packed)).isEqualTo(0xFFFF_FFFEL);
  }
}
