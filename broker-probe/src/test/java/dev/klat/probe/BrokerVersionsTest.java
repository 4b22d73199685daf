package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BrokerVersionsTest {

  @Test
  void threeSixToFourFourAreSupported() {
    assertThat(BrokerVersions.supported("3.6.0")).isTrue();
    assertThat(BrokerVersions.supported("3.9.2")).isTrue();
    assertThat(BrokerVersions.supported("4.0.2")).isTrue();
    assertThat(BrokerVersions.supported("4.4.0")).isTrue();
    assertThat(BrokerVersions.supported("4.4.1-SNAPSHOT")).isTrue();
  }

  @Test
  void othersAreNot() {
    assertThat(BrokerVersions.supported("3.5.2")).isFalse();
    assertThat(BrokerVersions.supported("4.5.0")).isFalse();
    assertThat(BrokerVersions.supported("2.8.2")).isFalse();
    assertThat(BrokerVersions.supported("unknown")).isFalse();
    assertThat(BrokerVersions.supported(null)).isFalse();
  }
}
