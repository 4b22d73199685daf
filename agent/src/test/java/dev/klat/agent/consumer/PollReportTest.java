package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.metrics.Counter;
import dev.klat.agent.metrics.LatencyHistogram;
import org.junit.jupiter.api.Test;

class PollReportTest {

  @Test
  void aNegativeDurationIsCountedClampedAndNeverRecorded() {
    Counter clamped = new Counter();
    LatencyHistogram histogram = new LatencyHistogram();
    PollReport.record(clamped, histogram, -5L, 3);
    assertThat(clamped.value()).isEqualTo(3);
    assertThat(histogram.count()).isZero();
    PollReport.record(clamped, histogram, 2_000_000L, 4);
    assertThat(histogram.count()).isEqualTo(4);
    assertThat(clamped.value()).isEqualTo(3);
  }
}
