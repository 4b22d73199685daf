package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.metrics.MetricsRegistry;
import org.junit.jupiter.api.Test;

class ConsumerTopicInstrumentsTest {

  private final MetricsRegistry registry = new MetricsRegistry();

  @Test
  void aTopicKeepsOneHistoryPerPartition() {
    ConsumerTopicInstruments orders = new ConsumerTopicInstruments("orders", "g", registry);

    assertThat(orders.history(3)).isNotNull().isSameAs(orders.history(3));
    assertThat(orders.history(0)).isNotNull().isNotSameAs(orders.history(3));
    assertThat(orders.history(-1)).isNull();
    assertThat(orders.lag(-1)).isNull();
  }

  @Test
  void instrumentsSharedByTopicsKeepNoHistory() {
    ConsumerTopicInstruments shared =
        ConsumerTopicInstruments.shared("_other", "g", registry, null, null);

    assertThat(shared.history(0)).isNull();
    assertThat(shared.lag(0)).isNotNull();
  }
}
