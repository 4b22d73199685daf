package dev.klat.agent.tail;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.metrics.LatencyHistogram;
import org.junit.jupiter.api.Test;

class TailThresholdsTest {

  private static final long MS = 1_000_000L;

  @Test
  void fixedThresholdsAreSetAtOnceAndAutoOnesOnceTheWindowHasRecords() {
    TailThresholds thresholds =
        new TailThresholds(
            true, ThresholdSpec.parse("payments=100ms"), ThresholdSpec.parse("250ms"));
    LatencyHistogram orders = new LatencyHistogram();
    TailThreshold fixed = thresholds.forProducer("payments", new LatencyHistogram());
    TailThreshold auto = thresholds.forProducer("orders", orders);
    TailThreshold consumer = thresholds.forConsumer("orders", new LatencyHistogram());

    assertThat(fixed.thresholdNanos()).isEqualTo(100 * MS);
    assertThat(fixed.isAuto()).isFalse();
    assertThat(consumer.thresholdNanos()).isEqualTo(250 * MS);
    assertThat(auto.isAuto()).isTrue();
    assertThat(auto.thresholdNanos()).isEqualTo(Long.MAX_VALUE);
    assertThat(thresholds.autoThresholdCount()).isEqualTo(1);

    thresholds.refresh(0);
    orders.recordNanos(20 * MS, 990);
    orders.recordNanos(900 * MS, 10);
    thresholds.refresh(RecentP99.SLOT_NANOS);
    assertThat(auto.thresholdNanos()).isBetween(20 * MS, 22 * MS);
    assertThat(fixed.thresholdNanos()).isEqualTo(100 * MS);
  }

  @Test
  void disabledFlagsNothing() {
    TailThresholds thresholds =
        new TailThresholds(false, ThresholdSpec.parse("1ms"), ThresholdSpec.ALL_AUTO);
    assertThat(thresholds.forProducer("t", new LatencyHistogram())).isSameAs(TailThreshold.NEVER);
    assertThat(thresholds.forConsumer("t", new LatencyHistogram()).thresholdNanos())
        .isEqualTo(Long.MAX_VALUE);
    assertThat(thresholds.enabled()).isFalse();
  }

  @Test
  void autoThresholdsAreBounded() {
    TailThresholds thresholds =
        new TailThresholds(true, ThresholdSpec.ALL_AUTO, ThresholdSpec.ALL_AUTO);
    for (int i = 0; i < TailThresholds.MAX_AUTO_THRESHOLDS; i++) {
      assertThat(thresholds.forProducer("t" + i, new LatencyHistogram()).isAuto()).isTrue();
    }
    assertThat(thresholds.forConsumer("one-more", new LatencyHistogram()))
        .isSameAs(TailThreshold.NEVER);
    assertThat(thresholds.refusedAutoThresholds()).isEqualTo(1);
  }
}
