package dev.klat.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClientVersionCheckTest {

  @Test
  void supportsTwoEightToFourX() {
    assertThat(ClientVersionCheck.isSupported("2.8.2")).isTrue();
    assertThat(ClientVersionCheck.isSupported("3.0.0")).isTrue();
    assertThat(ClientVersionCheck.isSupported("3.9.2")).isTrue();
    assertThat(ClientVersionCheck.isSupported("4.4.0")).isTrue();
    assertThat(ClientVersionCheck.isSupported("4.5.0-SNAPSHOT")).isTrue();
  }

  @Test
  void refusesOlderNewerAndGarbage() {
    assertThat(ClientVersionCheck.isSupported("2.7.2")).isFalse();
    assertThat(ClientVersionCheck.isSupported("0.11.0.3")).isFalse();
    assertThat(ClientVersionCheck.isSupported("5.0.0")).isFalse();
    assertThat(ClientVersionCheck.isSupported("4")).isFalse();
    assertThat(ClientVersionCheck.isSupported("x.y")).isFalse();
    assertThat(ClientVersionCheck.isSupported("")).isFalse();
  }
}
