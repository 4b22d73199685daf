package dev.klat.kafka.cluster;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KafkaClusterExtensionTest {

  /** Other classes rely on the shared broker's defaults: a class that needs others gets its own. */
  @Test
  void theSharedBrokerCannotBeConfigured() {
    KafkaClusterExtension shared = KafkaClusterExtension.sharedBroker();
    assertThatThrownBy(() -> shared.configure(spec -> spec.brokerHeapMb(512)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("brokers(1)");
  }
}
